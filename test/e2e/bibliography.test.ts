// Issue 34, acceptance 1 in the app: the thesis (test/fixtures/thesis) dropped with its BibTeX file, or given a
// bibliography with the Convert page's button, converts with its citations formatted and a bibliography (a real
// Chromium, a real server); the saved .docx and the preview show them, never `[@key]`; a CSL style dropped with it
// formats them; files that are no bibliography, or too large, are said so in words.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { plugins } from '@citation-js/core';
import '@citation-js/plugin-csl';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { part, validateDocx } from '../helpers/docx.ts';
import {
  convertPasted,
  dropFiles,
  pageErrors,
  savedFile,
  startWorld,
  type DroppedFile,
  type World,
} from './browser.ts';

const THESIS = resolve(import.meta.dirname, '../fixtures/thesis');
const MARKDOWN = readFileSync(join(THESIS, 'thesis.md'), 'utf8');
const BIB = readFileSync(join(THESIS, 'refs.bib'), 'utf8');
const FIGURES: DroppedFile[] = [1, 2, 3, 4, 5, 6].map((n) => ({
  name: `figure-${String(n)}.png`,
  type: 'image/png',
  bytes: readFileSync(join(THESIS, `figure-${String(n)}.png`)),
}));
/** A CSL style's XML, to drop as a file: citation-js's Vancouver (numeric), as a user's own .csl would be. */
const VANCOUVER = (plugins.config.get('@csl') as { styles: { get(name: string): string } }).styles.get('vancouver');

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

/** A document's body text: runs joined, a paragraph a line, field codes left out (their results kept). */
function bodyText(docx: Uint8Array): string {
  return [...part(docx, 'word/document.xml').matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:p[ >]|<w:tab\/>/g)]
    .map((m) => m[1] ?? (m[0] === '<w:tab/>' ? '\t' : '\n'))
    .join('')
    .replaceAll('&amp;', '&');
}

const bibliographyEntries = (docx: Uint8Array) =>
  part(docx, 'word/document.xml').match(/<w:pStyle w:val="Bibliography"\/>/g)?.length ?? 0;

/** The saved .docx, which passes the schema validator. */
async function valid(docx: Promise<Uint8Array>): Promise<Uint8Array> {
  const bytes = await docx;
  const { ok, report } = await validateDocx(bytes);
  expect(ok, report).toBe(true);
  return bytes;
}
const saved = (page: Page, filename: string) => valid(savedFile(page, filename));

