// The mapping editor in a real Chromium shows the title block keys (title, subtitle, author, date) with the
// template's paragraph styles; the built-in mapping names the built-in template's Title, Subtitle, Author and Date.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { pageErrors, startWorld, type World } from './browser.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world.close();
});

describe('mapping editor: the title block keys', () => {
  test('the built-in mapping shows Title, Subtitle, Author and Date; a copy offers the paragraph styles for them', async () => {
    const { page } = await world.signedIn();
    await page.getByRole('link', { name: 'Templates & mappings' }).click();
    await page.getByRole('button', { name: 'Docwright Default', exact: true }).click();
    await page.getByRole('button', { name: 'View mapping Docwright Default' }).click();
    for (const key of ['Title', 'Subtitle', 'Author', 'Date']) {
      const box = page.getByLabel(key, { exact: true });
      expect(await box.inputValue()).toBe(key);
      expect(await box.isDisabled()).toBe(true);
    }
    await world.screenshot(page, 'mapping-title-block-keys');

    // An editable copy: the Author list offers the template's paragraph styles (Date among them), not its tables.
    await page.getByRole('button', { name: 'Duplicate to edit' }).click();
    const author = page.getByLabel('Author', { exact: true });
    await author.fill('Da');
    const options = page.getByRole('listbox').getByRole('option');
    await page.getByRole('listbox').getByRole('option', { name: 'Date', exact: true }).waitFor();
    expect(await options.allInnerTexts()).not.toContain('Docwright Table');
    await page.getByRole('listbox').getByRole('option', { name: 'Date', exact: true }).click();
    expect(await author.inputValue()).toBe('Date');
    expect(pageErrors(page)).toEqual([]);
  });
});
