// Templates and mappings in a real Chromium: upload a Word template, see its styles, create a mapping with the
// dropdowns (missing styles flagged), edit it (its version goes up), convert with it (remembered next time).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { request } from 'undici';
import { part, validateDocx } from '../helpers/docx.ts';
import { pageErrors, startWorld, type World } from './browser.ts';

const CORPORATE = resolve(import.meta.dirname, '../fixtures/templates/corporate.docx');

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

/** Chooses a style in one of the mapping editor's searchable lists: type part of its name, then pick it. */
async function choose(page: Page, field: string, style: string): Promise<void> {
  const box = page.getByLabel(field, { exact: true });
  await box.fill(style);
  await page.getByRole('listbox').getByRole('option', { name: style, exact: true }).click();
  expect(await box.inputValue()).toBe(style);
}

async function api<T>(path: string): Promise<T> {
  const res = await request(`${world.origin}${path}`, {
    dispatcher: world.agent,
    headers: { 'x-docwright-admin': world.server.adminToken },
  });
  expect(res.statusCode).toBe(200);
  return (await res.body.json()) as T;
}

describe('Templates & mappings page', () => {
  test('upload a template, create a mapping from its styles, edit it (version 1 → 2), convert with it', async () => {
    const { page } = await world.signedIn();
    await page.getByRole('link', { name: 'Templates & mappings' }).click();
    await page.getByRole('heading', { name: 'Templates & mappings', level: 1 }).waitFor();

    // Upload.
    await page.getByLabel('File (.docx or .dotx)').setInputFiles(CORPORATE);
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('corporate');
    await page.getByLabel('Name', { exact: true }).fill('Corporate report');
    await page.getByLabel('Description (optional)').fill('Cover, header, footer');
    await page.getByRole('button', { name: 'Upload template' }).click();
    await page.getByRole('status').filter({ hasText: 'Uploaded “Corporate report” (version 1)' }).waitFor();
    const templates = await api<{ id: string; name: string; version: number }[]>('/api/v1/templates');
    const corporate = templates.find((t) => t.name === 'Corporate report');
    expect(corporate?.version).toBe(1);

    // Its styles are listed by type.
    await page.getByRole('heading', { name: /Corporate report/, level: 2 }).waitFor();
    const paragraphStyles = page.getByRole('list', { name: 'paragraph styles' });
    await paragraphStyles.getByText('Corp Body').waitFor();
    await page.getByText(/^Table styles \(\d+\)$/).click();
    await page.getByRole('list', { name: 'table styles' }).getByText('Corp Table').waitFor();

    // A new mapping: one searchable list per key, filled with the template's styles of the right type.
    await page.getByRole('button', { name: 'New mapping' }).click();
    await page.getByTestId('prefilled').waitFor();
    await page.getByLabel('Name', { exact: true }).last().fill('Corporate mapping');
    await page.getByLabel('Paragraph', { exact: true }).click();
    const paragraphOptions = await page.getByRole('listbox').getByRole('option').allInnerTexts();
    expect(paragraphOptions).toContain('Corp Body');
    expect(paragraphOptions).not.toContain('Corp Table'); // a table style is not offered for paragraphs
    await page.getByLabel('Paragraph', { exact: true }).press('Escape');
    await page.getByLabel('Table', { exact: true }).click();
    expect(await page.getByRole('listbox').getByRole('option').allInnerTexts()).toContain('Corp Table');
    await page.getByLabel('Table', { exact: true }).press('Escape');
    await choose(page, 'Heading 1', 'Heading 1');
    await choose(page, 'Paragraph', 'Corp Body');
    await choose(page, 'Table', 'Corp Table');
    await page.getByRole('button', { name: 'Save mapping' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved the mapping “Corporate mapping” (version 1).' }).waitFor();
    await world.screenshot(page, 'templates-mapping-created');

    // Edit it: the version goes up.
    await choose(page, 'Block quote', 'Corp Quote');
    await choose(page, 'Code block', 'Corp Code');
    await page.getByRole('button', { name: 'Save mapping' }).click();
    await page.getByRole('status').filter({ hasText: '(version 2).' }).waitFor();
    // The template's own mapping matched by style name (made on upload), and this one.
    const mappings = (
      await api<{ id: string; name: string; version: number; rules: Record<string, unknown> }[]>(
        `/api/v1/mappings?template_id=${String(corporate?.id)}`,
      )
    ).filter((m) => m.name === 'Corporate mapping');
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.version).toBe(2);
    expect(mappings[0]?.rules).toMatchObject({
      heading: { '1': 'heading 1' },
      paragraph: 'Corp Body',
      blockquote: 'Corp Quote',
      code_block: 'Corp Code',
      table: { style: 'Corp Table', header_row: true },
    });
    await world.screenshot(page, 'templates-mapping-edited');

    // Convert with it on the Convert page; the choice is remembered after a reload.
    await page.getByRole('link', { name: 'Convert' }).click();
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'Corporate report' });
    await page.getByLabel('Style mapping').selectOption(mappings[0]?.id ?? '');
    await page.getByLabel('Paste markdown').fill('# Styled\n\nBody text.\n\n> A quote\n');
    await page.getByLabel('File name').fill('styled');
    await page.getByRole('button', { name: 'Convert', exact: true }).click();
    await page.getByRole('listitem', { name: 'Pasted text (styled)' }).getByText('Done').waitFor();
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Save styled.docx' }).click(),
    ]);
    const bytes = new Uint8Array(readFileSync(await file.path()));
    const body = part(bytes, 'word/document.xml');
    expect(body).toContain('w:val="CorpBody"');
    expect(body).toContain('w:val="CorpQuote"');
    expect((await validateDocx(bytes)).ok).toBe(true);
    await page.reload();
    await page.getByRole('heading', { name: 'Convert markdown to Word' }).waitFor();
    expect(await page.getByLabel('Template', { exact: true }).inputValue()).toBe(corporate?.id);
    expect(await page.getByLabel('Style mapping').inputValue()).toBe(mappings[0]?.id);
    expect(pageErrors(page)).toEqual([]);
  });

  test('a mapping naming a style the template lacks is flagged; the built-in mapping is read-only', async () => {
    const { page } = await world.signedIn();
    const templates = await api<{ id: string; name: string }[]>('/api/v1/templates');
    const corporate = templates.find((t) => t.name === 'Corporate report');
    expect(corporate).toBeDefined();
    // A mapping made through the API that names a style Corporate report does not have.
    const made = await request(`${world.origin}/api/v1/mappings`, {
      dispatcher: world.agent,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-docwright-admin': world.server.adminToken },
      body: JSON.stringify({
        name: 'Legacy',
        template_id: corporate?.id,
        rules: { paragraph: 'Old Body', heading: { '1': 'heading 1' } },
      }),
    });
    expect(made.statusCode).toBe(201);
    await made.body.dump();

    await page.getByRole('link', { name: 'Templates & mappings' }).click();
    await page.getByRole('button', { name: 'Corporate report' }).click();
    await page.getByRole('button', { name: 'Edit mapping Legacy' }).click();
    const paragraph = page.getByLabel(/^Paragraph/);
    expect(await paragraph.getAttribute('aria-invalid')).toBe('true');
    await page.getByText('“Old Body” is not a paragraph style of this template.').waitFor();
    await page.getByText(/1 mapped style is not in this template/).waitFor();
    await world.screenshot(page, 'templates-missing-style');

    await page.getByRole('button', { name: 'Docwright Default' }).click();
    await page.getByRole('button', { name: 'View mapping Docwright Default' }).click();
    expect(await page.getByLabel('Heading 1', { exact: true }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Duplicate to edit' }).waitFor();
    expect(pageErrors(page)).toEqual([]);
  });

  test('a file that is not a Word template is refused in plain words and nothing is stored', async () => {
    const { page } = await world.signedIn();
    const before = (await api<unknown[]>('/api/v1/templates')).length;
    await page.getByRole('link', { name: 'Templates & mappings' }).click();
    await page.getByLabel('File (.docx or .dotx)').setInputFiles({
      name: 'notes.docx',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('this is not a zip file'),
    });
    await page.getByRole('button', { name: 'Upload template' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toMatch(/^This file is not a Word template \(\.docx or \.dotx\)\./);
    expect(text).not.toMatch(/[{}]/);
    await world.screenshot(page, 'templates-upload-refused');
    expect((await api<unknown[]>('/api/v1/templates')).length).toBe(before);
  });
});
