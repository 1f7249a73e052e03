// Issue 15's proof in one real document, in a real Chromium against a real server: a markdown file dropped with its
// image, asking for a title block, a table of contents, an internal link and right-to-left text, previews with all of
// them in place (the title in its style, the TOC's entries linking to the headings, the picture, Arabic laid out right
// to left), and the downloaded document carries them.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { part } from '../helpers/docx.ts';
import { pageErrors, startWorld, type World, dropFiles } from './browser.ts';

const IMAGES = resolve(import.meta.dirname, '../fixtures/images/doc/img');
let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world.close();
});

const MARKDOWN = [
  '---',
  'title: Field report',
  'author: [Amira Haddad, Jon Berg]',
  '---',
  '',
  '[TOC]',
  '',
  '# Summary',
  '',
  'See the [Arabic section](#ملخص-بالعربية) and the banner below.',
  '',
  '![A blue banner](wide.png "The banner")',
  '',
  '# ملخص بالعربية',
  '',
  'هذا نص عربي يكتب من اليمين إلى اليسار، مع كلمة Docwright ورقم 3.2 في داخله.',
  '',
].join('\n');

describe('a writer’s document in the preview', () => {
  test('title block, table of contents, internal link, image and right-to-left text all show', async () => {
    const { page } = await world.signedIn();
    await dropFiles(page, [
      { name: 'report.md', type: 'text/markdown', bytes: Buffer.from(MARKDOWN) },
      { name: 'wide.png', type: 'image/png', bytes: readFileSync(resolve(IMAGES, 'wide.png')) },
    ]);
    const row = page.getByRole('listitem', { name: 'report.md' });
    await row.getByText('Done').waitFor();
    expect(await row.innerText()).toContain('1 image');

    await page.getByRole('button', { name: 'Preview report.docx' }).click();
    const preview = page.getByTestId('preview-body');
    await preview.getByText('Field report').first().waitFor();
    await page.getByText('Rendering the document…').waitFor({ state: 'detached' });

    // The title block: the title and each author in their own paragraphs.
    await preview.getByText('Amira Haddad').first().waitFor();
    await preview.getByText('Jon Berg').first().waitFor();
    // The TOC links to both headings' bookmarks, and the text's link to the Arabic one.
    const anchors = await preview
      .locator('a[href^="#"]')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    expect(anchors.filter((href) => href === '#summary').length).toBeGreaterThanOrEqual(1);
    const arabicAnchor = anchors.find((href) => href !== '#summary');
    expect(arabicAnchor).toBeDefined();
    expect(anchors.filter((href) => href === arabicAnchor).length).toBe(2);
    // The picture is there, loaded, at the text width with its 2 : 1 aspect kept.
    const image = preview.locator('img').first();
    await expect.poll(() => image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1600);
    const box = await image.boundingBox();
    expect((box?.width ?? 0) / (box?.height ?? 1)).toBeCloseTo(2, 1);
    // Arabic is laid out right to left.
    const arabic = preview.locator('p', { hasText: 'هذا نص عربي' }).first();
    expect(await arabic.evaluate((p) => getComputedStyle(p).direction)).toBe('rtl');
    await world.screenshot(page, 'writers-preview');
    expect(pageErrors(page)).toEqual([]);

    // The document itself carries them.
    await page.keyboard.press('Escape');
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Save report.docx', exact: true }).click(),
    ]);
    const xml = part(new Uint8Array(readFileSync(await file.path())), 'word/document.xml');
    expect(xml).toContain('w:val="Title"');
    expect(xml).toContain('TOC \\o');
    expect(xml).toContain('<w:bidi/>');
    expect(xml).toContain('<pic:pic');
  });

  test('equations show in the preview, x_i^2 and an accent included (docx-preview drops what it cannot name)', async () => {
    const { page } = await world.signedIn();
    const markdown = 'The mean $\\bar{x}_i^2 + \\hat{y}$ and\n\n$$\\sum_{k=1}^{n} a_k^2$$\n';
    await dropFiles(page, [{ name: 'maths.md', type: 'text/markdown', bytes: Buffer.from(markdown) }]);
    await page.getByRole('listitem', { name: 'maths.md' }).getByText('Done').waitFor();
    await page.getByRole('button', { name: 'Preview maths.docx' }).click();
    const preview = page.getByTestId('preview-body');
    await preview.getByText('The mean').first().waitFor();
    await page.getByText('Rendering the document…').waitFor({ state: 'detached' });
    const formulas = await preview.locator('math').evaluateAll((maths) => maths.map((m) => m.textContent ?? ''));
    expect(formulas).toHaveLength(2);
    // Every letter and number of both formulas is drawn: the subscript i and the square of x_i^2, the accents.
    for (const c of ['x', 'i', '2', 'y']) expect(formulas[0]).toContain(c);
    for (const c of ['k', '1', 'n', 'a', '2']) expect(formulas[1]).toContain(c);
    await world.screenshot(page, 'writers-preview-math');
    expect(pageErrors(page)).toEqual([]);
  });
});
