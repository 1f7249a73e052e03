// A newcomer's papercuts in a real Chromium: the preview's footer shows page numbers (not "Page  of "), the built-in
// template offers "Strong" as the character style it is, the Settings page's plan dropdown shows its whole text.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { pageErrors, startWorld, type World, dropFiles } from './browser.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

describe('papercuts', () => {
  test('the preview\'s footer shows the page numbers of the built-in template\'s "Page N of M"', async () => {
    const { page } = await world.signedIn();
    // Two pages: `---` is a page break.
    await dropFiles(page, [{ name: 'pages.md', text: '# First page\n\nHello.\n\n---\n\n# Second page\n\nAgain.\n' }]);
    const row = page.getByRole('listitem', { name: 'pages.md' });
    await row.getByText('Done').waitFor();
    await page.getByRole('button', { name: 'Preview pages.docx' }).click();
    const preview = page.getByTestId('preview-body');
    await preview.getByText('Second page').waitFor();
    // Page numbers are written once the pages are laid out (fonts loaded, pages split): the note then counts them.
    await page.getByTestId('preview-note').getByText('(2 pages)').waitFor();
    const footers = await preview.locator('footer').allInnerTexts();
    await preview.locator('footer').first().scrollIntoViewIfNeeded();
    await world.screenshot(page, 'papercuts-preview-footer');
    expect(footers.map((f) => f.trim())).toEqual(['Page 1 of 2', 'Page 2 of 2']);
    expect(pageErrors(page)).toEqual([]);
  });

  test('the built-in template lists "Strong" among its character styles, not its paragraph styles', async () => {
    const { page } = await world.signedIn();
    await page.getByRole('link', { name: 'Templates & mappings' }).click();
    await page.getByRole('heading', { name: /Docwright Default/, level: 2 }).waitFor();
    expect(await page.getByRole('list', { name: 'paragraph styles' }).innerText()).not.toMatch(/^Strong$/m);
    await page.getByText(/^Character styles \(\d+\)$/).click();
    await page.getByRole('list', { name: 'character styles' }).getByText('Strong', { exact: true }).waitFor();
    await world.screenshot(page, 'papercuts-strong-character-style');
  });

  test.each([
    [1280, 860],
    [800, 600],
  ])("the plan dropdown shows each plan's whole text at %i×%i", async (width, height) => {
    const { page } = await world.signedIn({ width, height });
    await page.getByRole('link', { name: 'Settings' }).click();
    const select = page.getByLabel('Plan', { exact: true });
    await select.waitFor();
    await select.scrollIntoViewIfNeeded();
    for (const plan of ['solo', 'team', 'enterprise']) {
      await select.selectOption(plan);
      // The width the selected option's text needs in the select's own font, against the room the select gives it.
      const fit = await select.evaluate((element: HTMLSelectElement) => {
        const style = getComputedStyle(element);
        const probe = document.createElement('span');
        probe.style.font = style.font;
        probe.style.whiteSpace = 'pre';
        probe.textContent = element.selectedOptions[0]?.textContent ?? '';
        document.body.append(probe);
        const needed = probe.getBoundingClientRect().width;
        probe.remove();
        const room = element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return { needed, room, text: probe.textContent };
      });
      expect(fit.needed, `${fit.text} at ${width}px`).toBeLessThanOrEqual(fit.room);
    }
    await world.screenshot(page, `papercuts-plan-dropdown-${width}`);
  });
});
