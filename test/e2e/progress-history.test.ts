// Issue 16 items 4–7 and 10 in a real Chromium against a real server: warnings grouped in plain words with their
// first line, progress with elapsed time and a Cancel that stops the server's worker, batch progress on every
// worker, the narrow layout (icon sidebar, stacked History) and History's provenance, search and filters.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call } from '../helpers/docwright-process.ts';
import { pageErrors, startWorld, type World, dropFiles } from './browser.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

/** Markdown that keeps a worker busy for seconds. */
const BIG = Array.from({ length: 60_000 }, (_, i) => `Paragraph ${i} with **bold**, _emphasis_ and \`code\`.\n`).join(
  '\n',
);

const README = [
  '# Project', // 1
  '', // 2
  '<div align="center">', // 3
  '  <img src="https://img.shields.io/badge/build-passing-green" alt="build">', // 4
  '  <span>Fast</span> <font color="red">and</font> <span>small</span>', // 5
  '</div>', // 6
  '', // 7
  'See ![diagram](https://example.com/diagram.png).', // 8
  '', // 9
  '<center>centered</center>', // 10
].join('\n');

describe('warnings (items 4, 5)', () => {
  test('are grouped by kind with a count, the first line and what to do; images say they became placeholders', async () => {
    const { page } = await world.signedIn();
    await dropFiles(page, [{ name: 'readme.md', text: README }]);
    const row = page.getByRole('listitem', { name: 'readme.md' });
    await row.getByText('Done').waitFor();
    await row.locator('summary').click();
    const html = row.locator('[data-code="unsupported_html"]');
    expect(await html.innerText()).toMatch(
      /^4 HTML snippets \(<span>, <font>, <center>; first on line 5\) were converted as plain text/,
    );
    const images = row.locator('[data-code="image_placeholder"]');
    expect(await images.innerText()).toMatch(
      /^2 images \(build, diagram; first on line 4\) are shown as placeholder text/,
    );
    await world.screenshot(page, 'warnings-grouped');
    await page.emulateMedia({ colorScheme: 'dark' });
    await world.screenshot(page, 'warnings-grouped-dark');
    expect(pageErrors(page)).toEqual([]);
  });
});

