// The preview of a document with a table of contents and internal links (issue 15), in a real Chromium against a
// real server: the TOC's entries and the `#slug` links are links to the headings' bookmarks, and following one scrolls
// the preview to its heading, leaving the app where it is (its router reads the URL's hash).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { pageErrors, startWorld, type World, dropFiles } from './browser.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world.close();
});

const filler = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1} of text that pushes the next part down.`);
const GUIDE = [
  '---',
  'toc: true',
  '---',
  '',
  '# User guide',
  '',
  'Jump to the [last part](#last-part) or to [nowhere](#nowhere).',
  '',
  '## First part',
  '',
  ...filler.flatMap((line) => [line, '']),
  '## Last part',
  '',
  'The end.',
  '',
  // Text after the last part, so the preview can scroll its heading to the top.
  ...filler.flatMap((line) => [line, '']),
].join('\n');

describe('preview of a document with a TOC and internal links', () => {
  test('TOC entries and #links point at the headings; following one scrolls the preview there', async () => {
    const { page } = await world.signedIn();
    await dropFiles(page, [{ name: 'guide.md', text: GUIDE }]);
    const row = page.getByRole('listitem', { name: 'guide.md' });
    await row.getByText('Done').waitFor();
    // The broken link is reported with the conversion, in words.
    await row.getByText('1 warning').first().click();
    await row.getByText(/#nowhere.*no heading or anchor has that name/).waitFor();

    await page.getByRole('button', { name: 'Preview guide.docx' }).click();
    const preview = page.getByTestId('preview-body');
    await preview.getByText('The end.').waitFor();
    await page
      .getByTestId('preview-note')
      .getByText(/\(\d+ pages?\)/)
      .waitFor();
    // The TOC lists the three headings as links to their bookmarks; the text's link goes to the last part too.
    for (const anchor of ['user_guide', 'first_part', 'last_part'])
      expect(await preview.locator(`a[href="#${anchor}"]`).count(), anchor).toBeGreaterThanOrEqual(1);
    expect(await preview.locator('a[href="#last_part"]').count()).toBe(2);
    expect(await preview.locator('span[id="last_part"]').count()).toBe(1);
    await world.screenshot(page, 'links-toc-preview');

    const hash = await page.evaluate(() => location.hash);
    const target = preview.locator('span[id="last_part"]');
    // In view: inside the dialog's box, in its upper half (the preview scrolls the heading to the top).
    const inView = async () => {
      const box = await target.boundingBox();
      const dialog = await page.getByRole('dialog').boundingBox();
      return box !== null && dialog !== null && box.y >= dialog.y && box.y < dialog.y + dialog.height / 2;
    };
    expect(await inView()).toBe(false);
    await preview.getByRole('link', { name: 'last part', exact: true }).click();
    await expect.poll(inView).toBe(true);
    // The app stays on its page with the dialog open.
    expect(await page.evaluate(() => location.hash)).toBe(hash);
    expect(await page.getByRole('dialog').count()).toBe(1);
    await world.screenshot(page, 'links-toc-followed');
    expect(pageErrors(page)).toEqual([]);
  });
});
