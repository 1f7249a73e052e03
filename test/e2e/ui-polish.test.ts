// The app's unpolished edges (issue items 5–9) in a real Chromium against a real server: History's table, the batch
// results' buttons, empty and binary files as the CLI treats them, the Settings form, and the edges (the used
// session link's page, the template file picker, the signed-out page, the narrow sidebar, the new-key dialog, the
// skip link).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Locator } from 'playwright-core';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call } from '../helpers/docwright-process.ts';
import { dropFiles, pageErrors, startWorld, type World } from './browser.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

const admin = (): Record<string, string> => ({ 'x-docwright-admin': world.server.adminToken });

/** Converts through the REST API as a script would (channel "api"). */
async function convertByApi(filename: string, markdown: string): Promise<{ warnings: string[] }> {
  const res = await call(world.agent, `${world.origin}/api/v1/convert`, {
    method: 'POST',
    headers: admin(),
    body: {
      markdown,
      template_id: BUILTIN_TEMPLATE_ID,
      mapping_id: BUILTIN_MAPPING_ID,
      filename,
      response_format: 'json',
    },
  });
  expect(res.status).toBe(200);
  return res.json() as { warnings: string[] };
}

/** The text of an element split into the lines the browser laid it out on (by each character's top). */
async function renderedLines(element: Locator): Promise<string[]> {
  return element.evaluate((el) => {
    const lines: { top: number; text: string }[] = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (let i = 0; i < text.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) continue;
        const last = lines.at(-1);
        if (last && Math.abs(last.top - rect.top) < 3) last.text += text[i] ?? '';
        else lines.push({ top: rect.top, text: text[i] ?? '' });
      }
    }
    return lines.map((l) => l.text.trim()).filter((l) => l !== '');
  });
}

async function background(element: Locator): Promise<string> {
  return element.evaluate((el) => getComputedStyle(el).backgroundColor);
}

async function centreY(element: Locator): Promise<number> {
  const box = await element.boundingBox();
  if (!box) throw new Error('not laid out');
  return box.y + box.height / 2;
}

const LONG = 'quarterly-report-for-the-board-of-directors-with-all-appendices-2026';