describe('citations in the Convert page', () => {
  test('the thesis dropped with refs.bib: formatted citations and a bibliography, in the .docx and the preview', async () => {
    const { page } = await world.signedIn();
    await dropFiles(page, [
      { name: 'thesis.md', text: MARKDOWN },
      { name: 'refs.bib', text: BIB, type: '' },
      ...FIGURES,
    ]);
    const row = page.getByRole('listitem', { name: 'thesis.md' });
    await row.getByText('Done').waitFor({ timeout: 60_000 });
    // The row says which bibliography went with it; nothing was skipped.
    expect(await row.getByTestId('job-bibliography').innerText()).toMatch(/refs\.bib.*20 entries/);
    expect(await page.getByTestId('skipped').count()).toBe(0);
    const docx = await saved(page, 'thesis.docx');
    const text = bodyText(docx);
    expect(text).not.toContain('[@');
    expect(text).toContain('(Shannon, 1948)');
    expect(text).toContain('(Hoare, 1969, p. 577)');
    expect(text).toContain('Shannon, C. E. (1948). A Mathematical Theory of Communication.');
    expect(bibliographyEntries(docx)).toBe(20);

    await page.getByRole('button', { name: 'Preview thesis.docx' }).click();
    const preview = page.getByTestId('preview-body');
    await preview.getByText('Structure and Interpretation of Scholarly Markdown').first().waitFor();
    await page.getByText('Rendering the document…').waitFor({ state: 'detached' });
    // The rendered document is in the preview's shadow root, laid out a few pages at a time: the bibliography is last.
    const shown = async () =>
      (await preview.evaluate((host) => host.shadowRoot?.textContent ?? '')).replace(/\s+/g, ' ');
    await expect
      .poll(shown, { timeout: 60_000 })
      .toContain('Shannon, C. E. (1948). A Mathematical Theory of Communication.');
    expect(await shown()).toContain('(Shannon, 1948)');
    expect(await shown()).toContain('(Hoare, 1969, p. 577)');
    expect(await shown()).not.toContain('[@');
    await world.screenshot(page, 'bibliography-preview');
    expect(pageErrors(page)).toEqual([]);
  });

  test('a CSL style dropped with the markdown and its bibliography formats the citations', async () => {
    const { page } = await world.signedIn();
    await dropFiles(page, [
      { name: 'thesis.md', text: MARKDOWN },
      { name: 'refs.bib', text: BIB, type: '' },
      { name: 'vancouver.csl', text: VANCOUVER, type: '' },
      ...FIGURES,
    ]);
    const row = page.getByRole('listitem', { name: 'thesis.md' });
    await row.getByText('Done').waitFor({ timeout: 60_000 });
    expect(await row.getByTestId('job-bibliography').innerText()).toMatch(/vancouver\.csl/);
    const text = bodyText(await saved(page, 'thesis.docx'));
    expect(text).toContain('communication (1), the limits of computation (2)');
    expect(text).toMatch(/1\.\tShannon CE\. A Mathematical Theory of Communication/);
    expect(pageErrors(page)).toEqual([]);
  });

  test('chosen together with “Choose files…”, the markdown and its .bib convert with the citations formatted', async () => {
    const { page } = await world.signedIn();
    await page.getByTestId('file-input').setInputFiles([
      { name: 'thesis.md', mimeType: 'text/markdown', buffer: Buffer.from(MARKDOWN) },
      { name: 'refs.bib', mimeType: 'text/x-bibtex', buffer: Buffer.from(BIB) },
    ]);
    const row = page.getByRole('listitem', { name: 'thesis.md' });
    await row.getByText('Done').waitFor({ timeout: 60_000 });
    expect(await row.getByTestId('job-bibliography').innerText()).toMatch(/refs\.bib.*20 entries/);
    const docx = await saved(page, 'thesis.docx');
    expect(bodyText(docx)).not.toContain('[@');
    expect(bibliographyEntries(docx)).toBe(20);
    expect(pageErrors(page)).toEqual([]);
  });

  test('a bibliography chosen with the button is shown, used for what is converted next, and removed', async () => {
    const { page } = await world.signedIn();
    await page.getByTestId('citation-input').setInputFiles({
      name: 'refs.bib',
      mimeType: 'text/plain',
      buffer: Buffer.from(BIB),
    });
    const attached = page.getByTestId('attached-bibliography');
    expect(await attached.innerText()).toMatch(/refs\.bib.*20 entries/);
    await world.screenshot(page, 'bibliography-attached');
    const cited = await valid(convertPasted(page, '# Notes\n\nAs shown [@shannon1948, p. 4].\n', 'cited'));
    expect(bodyText(cited)).toContain('(Shannon, 1948, p. 4)');
    expect(bibliographyEntries(cited)).toBe(1);

    await page.getByRole('button', { name: 'Remove the bibliography refs.bib' }).click();
    expect(await attached.count()).toBe(0);
    const plain = await valid(convertPasted(page, '# Notes\n\nAs shown [@shannon1948, p. 4].\n', 'plain'));
    expect(bodyText(plain)).toContain('[@shannon1948, p. 4]');

    // Dropped alone, a bibliography is attached the same way (to convert the markdown dropped next with it).
    await dropFiles(page, [{ name: 'refs.bib', text: BIB, type: '' }]);
    expect(await attached.innerText()).toMatch(/refs\.bib.*20 entries/);
    expect(await page.getByTestId('skipped').count()).toBe(0);
    expect(pageErrors(page)).toEqual([]);
  });

  test('a file that is no bibliography, or too large, is said so and not used', async () => {
    const { page } = await world.signedIn();
    const input = page.getByTestId('citation-input');
    await input.setInputFiles({ name: 'notes.bib', mimeType: 'text/plain', buffer: Buffer.from('Just my notes.\n') });
    expect(await page.getByTestId('citation-error').innerText()).toMatch(/notes\.bib is not a bibliography/);
    await input.setInputFiles({
      name: 'huge.json',
      mimeType: 'application/json',
      buffer: Buffer.alloc(4 * 1024 * 1024 + 1, 32),
    });
    expect(await page.getByTestId('citation-error').innerText()).toMatch(/huge\.json is larger than 4 MB/);
    await input.setInputFiles({ name: 'style.csl', mimeType: 'text/xml', buffer: Buffer.from('<html></html>') });
    expect(await page.getByTestId('citation-error').innerText()).toMatch(/style\.csl is not a CSL style/);
    expect(await page.getByTestId('attached-bibliography').count()).toBe(0);

    // Dropped with the markdown, a bad bibliography fails that file with the reason, rather than leave [@key] as text.
    await dropFiles(page, [
      { name: 'thesis.md', text: MARKDOWN },
      { name: 'refs.bib', text: '{"not": "bibtex"}', type: '' },
    ]);
    const row = page.getByRole('listitem', { name: 'thesis.md' });
    await row.getByText('Failed').waitFor();
    expect(await row.getByRole('alert').innerText()).toMatch(/refs\.bib is not a bibliography/);
    await world.screenshot(page, 'bibliography-bad');
    expect(pageErrors(page)).toEqual([]);
  });
});
