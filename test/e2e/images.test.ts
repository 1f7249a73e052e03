// Issue 15 item 3 in a real Chromium against a real server: a markdown file dropped with its images, or its folder
// chosen, converts with the pictures embedded (a multipart request), and the preview shows them.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { part } from '../helpers/docx.ts';
import { pageErrors, startWorld, type World, dropFiles } from './browser.ts';

const DOC = resolve(import.meta.dirname, '../fixtures/images/doc');
let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world.close();
});

const fileOf = (path: string, name: string, type: string) => ({
  name,
  type,
  bytes: readFileSync(resolve(DOC, path)),
});

const MARKDOWN =
  '# Report with a picture\n\n![A blue banner](wide.png "The banner")\n\nA chip: ![An orange chip](small.png)\n';

describe('images in the Convert page', () => {
  test('a markdown file dropped with its images embeds them, and the preview shows them fitted to the page', async () => {
    const { page } = await world.signedIn();
    await dropFiles(page, [
      { name: 'pictures.md', text: MARKDOWN },
      fileOf('img/wide.png', 'wide.png', 'image/png'),
      fileOf('img/small.png', 'small.png', 'image/png'),
    ]);
    const row = page.getByRole('listitem', { name: 'pictures.md' });
    await row.getByText('Done').waitFor();
    expect(await row.innerText()).toContain('2 images');
    // Nothing was skipped: the images went with the markdown.
    expect(await page.getByText('wide.png').count()).toBe(0);
    await page.getByRole('button', { name: 'Preview pictures.docx' }).click();
    const preview = page.getByTestId('preview-body');
    await preview.getByText('Report with a picture').waitFor();
    const images = preview.locator('img');
    await expect.poll(() => images.count()).toBe(2);
    const sizes = await images.evaluateAll((list) =>
      list.map((img) => {
        const image = img as HTMLImageElement;
        return {
          loaded: image.complete && image.naturalWidth > 0,
          natural: image.naturalWidth,
          width: image.getBoundingClientRect().width,
          height: image.getBoundingClientRect().height,
        };
      }),
    );
    expect(sizes.every((s) => s.loaded)).toBe(true);
    const [banner, chip] = sizes;
    // The banner (1600 × 800) is shown at the text width, its aspect ratio kept; the chip at its own 2 : 1.
    expect(banner?.natural).toBe(1600);
    expect((banner?.width ?? 0) / (banner?.height ?? 1)).toBeCloseTo(2, 1);
    expect((chip?.width ?? 0) / (chip?.height ?? 1)).toBeCloseTo(2, 1);
    expect(banner?.width ?? 0).toBeGreaterThan((chip?.width ?? 0) * 3);
    await page.getByText('Rendering the document…').waitFor({ state: 'detached' });
    await world.screenshot(page, 'images-preview');
    expect(pageErrors(page)).toEqual([]);
  });

  test('choosing the folder of a markdown file embeds the images it names from that folder', async () => {
    const { page } = await world.signedIn();
    await page.getByTestId('folder-input').setInputFiles(DOC);
    const row = page.getByRole('listitem', { name: 'doc.md' });
    await row.getByText('Done').waitFor();
    await row.locator('summary').click();
    // Only the ones not beside it stay placeholders, and say why.
    expect(await row.locator('[data-code="remote_image"]').innerText()).toMatch(/never downloads/);
    expect(await row.locator('[data-code="image_missing"]').innerText()).toMatch(/not found/);
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Save doc.docx', exact: true }).click(),
    ]);
    const bytes = new Uint8Array(readFileSync(await file.path()));
    expect(Object.keys(unzipSync(bytes)).filter((n) => n.startsWith('word/media/'))).toHaveLength(6);
    expect(part(bytes, 'word/document.xml')).toContain('descr="A diagram"');
    await world.screenshot(page, 'images-folder');
    expect(pageErrors(page)).toEqual([]);
  });
});