describe('item 5: History’s table', () => {
  test('names ellipsised with the full name on hover, one menu for the secondary actions, one size and time format, template shown once', async () => {
    await convertByApi(LONG, '# Short\n');
    await convertByApi(LONG, `# Long\n\n${'A longer paragraph. '.repeat(300)}\n`);
    const { page } = await world.signedIn({ width: 1280, height: 800 });
    page.setDefaultTimeout(5_000);
    await dropFiles(page, [{ name: 'report.md', text: '# Report\n' }]);
    await page.getByRole('listitem', { name: 'report.md' }).getByText('Done').waitFor();
    await page.getByRole('link', { name: 'History' }).click();
    const rows = page.getByTestId('history-row');
    await expect.poll(() => rows.count()).toBe(3);

    // The long name stays on one line, cut with an ellipsis, and the whole name is its tooltip.
    const longRow = rows.filter({ hasText: 'quarterly-report' }).first();
    const name = longRow.getByTitle(`${LONG}.docx`, { exact: true });
    expect(await name.evaluate((el) => getComputedStyle(el).textOverflow)).toBe('ellipsis');
    expect(await name.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(await renderedLines(page.getByTitle('report.docx', { exact: true }))).toEqual(['report.docx']);

    // One visible action (Save) and a menu for the rest; Delete is not out in the open.
    expect(await longRow.getByRole('button', { name: /^Delete / }).count()).toBe(0);
    const visible = await longRow
      .getByRole('button')
      .evaluateAll((buttons) =>
        buttons.filter((b) => (b as HTMLElement).offsetParent !== null).map((b) => b.getAttribute('aria-label')),
      );
    expect(visible).toEqual([`Save ${LONG}.docx`, `More actions for ${LONG}.docx`]);
    const more = longRow.getByRole('button', { name: `More actions for ${LONG}.docx` });
    expect(await more.getAttribute('aria-haspopup')).toBe('menu');
    await more.click();
    const menu = page.getByRole('menu', { name: `Actions for ${LONG}.docx` });
    expect(await menu.getByRole('menuitem').allInnerTexts()).toEqual(['Preview', 'Delete…']);
    await world.screenshot(page, 'polish-history-menu');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    // With the keyboard: Enter opens it on its first item, arrows move, Escape closes it back to its button.
    await more.focus();
    await page.keyboard.press('Enter');
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    await expect.poll(focused).toBe('Preview');
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe('Delete…');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      `More actions for ${LONG}.docx`,
    );

    // One size format and one time format for every row (same names included); the exact time is the tooltip.
    for (const size of await rows.getByTestId('history-size').allInnerTexts())
      expect(size).toMatch(/^\d+(\.\d)? (B|KB|MB)$/);
    const sizes = await rows.filter({ hasText: 'quarterly-report' }).getByTestId('history-size').allInnerTexts();
    expect(sizes[0]).not.toBe(sizes[1]);
    const times = rows.locator('td[data-label="Converted"]');
    for (const time of await times.allInnerTexts()) expect(time).not.toMatch(/\d:\d\d:\d\d/);
    expect(await times.first().getAttribute('title')).toMatch(/\d:\d\d:\d\d/);

    // The built-in template and mapping share a name: said once.
    const origin = await rows.filter({ hasText: 'report.docx' }).getByTestId('history-origin').innerText();
    expect(origin.replace(/\s+/g, ' ').trim()).toBe('App Docwright Default');

    // Delete from the menu still asks first.
    await more.click();
    await menu.getByRole('menuitem', { name: 'Delete…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    expect(pageErrors(page)).toEqual([]);
  });
});

describe('item 6: batch results', () => {
  test('"Save all" is the primary action, each row’s Save secondary, and the heading lines up with its buttons', async () => {
    const { page } = await world.signedIn({ width: 1280, height: 800 });
    page.setDefaultTimeout(10_000);
    const files = ['a', 'b', 'c'].map((n) => ({ name: `batch-${n}.md`, text: `# ${n}\n` }));
    await dropFiles(page, files);
    for (const f of files) await page.getByRole('listitem', { name: f.name }).getByText('Done').waitFor();
    const saveAll = page.getByRole('button', { name: 'Save all (3) as .zip' });
    const rowSave = page.getByRole('button', { name: 'Save batch-a.docx' });
    const primary = await background(page.getByRole('button', { name: 'Convert', exact: true }));
    expect(await background(saveAll)).toBe(primary);
    expect(await background(rowSave)).not.toBe(primary);
    const heading = page.getByRole('heading', { name: 'Results', level: 2 });
    expect(Math.abs((await centreY(heading)) - (await centreY(saveAll)))).toBeLessThanOrEqual(2);
    await world.screenshot(page, 'polish-batch-results');
    expect(pageErrors(page)).toEqual([]);
  });
});

describe('item 7: edge cases as the CLI treats them', () => {
  test('an empty .md converts to an empty document with a warning; binary data named .md is converted with a warning', async () => {
    const { page } = await world.signedIn({ width: 1280, height: 800 });
    page.setDefaultTimeout(10_000);
    const garbage = Uint8Array.from({ length: 600 }, (_, i) => (i * 137 + 11) % 256);
    await dropFiles(page, [
      { name: 'empty.md', text: '' },
      { name: 'garbage.md', bytes: garbage },
    ]);
    const empty = page.getByRole('listitem', { name: 'empty.md' });
    await empty.getByText('Done').waitFor();
    expect(await empty.getByRole('button', { name: /again/ }).count()).toBe(1); // "Convert again", not "Try again"
    expect(await empty.getByText('Try again').count()).toBe(0);
    await empty.locator('summary').click();
    expect(await empty.locator('[data-code="empty_document"]').innerText()).toMatch(/empty/i);

    const binary = page.getByRole('listitem', { name: 'garbage.md' });
    await binary.getByText('Done').waitFor();
    await binary.locator('summary').click();
    expect(await binary.locator('[data-code="not_text"]').innerText()).toMatch(/not text/i);
    await world.screenshot(page, 'polish-edge-cases');

    // The API says the same of the same bytes, decoded as every surface decodes them.
    const answer = await convertByApi('garbage', Buffer.from(garbage).toString('utf8'));
    expect(answer.warnings.some((w) => w.startsWith('not_text:'))).toBe(true);
    expect(pageErrors(page)).toEqual([]);
  });
});

describe('item 8: Settings', () => {
  test('aligned inputs, no stale "saved" beside a refused value, usage over the cap said so, the fingerprint wraps between pairs', async () => {
    const { page } = await world.signedIn({ width: 1280, height: 800 });
    page.setDefaultTimeout(5_000);
    await page.getByRole('link', { name: 'Settings' }).click();

    // The form's controls share one height, and those side by side share one top.
    const boxes = [];
    for (const label of [
      'Plan',
      'Monthly cap',
      'Keep converted documents for (days)',
      'Folder AI agents may save into',
    ])
      boxes.push(await page.locator('form').getByLabel(label).first().boundingBox());
    const heights = boxes.map((b) => Math.round(b?.height ?? 0));
    expect(Math.max(...heights) - Math.min(...heights)).toBeLessThanOrEqual(1);
    // Controls on the same visual row (tops within 40 px) share their top exactly.
    const tops = boxes.map((b) => b?.y ?? 0);
    for (const a of tops)
      for (const b of tops) if (Math.abs(a - b) < 40) expect(Math.abs(a - b)).toBeLessThanOrEqual(1);
    await world.screenshot(page, 'polish-settings-form');

    // Saved, then a value the browser refuses: the old "Settings saved." goes.
    await page.getByRole('button', { name: 'Save settings' }).click();
    const saved = page.getByRole('status').filter({ hasText: 'Settings saved.' });
    await saved.waitFor();
    await page.getByLabel('Keep converted documents for (days)').fill('-5');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await saved.waitFor({ state: 'hidden' });

    // A cap lowered below this month's conversions: over it, in words.
    await convertByApi('first', '# One\n');
    await convertByApi('second', '# Two\n');
    const reset = await call(world.agent, `${world.origin}/api/settings`, {
      method: 'PATCH',
      headers: admin(),
      body: { monthly_quota: 1 },
    });
    expect(reset.status).toBe(200);
    await page.reload();
    const usage = await page.getByTestId('usage').innerText();
    expect(usage).not.toMatch(/of 1 conversions used/);
    expect(usage).toMatch(/^\d+ conversions this month, \d+ over the limit of 1/);
    await world.screenshot(page, 'polish-settings-over-quota');
    await call(world.agent, `${world.origin}/api/settings`, {
      method: 'PATCH',
      headers: admin(),
      body: { monthly_quota: null },
    });

    // The fingerprint breaks only after a pair's colon, at 800×600 where it must wrap.
    await page.setViewportSize({ width: 800, height: 600 });
    const lines = await renderedLines(page.getByTestId('fingerprint'));
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.slice(0, -1)) expect(line).toMatch(/^([0-9A-F]{2}:)+$/);
    expect(lines.at(-1)).toMatch(/^([0-9A-F]{2}:)*[0-9A-F]{2}$/);
    expect(pageErrors(page)).toEqual([]);
  });
});

describe('item 9: unpolished edges', () => {
  test('a used session link gets a styled page that says it once, without backticks', async () => {
    const context = await world.browser.newContext();
    const page = await context.newPage();
    const link = world.server.newUiLink();
    await page.goto(link);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    const response = await page.goto(link);
    expect(response?.status()).toBe(401);
    const text = await page.locator('body').innerText();
    expect(text).not.toContain('`');
    expect(text.match(/once/g)?.length).toBe(1);
    expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toMatch(/system-ui/);
    await world.screenshot(page, 'polish-used-link');
    await context.close();
  });

  test('the Templates page picks its file with the app’s own button, not the browser’s control', async () => {
    const { page } = await world.signedIn({ width: 1280, height: 800 }, { colorScheme: 'dark' });
    page.setDefaultTimeout(5_000);
    await page.getByRole('link', { name: 'Templates & mappings' }).click();
    const input = page.getByLabel('File (.docx or .dotx)');
    expect((await input.boundingBox())?.width ?? 0).toBeLessThanOrEqual(1);
    const choose = page.getByRole('button', { name: 'Choose file…' });
    // Drawn like the app's other buttons: the card's surface, not the browser's grey.
    expect(
      await choose.evaluate(
        (el) =>
          getComputedStyle(el).backgroundColor ===
          getComputedStyle(el.closest('.card') ?? document.body).backgroundColor,
      ),
    ).toBe(true);
    await page.getByText('No file chosen').waitFor();
    await input.setInputFiles({
      name: 'Letterhead.docx',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('x'),
    });
    await page.getByText('Letterhead.docx', { exact: true }).waitFor();
    await world.screenshot(page, 'polish-template-picker-dark');
  });

  test('the signed-out page shows no navigation', async () => {
    const context = await world.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${world.origin}/`);
    await page.getByRole('heading', { name: 'Open Docwright from its link' }).waitFor();
    expect(await page.getByRole('navigation').count()).toBe(0);
    expect(await page.locator('[aria-current="page"]').count()).toBe(0);
    await context.close();
  });

  test('at 800×600 the sidebar keeps its labels', async () => {
    const { page } = await world.signedIn({ width: 800, height: 600 });
    for (const name of ['Convert', 'Templates & mappings', 'History', 'Settings']) {
      const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name });
      expect(await link.getAttribute('title')).toBe(name);
      const label = link.locator('.label');
      expect((await label.boundingBox())?.width ?? 0, name).toBeGreaterThan(20);
    }
    await world.screenshot(page, 'polish-sidebar-800');
  });

  test('the new-key dialog has room and its curl never breaks an id', async () => {
    const { page } = await world.signedIn({ width: 800, height: 600 });
    page.setDefaultTimeout(5_000);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Name', { exact: true }).fill('room');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new key “room”' });
    await dialog.waitFor();
    expect((await dialog.boundingBox())?.width ?? 0).toBeGreaterThanOrEqual(600);
    const key = await dialog.getByTestId('new-key').innerText();
    const lines = await renderedLines(dialog.getByTestId('curl-example'));
    for (const id of [key, BUILTIN_TEMPLATE_ID, BUILTIN_MAPPING_ID])
      expect(
        lines.some((line) => line.includes(id)),
        id,
      ).toBe(true);
    await world.screenshot(page, 'polish-new-key-800');
    await dialog.getByRole('button', { name: 'Done' }).click();
  });

  test('the skip link moves the focus to the content and leaves the URL (and the page) alone', async () => {
    const { page } = await world.signedIn({ width: 1280, height: 800 });
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Skip to content' }).press('Enter');
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => location.hash)).toBe('#/history');
    expect(await page.getByRole('heading', { name: 'History', level: 1 }).count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });
});

describe('the sidebar and History at 1280×800 (review of the screenshots)', () => {
  test('History gives the file name the room: most of a long name shows, and its column is the widest', async () => {
    const name = 'quarterly-report-for-the-board-of-directors-2026';
    await convertByApi(name, '# Report\n\n- one\n- two\n');
    const { page } = await world.signedIn({ width: 1280, height: 800 });
    await page.getByRole('link', { name: 'History' }).click();
    const cell = page.getByTitle(`${name}.docx`, { exact: true }).first();
    await cell.waitFor();
    // How many of the name's characters fit in its box (the rest is behind the ellipsis).
    const shown = await cell.evaluate((el) => (el.clientWidth / el.scrollWidth) * (el.textContent ?? '').length);
    expect(shown).toBeGreaterThanOrEqual(40);
    const widths = await page
      .getByRole('table', { name: 'Past conversions' })
      .locator('thead th')
      .evaluateAll((cells) => cells.map((c) => c.getBoundingClientRect().width));
    expect(Math.max(...widths)).toBe(widths[0]);
  });

  test('the plan stays inside the window on a page taller than the window', async () => {
    const { page } = await world.signedIn({ width: 1280, height: 800 });
    await dropFiles(
      page,
      Array.from({ length: 6 }, (_, i) => ({ name: `tall-${i}.md`, text: `# Part ${i}\n\nText.\n` })),
    );
    for (let i = 0; i < 6; i++)
      await page
        .getByRole('listitem', { name: `tall-${i}.md` })
        .getByText('Done')
        .waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollHeight > innerHeight)).toBe(true);
    const plan = page.getByTestId('sidebar-usage');
    for (const scroll of [0, 10_000]) {
      await page.evaluate((y) => scrollTo(0, y), scroll);
      const box = await plan.boundingBox();
      expect(box, `scrolled to ${scroll}`).not.toBeNull();
      expect(box?.y ?? -1).toBeGreaterThanOrEqual(0);
      expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(800);
    }
    await world.screenshot(page, 'polish-sidebar-plan-1280');
  });

  test('signed out and server down, the sidebar shows no plan (as it shows no navigation)', async () => {
    const { page, context } = await world.signedIn({ width: 1280, height: 800 });
    await page.getByTestId('sidebar-usage').waitFor();
    await context.setOffline(true);
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'Docwright’s server is not reachable', level: 1 }).waitFor();
    expect(await page.getByText('Plan:').count()).toBe(0);
    expect(await page.getByTestId('sidebar-usage').count()).toBe(0);
    await context.setOffline(false);
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByTestId('sidebar-usage').waitFor();
    // A session the server does not know (as after a restart): the signed-out page.
    await page.evaluate(() => sessionStorage.setItem('docwright.session', 'forgotten'));
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Open Docwright from its link', level: 1 }).waitFor();
    expect(await page.getByText('Plan:').count()).toBe(0);
    expect(await page.getByTestId('sidebar-usage').count()).toBe(0);
  });
});
