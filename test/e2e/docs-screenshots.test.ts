// The screenshots of docs/screenshots/: History and Settings at 1280×800 and 800×600, light and dark, with a few
// conversions from the app and the API (two of the same name) and an API key. Taken only when asked:
// `DOCWRIGHT_SCREENSHOTS=docs/screenshots sh scripts/with-keyring.sh npx vitest run test/e2e/docs-screenshots.test.ts`.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call } from '../helpers/docwright-process.ts';
import { dropFiles, pageErrors, startWorld, type World } from './browser.ts';

const OUT = process.env.DOCWRIGHT_SCREENSHOTS;

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
});
