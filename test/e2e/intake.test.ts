// Intake in a real Chromium against a real server (issue 16 items 1, 2, 8, 9, 11, 12, 13): nothing dropped silently,
// a new template converts at once, searchable style lists, errors in place, the quota said before the drop, the
// curl example, one .zip, the real port. Screenshots at 1280×800, 800×600 and in dark mode.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { unzipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { part, validateDocx } from '../helpers/docx.ts';
import { pageErrors, startWorld, type World } from './browser.ts';

const CORPUS = resolve(import.meta.dirname, '../../../shared/corpus/templates');
const APA = join(CORPUS, 'apaquarto.docx');
const SMALL = { width: 800, height: 600 };
// Asynchronous: the server answering curl runs in this process.
const run = promisify(execFile);
const LARGE = { width: 1280, height: 800 };

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await request(`${world.origin}${path}`, {
    dispatcher: world.agent,
    method: method as 'GET',
    headers: {
      'x-docwright-admin': world.server.adminToken,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  expect(res.statusCode, text).toBeLessThan(300);
  return (text ? JSON.parse(text) : undefined) as T;
}

async function uploadTemplate(file: string, name: string): Promise<{ id: string }> {
  const form = new FormData();
  form.append('name', name);
  form.append('file', new Blob([new Uint8Array(readFileSync(file))]), name);
  // Encoded by the platform, sent as bytes.
  const encoded = new Response(form);
  const res = await request(`${world.origin}/api/v1/templates`, {
    dispatcher: world.agent,
    method: 'POST',
    headers: {
      'x-docwright-admin': world.server.adminToken,
      'content-type': encoded.headers.get('content-type') ?? '',
    },
    body: Buffer.from(await encoded.arrayBuffer()),
  });
  expect(res.statusCode).toBe(201);
  return (await res.body.json()) as { id: string };
}

/** A DataTransfer holding files, made in the page (as a drag from the desktop gives one). */
async function transfer(page: Page, files: { name: string; text: string }[]) {
  return page.evaluateHandle((list) => {
    const data = new DataTransfer();
    for (const f of list) data.items.add(new File([f.text], f.name));
    return data;
  }, files);
}

let failures = 0;
afterEach(async (context) => {
  // A failed test leaves a picture of where it stopped.
  if (context.task.result?.state === 'fail' && lastPage)
    await world.screenshot(lastPage, `intake-failed-${++failures}`).catch(() => undefined);
});
let lastPage: Page | undefined;

async function shots(page: Page, name: string): Promise<void> {
  await world.screenshot(page, name);
}

describe('Intake: drops, auto-mapping, style lists', () => {
  test('item 1 + 12: a mixed drop keeps "2 files skipped"; drag-over counts files; a file converts again with another template', async () => {
    const { page } = await world.signedIn(LARGE);
    lastPage = page;
    const drop = page.getByTestId('drop-zone');
    const data = await transfer(page, [
      { name: 'notes.md', text: '# Notes\n\nBody text.\n' },
      { name: 'Q3 report.pdf', text: '%PDF-1.7' },
      { name: 'budget.xlsx', text: 'PK' },
    ]);
    await drop.dispatchEvent('dragenter', { dataTransfer: data });
    await drop.getByText('Release to convert what is markdown (.md, .markdown, .txt) among 3 files').waitFor();
    await shots(page, 'intake-drag-over-1280');
    await drop.dispatchEvent('drop', { dataTransfer: data });
    const row = page.getByRole('listitem', { name: 'notes.md' });
    await row.getByText('Done').waitFor();
    // Still there after the conversion finished.
    const skipped = page.getByTestId('skipped');
    expect(await skipped.innerText()).toContain('2 files skipped (not markdown): Q3 report.pdf, budget.xlsx');
    await shots(page, 'intake-mixed-drop-1280');

    // Convert the same file again with another template, without dropping it again.
    const apa = await uploadTemplate(APA, 'APA');
    await page.reload();
    await page.getByRole('heading', { name: 'Convert markdown to Word' }).waitFor();
    // (A reload forgets the session's rows: drop once more, then switch template.)
    await drop.dispatchEvent('drop', {
      dataTransfer: await transfer(page, [{ name: 'notes.md', text: '# Notes\n\nBody text.\n' }]),
    });
    await page.getByRole('listitem', { name: 'notes.md' }).getByText('Done').waitFor();
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'APA' });
    await page
      .getByRole('button', { name: 'Convert notes.md again with the chosen template and mapping' })
      .first()
      .click();
    await expect
      .poll(async () => page.getByRole('listitem', { name: 'notes.md' }).filter({ hasText: 'Done' }).count(), {
        timeout: 30_000,
      })
      .toBe(2);
    const page1 = await api<{ items: { template_id: string; filename: string }[] }>(
      'GET',
      '/api/v1/conversions?limit=5',
    );
    expect(page1.items[0]).toMatchObject({ filename: 'notes.docx', template_id: apa.id });
    await page.getByRole('button', { name: 'Clear' }).click();
    expect(await skipped.count()).toBe(0);
    expect(pageErrors(page)).toEqual([]);
  });

  test('item 2: an uploaded template converts at once; New mapping is pre-filled; Create mapping on Convert', async () => {
    const { page } = await world.signedIn(LARGE);
    lastPage = page;
    await page.getByRole('link', { name: 'Templates & mappings' }).click();
    await page.getByLabel('File (.docx or .dotx)').setInputFiles(APA);
    await page.getByLabel('Name', { exact: true }).fill('APA upload');
    await page.getByRole('button', { name: 'Upload template' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Its mapping “Matched by style name” matches the template’s styles by name' })
      .waitFor();
    const template = (await api<{ id: string; name: string }[]>('GET', '/api/v1/templates')).find(
      (t) => t.name === 'APA upload',
    );
    const mappings = await api<{ id: string; name: string; rules: Record<string, unknown> }[]>(
      'GET',
      `/api/v1/mappings?template_id=${String(template?.id)}`,
    );
    expect(mappings.map((m) => m.name)).toEqual(['Matched by style name']);
    await shots(page, 'intake-uploaded-1280');

    // "New mapping" starts from the same matches.
    await page.getByRole('button', { name: 'New mapping' }).click();
    await page.getByTestId('prefilled').waitFor();
    expect(await page.getByLabel('Heading 1', { exact: true }).inputValue()).toBe('Heading 1');
    expect(await page.getByLabel('Paragraph', { exact: true }).inputValue()).toBe('Body Text');
    expect(await page.getByLabel('Code block', { exact: true }).inputValue()).toBe('Source Code');
    expect(await page.getByLabel('Table', { exact: true }).inputValue()).toBe('Table');
    await page.getByRole('button', { name: 'Close' }).click();

    // Converts at once on the Convert page.
    await page.getByRole('link', { name: 'Convert' }).click();
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'APA upload' });
    expect(await page.getByLabel('Style mapping').inputValue()).toBe(mappings[0]?.id);
    await page.getByLabel('Paste markdown').fill('# Title\n\nBody.\n\n```\ncode\n```\n');
    await page.getByLabel('File name').fill('apa-at-once');
    await page.getByRole('button', { name: 'Convert', exact: true }).click();
    await page.getByRole('listitem', { name: 'Pasted text (apa-at-once)' }).getByText('Done').waitFor();
    const done = await api<{ items: { filename: string; warnings: string[]; conversion_id: string }[] }>(
      'GET',
      '/api/v1/conversions?limit=5',
    );
    const record = done.items.find((i) => i.filename === 'apa-at-once.docx');
    expect(record?.warnings.filter((w) => w.startsWith('missing_style'))).toEqual([]);
    const docx = await request(`${world.origin}/api/v1/conversions/${String(record?.conversion_id)}/download`, {
      dispatcher: world.agent,
      headers: { 'x-docwright-admin': world.server.adminToken },
    });
    const bytes = new Uint8Array(await docx.body.arrayBuffer());
    expect(part(bytes, 'word/document.xml')).toContain('w:val="SourceCode"');
    expect(part(bytes, 'word/document.xml')).toContain('w:val="BodyText"');

    // A template without a mapping: "Create mapping" where the hint was.
    await api('DELETE', `/api/v1/mappings/${String(mappings[0]?.id)}`);
    await page.reload();
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'APA upload' });
    await page.getByText('This template has no mapping yet.').waitFor();
    await shots(page, 'intake-create-mapping-1280');
    await page.getByRole('button', { name: 'Create mapping' }).click();
    await page.getByRole('status').filter({ hasText: 'Created the mapping “Matched by style name”' }).waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Created the mapping' }).innerText()).toContain(
      '24 of 26 elements matched to its styles',
    );
    const made = await api<{ id: string }[]>('GET', `/api/v1/mappings?template_id=${String(template?.id)}`);
    expect(made).toHaveLength(1);
    expect(await page.getByLabel('Style mapping').inputValue()).toBe(made[0]?.id);
    expect(await page.getByRole('button', { name: 'Convert', exact: true }).isEnabled()).toBe(true);
    expect(pageErrors(page)).toEqual([]);
  });

  test('item 11: style lists show Word’s names, common first, searchable; missing styles flagged in the list and on Convert', async () => {
    const { page } = await world.signedIn(LARGE);
    lastPage = page;
    const apa = (await api<{ id: string; name: string }[]>('GET', '/api/v1/templates')).find((t) => t.name === 'APA');
    await api('POST', '/api/v1/mappings', {
      name: 'Legacy',
      template_id: apa?.id,
      rules: { paragraph: 'Old Body', heading: { '1': 'heading 1' } },
    });
    await page.getByRole('link', { name: 'Templates & mappings' }).click();
    await page.getByRole('button', { name: 'APA', exact: true }).click();
    const legacy = page.getByRole('listitem').filter({ hasText: 'Legacy' });
    expect(await legacy.getByTestId('mapping-missing').innerText()).toBe('1 missing style');
    // How many of the elements it names a style for, beside every mapping (issue 32 item 6).
    expect(await legacy.getByTestId('mapping-matched').innerText()).toBe('2 of 26 matched');

    await page.getByRole('button', { name: 'New mapping' }).click();
    await page.getByTestId('prefilled').waitFor();
    const paragraph = page.getByLabel('Paragraph', { exact: true });
    await paragraph.click();
    const options = await page.getByRole('listbox').getByRole('option').allInnerTexts();
    expect(options[0]).toBe('Word’s default');
    // Common styles first, with Word's shown names (not "heading 1"), then the rest A–Z.
    expect(options.slice(1, 4)).toEqual(['Heading 1', 'Heading 2', 'Heading 3']);
    expect(options).not.toContain('heading 1');
    expect(options.indexOf('Body Text')).toBeLessThan(options.indexOf('Abstract'));
    await shots(page, 'intake-style-list-1280');
    await paragraph.fill('first');
    // Filtered by what was typed, wherever it occurs in the name.
    expect(await page.getByRole('listbox').getByRole('option').allInnerTexts()).toEqual([
      'First Paragraph',
      'AbstractFirstParagraph',
    ]);
    await paragraph.press('Enter');
    expect(await paragraph.inputValue()).toBe('First Paragraph');
    // Keyboard only: arrows and Enter, Escape closes without choosing.
    const bullet = page.getByLabel('Bulleted list', { exact: true });
    await bullet.focus();
    await bullet.press('ArrowDown');
    await bullet.press('Enter');
    await bullet.press('Escape');
    await page.getByLabel('Name', { exact: true }).last().fill('Searched');
    await page.getByRole('button', { name: 'Save mapping' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved the mapping “Searched” (version 1).' }).waitFor();
    const saved = (
      await api<{ name: string; rules: Record<string, unknown> }[]>(
        'GET',
        `/api/v1/mappings?template_id=${String(apa?.id)}`,
      )
    ).find((m) => m.name === 'Searched');
    expect(saved?.rules).toMatchObject({ paragraph: 'First Paragraph' });

    // On the Convert page, before any conversion.
    await page.getByRole('link', { name: 'Convert' }).click();
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'APA' });
    await page.getByLabel('Style mapping').selectOption({ label: 'Legacy' });
    expect(await page.getByTestId('convert-mapping-missing').innerText()).toMatch(
      /^1 style this mapping names is not in the template/,
    );
    await shots(page, 'intake-convert-missing-1280');
    expect(pageErrors(page)).toEqual([]);
  });
});