describe('progress and cancel (item 6)', () => {
  test('a long conversion shows its stage and elapsed time; Cancel stops the worker and nothing is recorded or charged', async () => {
    const services = world.server.app.services;
    const { page } = await world.signedIn();
    const now = new Date();
    const usage = services.store.usage(now);
    const records = services.store.listConversions(0, 1000).total;
    const replaced = services.convertPool.counters.replaced;
    await dropFiles(page, [{ name: 'big.md', text: BIG }]);
    const row = page.getByRole('listitem', { name: 'big.md' });
    await expect.poll(() => services.convertPool.load.running, { timeout: 20_000 }).toBe(1);
    await expect
      .poll(async () => row.getByTestId('job-stage').innerText(), { timeout: 10_000 })
      .toMatch(/^Converting and packaging the document… [1-9]\d* s$/);
    await world.screenshot(page, 'progress-converting');
    await row.getByRole('button', { name: 'Cancel big.md' }).click();
    await row.getByText('Cancelled', { exact: true }).waitFor();
    await expect.poll(() => services.convertPool.load.running, { timeout: 10_000 }).toBe(0);
    expect(services.convertPool.counters.replaced).toBe(replaced + 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(services.store.listConversions(0, 1000).total).toBe(records);
    expect(services.store.usage(now)).toBe(usage);
    await world.screenshot(page, 'progress-cancelled');
    expect(pageErrors(page)).toEqual([]);
  }, 90_000);

  test('a batch shows "n of m" and runs on as many workers as the server has', async () => {
    const services = world.server.app.services;
    const workers = services.convertPool.size;
    const { page } = await world.signedIn();
    const files = Array.from({ length: workers + 1 }, (_, i) => ({ name: `part-${i + 1}.md`, text: BIG }));
    await dropFiles(page, files);
    const progress = page.getByTestId('batch-progress');
    await expect
      .poll(async () => progress.innerText(), { timeout: 20_000 })
      .toMatch(new RegExp(`0 of ${files.length} finished`));
    // The app sends as many at once as the server has workers; these are large jobs, which the pool runs on workers
    // of their own, at most one fewer than the small conversions' workers (issue 17), so that many convert at once.
    expect(BIG.length).toBeGreaterThanOrEqual(100_000);
    await expect.poll(() => services.convertPool.load.running, { timeout: 20_000 }).toBe(Math.max(1, workers - 1));
    await world.screenshot(page, 'batch-progress');
    await page.getByRole('button', { name: 'Cancel all' }).click();
    for (const f of files)
      await page.getByRole('listitem', { name: f.name }).getByText('Cancelled', { exact: true }).waitFor();
    await expect.poll(() => services.convertPool.load.running, { timeout: 10_000 }).toBe(0);
    expect(pageErrors(page)).toEqual([]);
  }, 90_000);
});

describe('History (items 7, 10)', () => {
  test('shows where each conversion came from, filters by name, template and channel, tells same names apart', async () => {
    const created = await call(world.agent, `${world.origin}/api/settings/api-keys`, {
      method: 'POST',
      headers: { 'x-docwright-admin': world.server.adminToken },
      body: { name: 'ci-bot' },
    });
    const key = created.json().key as string;
    // Two sizes a tenth of a KB apart at least, however the built-in template's parts grow.
    const longer = `# Two, a longer one\n\n${Array.from({ length: 40 }, (_, k) => `Sentence ${String(k)} of a paragraph.`).join(' ')}\n`;
    for (const markdown of ['# One\n', longer]) {
      const res = await call(world.agent, `${world.origin}/api/v1/convert`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: {
          markdown,
          template_id: BUILTIN_TEMPLATE_ID,
          mapping_id: BUILTIN_MAPPING_ID,
          filename: 'weekly-status-report-for-the-whole-department',
          response_format: 'json',
        },
      });
      expect(res.status).toBe(200);
    }
    const { page } = await world.signedIn();
    await dropFiles(page, [{ name: 'from-the-app.md', text: '# App\n' }]);
    await page.getByRole('listitem', { name: 'from-the-app.md' }).getByText('Done').waitFor();
    await page.getByRole('link', { name: 'History' }).click();
    const rows = page.getByTestId('history-row');
    await rows.first().waitFor();
    const appRow = rows.filter({ hasText: 'from-the-app.docx' });
    // The built-in template and mapping share a name: said once.
    expect(await appRow.getByTestId('history-origin').innerText()).toMatch(/^App\s+Docwright Default$/);
    const apiRows = rows.filter({ hasText: 'weekly-status-report-for-the-whole-department.docx' });
    expect(await apiRows.count()).toBe(2);
    expect(await apiRows.first().getByTestId('history-origin').innerText()).toContain('API · key “ci-bot”');
    // Same name: told apart by the size (to a tenth of a KB) and the time to the second in the tooltip.
    const sizes = await apiRows.getByTestId('history-size').allInnerTexts();
    expect(sizes[0]).not.toBe(sizes[1]);
    expect(await apiRows.first().locator('td[data-label="Converted"]').getAttribute('title')).toMatch(
      /\d{1,2}:\d{2}:\d{2}/,
    );
    await world.screenshot(page, 'history-1280');

    await page.getByLabel('From', { exact: true }).selectOption({ label: 'API' });
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel('From', { exact: true }).selectOption({ label: 'Everywhere' });
    await page.getByLabel('Name', { exact: true }).fill('from-the');
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'Docwright Default' });
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(3);
    expect(pageErrors(page)).toEqual([]);
  });

  test('at 800×600 the sidebar collapses to icons and History stacks its rows (light and dark)', async () => {
    const { page } = await world.signedIn({ width: 800, height: 600 });
    await page.getByRole('link', { name: 'History' }).click();
    const rows = page.getByTestId('history-row');
    await rows.first().waitFor();
    const sidebar = await page.locator('header.sidebar').boundingBox();
    expect(sidebar?.width).toBeLessThan(80);
    // The file name gets the row's width, not a 41-pixel column.
    const name = await rows.first().locator('td[data-label="File"]').boundingBox();
    expect(name?.width).toBeGreaterThan(400);
    const line = await rows.first().locator('strong.name').boundingBox();
    expect(line?.height).toBeLessThan(40);
    await world.screenshot(page, 'history-800x600');
    await page.emulateMedia({ colorScheme: 'dark' });
    await world.screenshot(page, 'history-800x600-dark');
    await page.getByRole('link', { name: 'Convert' }).click();
    await world.screenshot(page, 'convert-800x600-dark');
    // No page scrolls sideways at this size.
    for (const name of ['Templates & mappings', 'Settings', 'History']) {
      await page.getByRole('link', { name }).click();
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await world.screenshot(page, `layout-800x600-${String(name.split(' ')[0]?.toLowerCase())}`);
    }
    expect(pageErrors(page)).toEqual([]);
  });
});
