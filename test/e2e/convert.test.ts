// The Convert and History pages in a real Chromium against a real server: drop a file, pick a batch, paste text,
// preview, download (schema-checked), download again from History, delete.
import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { request } from 'undici';
import { part, validateDocx } from '../helpers/docx.ts';
import { pageErrors, startWorld, type World, dropFiles } from './browser.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

/** Clicks a control that makes the browser download, and returns the file's name and bytes. */
async function download(page: Page, name: string): Promise<{ filename: string; bytes: Uint8Array }> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name, exact: true }).click(),
  ]);
  const path = await file.path();
  return { filename: file.suggestedFilename(), bytes: new Uint8Array(readFileSync(path)) };
}

const REPORT =
  '# Quarterly report\n\nRevenue grew **12 %**.\n\n- North\n- South\n\n| Region | Sales |\n|---|--:|\n| North | 10 |\n\n```js\nconsole.log(1)\n```\n';

describe('Convert page', () => {
  test('a dropped markdown file converts and downloads as a schema-valid .docx, with its stats and a preview', async () => {
    const { page } = await world.signedIn();
    expect(await page.getByLabel('Template', { exact: true }).inputValue()).toBe(
      '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000001',
    );
    await dropFiles(page, [{ name: 'report.md', text: REPORT }]);
    const row = page.getByRole('listitem', { name: 'report.md' });
    await row.getByText('Done').waitFor();
    const summary = await row.innerText();
    expect(summary).toContain('1 heading');
    expect(summary).toContain('1 table');
    expect(summary).toContain('1 code block');

    const { filename, bytes } = await download(page, 'Save report.docx');
    expect(filename).toBe('report.docx');
    expect(part(bytes, 'word/document.xml')).toContain('Quarterly report');
    const check = await validateDocx(bytes);
    expect(check.ok, check.report).toBe(true);

    await page.getByRole('button', { name: 'Preview report.docx' }).click();
    const preview = page.getByTestId('preview-body');
    await preview.getByText('Quarterly report').waitFor();
    // The template's Heading 1 style reaches the rendered page (docx-preview turns styles into CSS classes).
    expect(await preview.locator('.docx p', { hasText: 'Quarterly report' }).getAttribute('class')).toMatch(
      /heading-?1/i,
    );
    await world.screenshot(page, 'convert-preview');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await world.screenshot(page, 'convert-drop');
    expect(pageErrors(page)).toEqual([]);
  });

  test('a batch of three chosen files converts one by one; "Save all" gives one .zip of three valid documents', async () => {
    const { page } = await world.signedIn();
    const files = ['alpha', 'beta', 'gamma'].map((n, i) => ({
      name: `${n}.md`,
      mimeType: 'text/markdown',
      buffer: Buffer.from(`# ${n}\n\nParagraph ${i + 1}.\n`),
    }));
    await page.getByTestId('file-input').setInputFiles(files);
    for (const f of files) await page.getByRole('listitem', { name: f.name }).getByText('Done').waitFor();
    await world.screenshot(page, 'convert-batch');

    const [zip] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Save all (3) as .zip' }).click(),
    ]);
    const entries = unzipSync(new Uint8Array(readFileSync(await zip.path())));
    const downloads = Object.entries(entries).map(([name, bytes]) => ({ name, bytes }));
    expect(downloads.map((d) => d.name).sort()).toEqual(['alpha.docx', 'beta.docx', 'gamma.docx']);
    for (const d of downloads) {
      expect(part(d.bytes, 'word/document.xml')).toContain(d.name.replace('.docx', ''));
      expect((await validateDocx(d.bytes)).ok).toBe(true);
    }
    expect(pageErrors(page)).toEqual([]);
  });

  test('pasted text converts; non-markdown files are refused in plain words; an empty file converts with a warning', async () => {
    const { page } = await world.signedIn();
    await page.getByRole('button', { name: 'Convert', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Paste some markdown first.' }).waitFor();

    await page.getByLabel('Paste markdown').fill('## Notes\n\n> quoted\n');
    await page.getByLabel('File name').fill('notes');
    await page.getByRole('button', { name: 'Convert', exact: true }).click();
    await page.getByRole('listitem', { name: 'Pasted text (notes)' }).getByText('Done').waitFor();

    await dropFiles(page, [{ name: 'picture.png', text: 'not markdown' }]);
    await page.getByTestId('skipped').filter({ hasText: '1 file skipped (not markdown): picture.png.' }).waitFor();

    await page
      .getByTestId('file-input')
      .setInputFiles([{ name: 'empty.md', mimeType: 'text/markdown', buffer: Buffer.from('  \n') }]);
    // An empty file converts as the CLI converts it: a valid, empty document, and the warning empty_document.
    const empty = page.getByRole('listitem', { name: 'empty.md' });
    await empty.getByText('Done').waitFor();
    await empty.locator('summary').click();
    await empty.locator('[data-code="empty_document"]').waitFor();
    // Nothing in the UI shows raw JSON.
    expect(await page.locator('main').innerText()).not.toMatch(/"error"|\{"code"/);
    await world.screenshot(page, 'convert-paste-and-refusals');
    expect(pageErrors(page)).toEqual([]);
  });
});

describe('History page', () => {
  test('lists past conversions with warnings and stats, downloads one again, deletes one', async () => {
    const { page } = await world.signedIn();
    // A conversion made outside the UI (the CLI's way in), with a warning, so History shows one.
    const made = await request(`${world.origin}/api/v1/convert`, {
      dispatcher: world.agent,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-docwright-admin': world.server.adminToken },
      body: JSON.stringify({
        markdown: '# From a script\n\n<marquee>raw</marquee>\n',
        template_id: '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000001',
        mapping_id: '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000002',
        filename: 'scripted',
        response_format: 'json',
      }),
    });
    expect(made.statusCode).toBe(200);
    await made.body.dump();

    await page.getByRole('link', { name: 'History' }).click();
    const table = page.getByRole('table', { name: 'Past conversions' });
    const row = table.getByRole('row').filter({ hasText: 'scripted.docx' });
    await row.waitFor();
    await row.getByText('1 warning').click();
    // Grouped, in words, with the line it came from (item 5 of issue 16).
    await row.getByText(/^1 HTML snippet \(<marquee>; first on line 3\) was converted as plain text/).waitFor();
    await world.screenshot(page, 'history');

    const { filename, bytes } = await download(page, 'Save scripted.docx');
    expect(filename).toBe('scripted.docx');
    expect((await validateDocx(bytes)).ok).toBe(true);

    const before = await table.getByRole('row').count();
    await row.getByRole('button', { name: 'More actions for scripted.docx' }).click();
    await page
      .getByRole('menu', { name: 'Actions for scripted.docx' })
      .getByRole('menuitem', { name: 'Delete…' })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted scripted.docx.' }).waitFor();
    await expect.poll(() => table.getByRole('row').count()).toBe(before - 1);
    const gone = await request(`${world.origin}/api/v1/conversions?limit=200`, {
      dispatcher: world.agent,
      headers: { 'x-docwright-admin': world.server.adminToken },
    });
    expect(((await gone.body.json()) as { items: { filename: string }[] }).items.map((i) => i.filename)).not.toContain(
      'scripted.docx',
    );
    expect(pageErrors(page)).toEqual([]);
  });
});
