// The mapping editor's character-style keys and options (issue 15 items 6 and 8) in a real Chromium: character keys
// offer the template's character styles, a paragraph style named for one is flagged, the horizontal-rule and
// task-list options are select inputs, and a conversion on the Convert page applies what was saved.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { request } from 'undici';
import { BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { part, validateDocx } from '../helpers/docx.ts';
import { pageErrors, startWorld, type World } from './browser.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world.close();
});

/** Chooses a style in one of the mapping editor's searchable lists: type part of its name, then pick it. */
async function choose(page: Page, field: string, style: string): Promise<void> {
  // The label may carry a badge ("wrong type") after the field's name.
  const box = page.getByLabel(new RegExp(`^${field.replace(/[()[\]]/g, '\\$&')}`));
  await box.fill(style);
  await page.getByRole('listbox').getByRole('option', { name: style, exact: true }).click();
  expect(await box.inputValue()).toBe(style);
}

async function adminRequest<T>(path: string, method: 'GET' | 'POST' = 'GET', body?: unknown): Promise<T> {
  const res = await request(`${world.origin}${path}`, {
    dispatcher: world.agent,
    method,
    headers: { 'content-type': 'application/json', 'x-docwright-admin': world.server.adminToken },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.statusCode).toBeLessThan(300);
  return (await res.body.json()) as T;
}

describe('mapping editor: character styles and options', () => {
  test('a paragraph style for a character key is flagged; character styles and options are chosen, saved and applied', async () => {
    // A mapping made through the API that names a paragraph style for `strong`.
    const made = await adminRequest<{ id: string }>('/api/v1/mappings', 'POST', {
      name: 'Inline styles',
      template_id: BUILTIN_TEMPLATE_ID,
      rules: { paragraph: 'Body Text', strong: 'Body Text' },
    });
    const { page } = await world.signedIn();
    await page.getByRole('link', { name: 'Templates & mappings' }).click();
    await page.getByRole('button', { name: 'Docwright Default', exact: true }).click();
    await page.getByRole('button', { name: 'Edit mapping Inline styles' }).click();

    const strong = page.getByLabel(/^Strong \(bold\)/);
    expect(await strong.getAttribute('aria-invalid')).toBe('true');
    expect(await strong.inputValue()).toBe('Body Text (a paragraph style)');
    await page.getByText('“Body Text” is a paragraph style; this element needs a character style.').waitFor();
    await page.getByText('wrong type', { exact: true }).waitFor();
    await strong.scrollIntoViewIfNeeded();
    await world.screenshot(page, 'mapping-character-key-paragraph-style-flagged');

    // Character keys offer the template's character styles only.
    await page.getByLabel('Inline code', { exact: true }).click();
    const offered = await page.getByRole('listbox').getByRole('option').allInnerTexts();
    expect(offered).toEqual(expect.arrayContaining(['Verbatim Char', 'Strong', 'Emphasis', 'Hyperlink']));
    expect(offered).not.toContain('Body Text');
    await page.getByLabel('Inline code', { exact: true }).press('Escape');
    // Footnote text is a paragraph style.
    await page.getByLabel('Footnote text', { exact: true }).click();
    expect(await page.getByRole('listbox').getByRole('option').allInnerTexts()).toContain('Footnote Text');
    await page.getByLabel('Footnote text', { exact: true }).press('Escape');

    await choose(page, 'Strong (bold)', 'Strong');
    expect(await strong.getAttribute('aria-invalid')).toBe('false');
    await choose(page, 'Inline code', 'Verbatim Char');
    await choose(page, 'Emphasis (italic)', 'Emphasis');
    // The options: SPEC's behaviour first, marked as the default.
    const rule = page.getByLabel('Horizontal rule (---)');
    expect(await rule.inputValue()).toBe('page_break');
    expect(await rule.locator('option').allInnerTexts()).toEqual([
      'Page break (default)',
      'Line across the page',
      'Nothing',
    ]);
    await rule.selectOption('rule');
    await page.getByLabel('Task list (- [ ] / - [x])').selectOption('checkbox');
    await world.screenshot(page, 'mapping-character-styles-and-options');
    await page.getByRole('button', { name: 'Save mapping' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved the mapping “Inline styles” (version 2).' }).waitFor();

    const saved = await adminRequest<{ rules: Record<string, unknown> }>(`/api/v1/mappings/${made.id}`);
    expect(saved.rules).toEqual({
      paragraph: 'Body Text',
      strong: 'Strong',
      inline_code: 'Verbatim Char',
      emphasis: 'Emphasis',
      table: { header_row: true },
      thematic_break: 'rule',
      task_list: 'checkbox',
    });

    // Convert with it on the Convert page.
    await page.getByRole('link', { name: 'Convert' }).click();
    await page.getByLabel('Template', { exact: true }).selectOption(BUILTIN_TEMPLATE_ID);
    await page.getByLabel('Style mapping').selectOption(made.id);
    await page.getByLabel('Paste markdown').fill('Some **bold** and `code`.\n\n---\n\n- [x] done\n- [ ] open\n');
    await page.getByLabel('File name').fill('options');
    await page.getByRole('button', { name: 'Convert', exact: true }).click();
    await page.getByRole('listitem', { name: 'Pasted text (options)' }).getByText('Done').waitFor();
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Save options.docx' }).click(),
    ]);
    const bytes = new Uint8Array(readFileSync(await file.path()));
    const body = part(bytes, 'word/document.xml');
    expect(body).toContain('<w:rStyle w:val="Strong"/>');
    expect(body).toContain('<w:rStyle w:val="VerbatimChar"/>');
    expect(body).toContain('<w:pBdr><w:bottom w:val="single"');
    expect(body).not.toContain('w:type="page"');
    expect(body).toContain('\u2612 ');
    expect((await validateDocx(bytes)).ok).toBe(true);
    expect(pageErrors(page)).toEqual([]);
  });
});
