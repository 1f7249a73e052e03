// Issue 34, item 5 in the app: the Convert page's "Number the headings" box sends number_sections, and the saved
// .docx has its heading styles numbered (a real Chromium, a real server); unticked, the next one has none.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { part, validateDocx } from '../helpers/docx.ts';
import { convertPasted, pageErrors, startWorld, type World } from './browser.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

const HEADINGS = '# Introduction\n\n## Background\n\n# Method\n';

/** The numbering level each of Heading 1 and Heading 2 carries in the document's styles ('' for none). */
function headingLevels(docx: Uint8Array): string[] {
  const styles = part(docx, 'word/styles.xml');
  return ['Heading1', 'Heading2'].map(
    (id) =>
      new RegExp(`w:styleId="${id}"[^>]*>(?:(?!</w:style>)[\\s\\S])*?<w:ilvl w:val="(\\d)"`).exec(styles)?.[1] ?? '',
  );
}

describe('Convert page: number the headings', () => {
  test('ticked, the headings are numbered; unticked, they are not', async () => {
    const { page } = await world.signedIn();
    const box = page.getByTestId('number-sections');
    expect(await box.isChecked()).toBe(false);
    await box.check();
    const numbered = await convertPasted(page, HEADINGS, 'numbered');
    expect(headingLevels(numbered)).toEqual(['0', '1']);
    const { ok, report } = await validateDocx(numbered);
    expect(ok, report).toBe(true);
    await world.screenshot(page, 'convert-number-sections');

    await box.uncheck();
    const plain = await convertPasted(page, HEADINGS, 'plain');
    expect(headingLevels(plain)).toEqual(['', '']);
    expect(pageErrors(page)).toEqual([]);
  });
});
