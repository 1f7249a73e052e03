// Issue 16 item 3: the preview shows pages like LibreOffice's rendering of the same .docx. Shared-corpus documents,
// converted with the built-in template and with a real corporate template (apaquarto), previewed in Chromium: the
// page count is within ±20 % of LibreOffice's PDF, page numbers are filled in, code uses a monospaced font and body
// text the metric-compatible stand-in of the template's font. Screenshots of both renderings are kept side by side.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call } from '../helpers/docwright-process.ts';
import { woffToTtf } from '../helpers/woff-to-ttf.ts';
import { pageErrors, SCREENSHOTS, startWorld, type World } from './browser.ts';

const run = promisify(execFile);
const CORPUS = resolve(import.meta.dirname, '../../../shared/corpus');

let world: World;
let key: string;
let apa: { template: string; mapping: string };
const work = mkdtempSync(join(tmpdir(), 'dw-preview-pages-'));

beforeAll(async () => {
  world = await startWorld();
  const created = await call(world.agent, `${world.origin}/api/settings/api-keys`, {
    method: 'POST',
    headers: { 'x-docwright-admin': world.server.adminToken },
    body: { name: 'pages' },
  });
  key = created.json().key;
  const form = new FormData();
  form.set('name', 'APA');
  form.set('file', new Blob([readFileSync(join(CORPUS, 'templates/apaquarto.docx'))]), 'apaquarto.docx');
  const upload = await request(`${world.origin}/api/v1/templates`, {
    method: 'POST',
    dispatcher: world.agent,
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const template = (await upload.body.json()) as { id: string };
  expect(upload.statusCode).toBe(201);
  const rules = JSON.parse(readFileSync(join(CORPUS, 'templates/apaquarto.mapping.json'), 'utf8'));
  const mapping = await call(world.agent, `${world.origin}/api/v1/mappings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: { name: 'APA', template_id: template.id, rules },
  });
  expect(mapping.status).toBe(201);
  apa = { template: template.id, mapping: mapping.json().id };
}, 120_000);

afterAll(async () => {
  await world?.close();
  rmSync(work, { recursive: true, force: true });
});

/**
 * A fontconfig set-up giving LibreOffice the same metric-compatible fonts the preview ships (the app's @fontsource
 * files), as on a machine with them installed: without them it falls back to DejaVu, wider than any Office font.
 * fontconfig's own metric aliases map Calibri → Carlito, Times New Roman → Tinos and so on.
 */
function fontConfig(): string {
  const dir = join(work, 'fonts');
  mkdirSync(dir, { recursive: true });
  for (const family of ['carlito', 'caladea', 'arimo', 'tinos', 'cousine']) {
    const files = resolve(import.meta.dirname, `../../node_modules/@fontsource/${family}/files`);
    for (const file of readdirSync(files))
      if (/-latin-[47]00-(normal|italic)\.woff$/.test(file))
        writeFileSync(join(dir, file.replace(/\.woff$/, '.ttf')), woffToTtf(readFileSync(join(files, file))));
  }
  const conf = join(work, 'fonts.conf');
  writeFileSync(
    conf,
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig><include ignore_missing="yes">/etc/fonts/fonts.conf</include><dir>${dir}</dir><cachedir>${join(work, 'fc-cache')}</cachedir></fontconfig>\n`,
  );
  return conf;
}

/** LibreOffice's PDF of a .docx: its page count, and its first pages as PNGs in the screenshots folder. */
async function libreOffice(docx: Uint8Array, name: string): Promise<number> {
  const input = join(work, `${name}.docx`);
  writeFileSync(input, docx);
  const env = { ...process.env, FONTCONFIG_FILE: fontConfig() };
  await run(
    'libreoffice',
    [`-env:UserInstallation=file://${work}/profile`, '--headless', '--convert-to', 'pdf', '--outdir', work, input],
    { timeout: 240_000, env },
  );
  const pdf = join(work, `${name}.pdf`);
  const { stdout } = await run('pdfinfo', [pdf]);
  const pages = Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1]);
  await run('pdftoppm', [
    '-png',
    '-r',
    '60',
    '-f',
    '1',
    '-l',
    '2',
    pdf,
    join(SCREENSHOTS, `preview-${name}-libreoffice`),
  ]);
  return pages;
}

const CASES = [
  { doc: 'ripgrep-GUIDE.md', template: 'builtin' },
  { doc: 'jekyll-docs-collections.md', template: 'apa' },
  { doc: 'github-general-privacy-statement.md', template: 'apa' },
] as const;

describe('preview pages (item 3)', () => {
  for (const { doc, template } of CASES) {
    test(`${doc} with the ${template} template: page count within ±20 % of LibreOffice's, numbered pages`, async () => {
      const name = `${doc.replace(/\.md$/, '')}-${template}`;
      const ids =
        template === 'builtin'
          ? { template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID }
          : { template_id: apa.template, mapping_id: apa.mapping };
      const res = await call(world.agent, `${world.origin}/api/v1/convert`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: { markdown: readFileSync(join(CORPUS, 'docs', doc), 'utf8'), ...ids, filename: name },
      });
      expect(res.status).toBe(200);
      const expected = await libreOffice(new Uint8Array(res.bytes), name);

      const { page } = await world.signedIn();
      await page.getByRole('link', { name: 'History' }).click();
      // History keeps Preview in each row's menu (the row's one open action is Save).
      await page.getByRole('button', { name: `More actions for ${name}.docx` }).click();
      await page
        .getByRole('menu', { name: `Actions for ${name}.docx` })
        .getByRole('menuitem', { name: 'Preview' })
        .click();
      const note = page.getByTestId('preview-note');
      await expect.poll(async () => note.innerText(), { timeout: 60_000 }).toMatch(/\(\d+ pages?\)/);
      const shown = Number(/\((\d+) pages?\)/.exec(await note.innerText())?.[1]);
      const early = await page.getByTestId('preview-body').evaluate((host) => {
        const pages = Array.from(host.shadowRoot?.querySelectorAll<HTMLElement>('.docx-wrapper > section') ?? []);
        return pages
          .map(
            (p) =>
              Math.round((p.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(p).minHeight)) * 10) /
              10,
          )
          .join(',');
      });
      console.log(`${name}: preview ${shown} pages, LibreOffice ${expected}; page heights ${early}`);
      await page.screenshot({ path: join(SCREENSHOTS, `preview-${name}-chromium.png`) });
      expect(Math.abs(shown - expected) / expected).toBeLessThanOrEqual(0.2);

      const body = page.getByTestId('preview-body');
      const facts = await body.evaluate((host) => {
        const root = host.shadowRoot;
        const pages = Array.from(root?.querySelectorAll<HTMLElement>('.docx-wrapper > section') ?? []);
        const code = root?.querySelector<HTMLElement>(
          '.docx-wrapper code, .docx-wrapper span[style*="Consolas"], .docx-wrapper p[class*="code" i] span, .docx-wrapper p[class*="source" i] span',
        );
        const footers = pages.map(
          (p) =>
            `${p.querySelector('header')?.textContent?.trim() ?? ''} ${p.querySelector('footer')?.textContent?.trim() ?? ''}`,
        );
        const marks = pages.some((p) => /[\uE000\uE001]/.test(p.textContent ?? ''));
        // Pages taller than the document's page: content the pagination could not place (a block taller than a page).
        const tall = pages
          .filter((p) => p.getBoundingClientRect().height > Number.parseFloat(getComputedStyle(p).minHeight) + 2)
          .map(
            (p) =>
              Math.round((p.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(p).minHeight)) * 10) /
              10,
          );
        // How far the header's last character (APA: the page number after a right tab stop) ends from the right margin.
        const header = pages[1]?.querySelector('header');
        let headerGap = Number.NaN;
        if (header && pages[1]) {
          const walker = document.createTreeWalker(header, NodeFilter.SHOW_TEXT);
          let last: Text | null = null;
          for (let node = walker.nextNode(); node; node = walker.nextNode())
            if ((node.nodeValue ?? '').trim()) last = node as Text;
          if (last) {
            const range = document.createRange();
            range.selectNodeContents(last);
            const margin =
              pages[1].getBoundingClientRect().right - Number.parseFloat(getComputedStyle(pages[1]).paddingRight);
            headerGap = margin - range.getBoundingClientRect().right;
          }
        }
        return {
          pages: pages.length,
          footers,
          marks,
          tall,
          headerGap,
          codeFont: code ? getComputedStyle(code).fontFamily : '',
        };
      });
      expect(facts.pages).toBe(shown);
      expect(facts.marks).toBe(false);
      if (template === 'apa') {
        // APA's header holds a PAGE field: each page shows its own number.
        facts.footers.forEach((text, i) => expect(text.trim()).toMatch(new RegExp(`\\b${i + 1}$`)));
        // …at the right margin, where the Header style's right tab stop puts it.
        expect(Math.abs(facts.headerGap)).toBeLessThan(24);
      }
      // The code font is the monospaced stand-in, never the browser's serif default.
      if (facts.codeFont) expect(facts.codeFont).toMatch(/Consolas|Cousine|mono/i);
      // The second page, to compare with LibreOffice's second page.
      await body.evaluate((host) => host.shadowRoot?.querySelectorAll('.docx-wrapper > section')[1]?.scrollIntoView());
      await page.screenshot({ path: join(SCREENSHOTS, `preview-${name}-chromium-2.png`) });
      expect(pageErrors(page)).toEqual([]);
    }, 300_000);
  }
});
