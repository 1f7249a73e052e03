// The screenshots of docs/screenshots/: History and Settings at 1280×800 and 800×600, light and dark, with a few
// conversions from the app and the API (two of the same name) and an API key; Convert with two conversions in
// progress, and the preview of a corpus document and of a large one (its first 40 pages). Taken only when asked:
// `DOCWRIGHT_SCREENSHOTS=docs/screenshots sh scripts/with-keyring.sh npx vitest run test/e2e/docs-screenshots.test.ts`.
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call } from '../helpers/docwright-process.ts';
import { dropFiles, pageErrors, startWorld, type World } from './browser.ts';

const OUT = process.env.DOCWRIGHT_SCREENSHOTS;
const CORPUS = resolve(import.meta.dirname, '../../../shared/corpus/docs');
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
] as const;
/** Markdown that keeps a worker busy for seconds (a conversion to show in progress). */
const BIG = Array.from({ length: 60_000 }, (_, i) => `Paragraph ${i} with **bold**, _emphasis_ and \`code\`.\n`).join(
  '\n',
);
/** About 2.1 MB of the corpus's documents, repeated, as in app-responsive.test.ts (a preview of its first 40 pages). */
function largeDocument(): string {
  const docs = [
    'golang-proposal-43651-type-parameters.md',
    'rust-rfc-2873-inline-asm.md',
    'ripgrep-GUIDE.md',
    'github-general-privacy-statement.md',
  ].map((name) => readFileSync(join(CORPUS, name), 'utf8'));
  const parts: string[] = [];
  for (let i = 0, size = 0; size < 2_100_000; i++) {
    const doc = docs[i % docs.length] ?? '';
    parts.push(doc);
    size += doc.length;
  }
  return parts.join('\n\n');
}