describe('Errors in place, quota, curl, saving, port', () => {
  test('item 8: a PDF as template is refused next to the field in plain words; the error clears on success', async () => {
    const { page } = await world.signedIn(SMALL);
    lastPage = page;
    await page.getByRole('link', { name: 'Templates & mappings' }).click();
    const field = page.getByLabel('File (.docx or .dotx)');
    await field.setInputFiles({
      name: 'Q3 report.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.7\n'),
    });
    const error = page.locator('#upload-error');
    expect(await error.innerText()).toBe('Q3 report.pdf: this file is not a Word template (.docx or .dotx).');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    // A PDF renamed .docx reaches the server: its answer, without jargon, also next to the field.
    await field.setInputFiles({
      name: 'renamed.docx',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('%PDF-1.7\n'),
    });
    await page.getByRole('button', { name: 'Upload template' }).click();
    await error.filter({ hasText: 'This file is not a Word template (.docx or .dotx).' }).waitFor();
    expect(await error.innerText()).not.toMatch(/request is not right|file:/);
    await shots(page, 'intake-template-refused-800');
    // Dropping a real template on the form, then uploading, clears the error.
    const data = await page.evaluateHandle(
      (bytes) => {
        const d = new DataTransfer();
        d.items.add(new File([new Uint8Array(bytes)], 'apa-dropped.docx'));
        return d;
      },
      [...readFileSync(APA)],
    );
    await page.getByTestId('template-drop').dispatchEvent('drop', { dataTransfer: data });
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('apa-dropped');
    await page.getByRole('button', { name: 'Upload template' }).click();
    await page.getByRole('status').filter({ hasText: 'Uploaded “apa-dropped”' }).waitFor();
    expect(await error.count()).toBe(0);
    expect(pageErrors(page)).toEqual([]);
  });

  test('item 9: the curl example shows the whole command, fails on errors, and works as copied', async () => {
    const { page } = await world.signedIn(SMALL);
    lastPage = page;
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Name', { exact: true }).fill('intake script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const pre = page.getByRole('dialog', { name: 'Your new key “intake script”' }).getByTestId('curl-example');
    await pre.waitFor();
    const curl = await pre.innerText();
    expect(curl).toContain('--fail-with-body');
    expect(curl).toContain('-w "HTTP %{http_code}\\n"');
    // Nothing hidden behind a horizontal scrollbar.
    expect(await pre.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    await shots(page, 'intake-curl-800');
    const dir = mkdtempSync(join(tmpdir(), 'dw-curl-'));
    try {
      const { stdout: out } = await run('sh', ['-c', curl], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(out).toContain('HTTP 200');
      expect((await validateDocx(new Uint8Array(readFileSync(join(dir, 'hello.docx'))))).ok).toBe(true);
      // An error answer fails the command (exit 22) and prints its status.
      const broken = curl.replace(/"mapping_id":"[^"]+"/, '"mapping_id":"00000000-0000-4000-8000-000000000000"');
      let code = 0;
      let printed = '';
      try {
        await run('sh', ['-c', broken], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      } catch (error) {
        code = (error as { code: number }).code;
        printed = String((error as { stdout: unknown }).stdout);
      }
      expect(code).toBe(22);
      expect(printed).toContain('HTTP 404');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(pageErrors(page)).toEqual([]);
  });

  test('item 13: "Save all" gives one .zip; the template is remembered when picked; the sign-in page shows the real port', async () => {
    const { page } = await world.signedIn(LARGE);
    lastPage = page;
    await page
      .getByTestId('file-input')
      .setInputFiles(
        ['one', 'two'].map((n) => ({ name: `${n}.md`, mimeType: 'text/markdown', buffer: Buffer.from(`# ${n}\n`) })),
      );
    for (const n of ['one', 'two'])
      await page
        .getByRole('listitem', { name: `${n}.md` })
        .getByText('Done')
        .waitFor();
    await page.getByRole('button', { name: 'Save one.docx' }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Save all (2) as .zip' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.zip$/);
    const entries = unzipSync(new Uint8Array(readFileSync(await download.path())));
    expect(Object.keys(entries).sort()).toEqual(['one.docx', 'two.docx']);
    for (const bytes of Object.values(entries)) expect((await validateDocx(bytes)).ok).toBe(true);

    // Picked, not converted: remembered after a reload.
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'APA' });
    await page.reload();
    await page.getByRole('heading', { name: 'Convert markdown to Word' }).waitFor();
    expect(
      await page
        .getByLabel('Template', { exact: true })
        .evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.text),
    ).toBe('APA');

    const context = await world.browser.newContext();
    const out = await context.newPage();
    await out.goto(`${world.origin}/`);
    await out.getByRole('heading', { name: 'Open Docwright from its link' }).waitFor();
    const help = await out.locator('pre').innerText();
    expect(help).toContain(`Open the app: ${world.origin}/auth/session?token=`);
    await context.close();
    expect(pageErrors(page)).toEqual([]);
  });

  test('item 8: the spent quota is said before the drop, once, in the user’s locale; converting is disabled; the sidebar stays true', async () => {
    const { page } = await world.signedIn(LARGE, { locale: 'en-GB' });
    const view = await api<{ usage: { conversions: number; resets_at: string } }>('GET', '/api/settings');
    // One conversion left: the page still allows it, the server then refuses the next one (spent elsewhere).
    await api('PATCH', '/api/settings', { plan: 'solo', monthly_quota: view.usage.conversions + 1 });
    await page.reload();
    await page.getByTestId('quota-left').filter({ hasText: '1 of' }).waitFor();
    await api('POST', '/api/v1/convert', {
      markdown: '# elsewhere',
      template_id: '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000001',
      mapping_id: '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000002',
      response_format: 'json',
    });
    await page.getByLabel('Paste markdown').fill('# Too late');
    await page.getByLabel('File name').fill('too-late');
    await page.getByRole('button', { name: 'Convert', exact: true }).click();
    const failed = page.getByRole('listitem', { name: 'Pasted text (too-late)' });
    await failed.getByText('Failed').waitFor();
    const when = new Date(view.usage.resets_at).toLocaleDateString('en-GB', {
      day: 'numeric',
      month: 'long',
      timeZone: 'UTC',
    });
    const quota = view.usage.conversions + 1;
    const expected = `This month’s ${quota} conversion${quota === 1 ? ' is' : 's are'} used; more on ${when}.`;
    expect(await failed.getByRole('alert').innerText()).toBe(expected);

    // Said before the drop, and converting is off.
    await page.reload();
    await page.getByTestId('quota-left').filter({ hasText: expected }).waitFor();
    expect(when).toMatch(/^1 [A-Z][a-z]+$/);
    expect(await page.getByRole('button', { name: 'Convert', exact: true }).isDisabled()).toBe(true);
    expect(await page.getByTestId('drop-zone').getByRole('button', { name: 'Choose files…' }).isDisabled()).toBe(true);
    await shots(page, 'intake-quota-spent-1280');

    // A quota lowered below what was used: never "3 of 1".
    await api('PATCH', '/api/settings', { monthly_quota: 1 });
    await page.reload();
    const usage = await page.getByTestId('sidebar-usage').innerText();
    expect(usage).toBe('Limit of 1 conversion reached this month');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shots(page, 'intake-quota-spent-dark');
    await page.setViewportSize(SMALL);
    await shots(page, 'intake-quota-spent-800-dark');
    expect(pageErrors(page)).toEqual([]);
    await api('PATCH', '/api/settings', { plan: 'team', monthly_quota: null });
  });

  test('screens at 800×600 and in dark mode: the style list and the skipped-files line', async () => {
    for (const [viewport, scheme, tag] of [
      [SMALL, 'light', '800'],
      [LARGE, 'dark', 'dark'],
      [SMALL, 'dark', '800-dark'],
    ] as const) {
      const { page } = await world.signedIn(viewport, { colorScheme: scheme });
      lastPage = page;
      await page.getByTestId('drop-zone').dispatchEvent('drop', {
        dataTransfer: await transfer(page, [
          { name: 'a.md', text: '# A\n' },
          // Not an image Docwright embeds (a .png would go with the markdown: docs/images.md).
          { name: 'logo.psd', text: 'x' },
        ]),
      });
      await page.getByRole('listitem', { name: 'a.md' }).getByText('Done').waitFor();
      await page.getByTestId('skipped').waitFor();
      await shots(page, `intake-mixed-drop-${tag}`);
      await page.getByRole('link', { name: 'Templates & mappings' }).click();
      await page.getByRole('button', { name: 'APA', exact: true }).click();
      await page.getByRole('button', { name: 'New mapping' }).click();
      await page.getByTestId('prefilled').waitFor();
      await page.getByLabel('Code block', { exact: true }).click();
      await page.getByRole('listbox').waitFor();
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await shots(page, `intake-style-list-${tag}`);
      expect(pageErrors(page)).toEqual([]);
    }
  });
});
