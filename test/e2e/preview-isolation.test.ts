// A document's style ids and font names become CSS in the preview (docx-preview escapes only spaces and dots in
// class names and writes font names as they are): a style id `A{}body{display:none}.b` or a font name
// `x;}body{display:none}.y{` hid the whole app. In a real Chromium: the preview renders in a shadow root, so even a
// document that carries them as is leaves the app visible; and an uploaded template carrying them is stored cleaned.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ConversionStats } from '../../server/convert/index.ts';
import { defaultTemplate } from '../../server/convert/index.ts';
import { EVIL_FONT, EVIL_STYLE_ID, hostileTemplate, partText } from '../helpers/hostile-template.ts';
import { pageErrors, startWorld, type World } from './browser.ts';

const BUILTIN_TEMPLATE = '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000001';
const BUILTIN_MAPPING = '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000002';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

async function api(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const res = await request(`${world.origin}${path}`, {
    dispatcher: world.agent,
    method,
    headers: { 'content-type': 'application/json', 'x-docwright-admin': world.server.adminToken },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  expect(res.statusCode, text).toBeLessThan(300);
  return JSON.parse(text) as unknown;
}

/** The app's own chrome is on screen: the body is displayed and the page heading visible. */
async function expectAppVisible(page: Page): Promise<void> {
  expect(await page.evaluate(() => getComputedStyle(document.body).display)).not.toBe('none');
  expect(await page.getByRole('heading', { level: 1 }).first().isVisible()).toBe(true);
  expect(await page.getByRole('link', { name: 'History' }).isVisible()).toBe(true);
}

async function preview(page: Page, filename: string, text: string): Promise<void> {
  await page.getByRole('link', { name: 'History' }).click();
  // History keeps Preview in each row's menu (the row's one open action is Save).
  await page.getByRole('button', { name: `More actions for ${filename}` }).click();
  await page
    .getByRole('menu', { name: `Actions for ${filename}` })
    .getByRole('menuitem', { name: 'Preview' })
    .click();
  await page.getByTestId('preview-body').getByText(text).first().waitFor();
}

describe('the preview of a document with CSS-breaking style ids and font names', () => {
  test('a .docx that carries them as is (however it was made) renders isolated: the app stays visible', async () => {
    const made = (await api('POST', '/api/v1/convert', {
      markdown: '# x\n',
      template_id: BUILTIN_TEMPLATE,
      mapping_id: BUILTIN_MAPPING,
      response_format: 'json',
    })) as { stats: ConversionStats };
    // The hostile template is itself a complete .docx: stored as an output, untouched, it reaches the preview as is.
    const docx = hostileTemplate(defaultTemplate());
    expect(partText(docx, 'word/styles.xml')).toContain(EVIL_STYLE_ID);
    expect(partText(docx, 'word/fontTable.xml')).toContain(EVIL_FONT);
    await world.server.store.addConversion(
      {
        conversion_id: randomUUID(),
        status: 'completed',
        filename: 'carries-css.docx',
        warnings: [],
        stats: made.stats,
        created_at: new Date().toISOString(),
        template_id: BUILTIN_TEMPLATE,
        mapping_id: BUILTIN_MAPPING,
        channel: 'cli',
      },
      docx,
    );
    const { page } = await world.signedIn();
    await preview(page, 'carries-css.docx', 'styled');
    await world.screenshot(page, 'preview-isolated');
    await expectAppVisible(page);
    // The document's CSS is in the shadow root, not in the page.
    const pageCss = await page.evaluate(() =>
      [...document.querySelectorAll('style')].map((s) => s.textContent ?? '').join('\n'),
    );
    expect(pageCss).not.toContain('display:none}.b');
    expect(pageCss).not.toContain('body{display:none}.y');
    await page.keyboard.press('Escape');
    await expectAppVisible(page);
    expect(pageErrors(page)).toEqual([]);
  });

  test('an uploaded template that carries them is stored cleaned (the Templates page says so) and its outputs preview normally', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(hostileTemplate(defaultTemplate()))]), 'hostile.docx');
    form.append('name', 'Hostile');
    const res = await request(`${world.origin}/api/v1/templates`, {
      dispatcher: world.agent,
      method: 'POST',
      headers: { 'x-docwright-admin': world.server.adminToken },
      body: form,
    });
    const template = (await res.body.json()) as { id: string; warnings: string[] };
    expect(res.statusCode).toBe(201);
    expect(template.warnings.join('\n')).toContain('template_style_renamed');
    const mapping = (await api('POST', '/api/v1/mappings', {
      name: 'Hostile mapping',
      template_id: template.id,
      rules: { paragraph: 'Evil' },
    })) as { id: string };
    await api('POST', '/api/v1/convert', {
      markdown: 'Body text in the evil style.\n',
      template_id: template.id,
      mapping_id: mapping.id,
      filename: 'from-hostile',
      response_format: 'json',
    });

    const { page } = await world.signedIn();
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('row').filter({ hasText: 'Hostile' }).getByTestId('template-cleaned').waitFor();
    await preview(page, 'from-hostile.docx', 'Body text in the evil style.');
    await expectAppVisible(page);
    // The renamed style is applied: the paragraph carries its (now plain) class.
    const classes = await page
      .getByTestId('preview-body')
      .locator('p', { hasText: 'Body text in the evil style.' })
      .getAttribute('class');
    expect(classes ?? '').toMatch(/a__body_display_none__b/i);
    expect(pageErrors(page)).toEqual([]);
  });
});