let world: World;
beforeAll(async () => {
  if (OUT) world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

describe.skipIf(!OUT)('documentation screenshots', () => {
  test('History and Settings at 1280×800 and 800×600, light and dark', async () => {
    const dir = resolve(OUT ?? '.');
    mkdirSync(dir, { recursive: true });
    const created = await call(world.agent, `${world.origin}/api/settings/api-keys`, {
      method: 'POST',
      headers: { 'x-docwright-admin': world.server.adminToken },
      body: { name: 'ci-bot' },
    });
    const key = created.json().key as string;
    const apiFiles = [
      ['quarterly-report-for-the-board-of-directors-2026', '# Report\n\nShort.\n'],
      ['quarterly-report-for-the-board-of-directors-2026', `# Report\n\n${'A longer paragraph. '.repeat(400)}\n`],
      ['release-notes', '# Notes\n\n- one\n- two\n'],
    ];
    for (const [filename, markdown] of apiFiles) {
      const res = await call(world.agent, `${world.origin}/api/v1/convert`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: {
          markdown,
          template_id: BUILTIN_TEMPLATE_ID,
          mapping_id: BUILTIN_MAPPING_ID,
          filename,
          response_format: 'json',
        },
      });
      expect(res.status).toBe(200);
    }
    const { page } = await world.signedIn({ width: 1280, height: 800 });
    await dropFiles(page, [
      { name: 'report.md', text: '# Report\n\nHello.\n' },
      { name: 'meeting-minutes-2026-11-27.md', text: '# Minutes\n\n| a | b |\n|---|---|\n| 1 | 2 |\n' },
    ]);
    await page.getByRole('listitem', { name: 'report.md' }).getByText('Done').waitFor();
    await page.getByRole('listitem', { name: 'meeting-minutes-2026-11-27.md' }).getByText('Done').waitFor();

    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 800, height: 600 },
    ])
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: scheme });
        for (const [name, link] of [
          ['history', 'History'],
          ['settings', 'Settings'],
        ] as const) {
          await page.getByRole('link', { name: link }).click();
          await page.getByRole('heading', { name: link, level: 1 }).waitFor();
          if (name === 'history') await page.getByTestId('history-row').first().waitFor();
          else await page.getByRole('table', { name: 'API keys' }).waitFor();
          await page.mouse.move(0, 0);
          await page.screenshot({
            path: join(dir, `${name}-${viewport.width}x${viewport.height}-${scheme}.png`),
            fullPage: true,
          });
        }
      }
    expect(pageErrors(page)).toEqual([]);
  });

  test('Convert with conversions in progress and the preview at 1280×800 and 800×600, light and dark', async () => {
    const dir = resolve(OUT ?? '.');
    const res = await call(world.agent, `${world.origin}/api/v1/convert`, {
      method: 'POST',
      headers: { 'x-docwright-admin': world.server.adminToken },
      body: {
        markdown: largeDocument(),
        template_id: BUILTIN_TEMPLATE_ID,
        mapping_id: BUILTIN_MAPPING_ID,
        filename: 'large',
        response_format: 'json',
      },
    });
    expect(res.status).toBe(200);
    const { page } = await world.signedIn({ width: 1280, height: 800 });
    const guide = readFileSync(join(CORPUS, 'ripgrep-GUIDE.md'), 'utf8');
    for (const viewport of VIEWPORTS)
      for (const scheme of ['light', 'dark'] as const) {
        const at = `${viewport.width}x${viewport.height}-${scheme}`;
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: scheme });
        await page.getByRole('link', { name: 'Convert' }).click();
        await page.getByRole('heading', { name: 'Convert markdown to Word', level: 1 }).waitFor();
        await dropFiles(page, [{ name: 'ripgrep-GUIDE.md', text: guide }]);
        await page.getByRole('listitem', { name: 'ripgrep-GUIDE.md' }).first().getByText('Done').waitFor();

        await page.getByRole('button', { name: 'Preview ripgrep-GUIDE.docx' }).first().click();
        await expect
          .poll(async () => page.getByTestId('preview-note').innerText(), { timeout: 60_000 })
          .toMatch(/\(\d+ pages?\)/);
        await page.mouse.move(0, 0);
        await page.screenshot({ path: join(dir, `preview-${at}.png`) });
        await page.keyboard.press('Escape');
        await page.getByRole('dialog', { name: /^Preview:/ }).waitFor({ state: 'hidden' });
        // No focus ring left on the Preview button the closed preview gave the focus back to.
        await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

        await dropFiles(page, [
          { name: 'big-1.md', text: BIG },
          { name: 'big-2.md', text: BIG },
        ]);
        await expect
          .poll(async () => page.getByRole('listitem', { name: 'big-2.md' }).getByTestId('job-stage').innerText(), {
            timeout: 30_000,
          })
          .toMatch(/Converting.* [1-9]\d* s$/);
        await page.evaluate(() => scrollTo(0, 0));
        await page.screenshot({ path: join(dir, `convert-${at}.png`) });
        if (viewport.width === 800) {
          await page.getByRole('listitem', { name: 'big-2.md' }).scrollIntoViewIfNeeded();
          await page.screenshot({ path: join(dir, `convert-progress-${at}.png`) });
        }
        await page.getByRole('button', { name: 'Cancel all' }).click();
        // Clear takes the finished rows (cancelled ones included) once the cancellations have landed.
        const results = page.getByRole('listitem', { name: /^(big-\d|ripgrep-GUIDE)\.md$/ });
        await expect
          .poll(async () => {
            const clear = page.getByRole('button', { name: 'Clear' });
            if (await clear.isEnabled()) await clear.click();
            return results.count();
          })
          .toBe(0);
      }

    for (const viewport of VIEWPORTS)
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: scheme });
        await page.getByRole('link', { name: 'History' }).click();
        await page.getByRole('button', { name: 'More actions for large.docx' }).click();
        await page
          .getByRole('menu', { name: 'Actions for large.docx' })
          .getByRole('menuitem', { name: 'Preview' })
          .click();
        await page.getByText(/Showing the first 40 of about \d+ pages/).waitFor({ timeout: 120_000 });
        await page.mouse.move(0, 0);
        await page.screenshot({ path: join(dir, `preview-large-${viewport.width}x${viewport.height}-${scheme}.png`) });
        if (viewport.width === 1280 && scheme === 'light') {
          // A numbered list deep in the document (page 11), counted across the pieces the preview renders in.
          await page.getByTestId('preview-body').getByText('Type literals, such as').first().scrollIntoViewIfNeeded();
          await page.screenshot({ path: join(dir, 'preview-large-ordered-list.png') });
        }
        await page.keyboard.press('Escape');
        await page.getByRole('dialog', { name: /^Preview:/ }).waitFor({ state: 'hidden' });
      }
    expect(pageErrors(page)).toEqual([]);
  }, 600_000);
});
