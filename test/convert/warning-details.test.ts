// Every placeholder and every dropped element is named in a warning, and each warning carries the first source line
// it came from and how often it occurred (the UI groups them; the API's strings stay as SPEC.md has them).
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';

const markdown = [
  '# Title', // 1
  '', // 2
  '<div align="center">', // 3
  '<img src="https://img.shields.io/badge/a-b-c" alt="badge one">', // 4
  '</div>', // 5
  '', // 6
  'Text with ![remote](https://example.com/x.png) inline.', // 7
  '', // 8
  '<center>centered</center> and <center>again</center>', // 9
  '', // 10
  '<marquee>one</marquee>', // 11
  '', // 12
  '<marquee>two</marquee>', // 13
].join('\n');

describe('warning details', () => {
  it('names every image placeholder and carries the first line and the count of each warning', async () => {
    const result = await convert({ markdown });
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        'image_placeholder: badge one',
        'image_placeholder: remote',
        'unsupported_html: center',
        'unsupported_html: marquee',
      ]),
    );
    const byWarning = new Map(result.warningDetails.map((detail) => [detail.warning, detail]));
    expect(byWarning.get('image_placeholder: badge one')).toMatchObject({ line: 4, count: 1 });
    expect(byWarning.get('image_placeholder: remote')).toMatchObject({ line: 7, count: 1 });
    expect(byWarning.get('unsupported_html: center')).toMatchObject({ line: 9, count: 2 });
    expect(byWarning.get('unsupported_html: marquee')).toMatchObject({ line: 11, count: 2 });
    // The details follow the strings one to one, in the same order.
    expect(result.warningDetails.map((detail) => detail.warning)).toEqual(result.warnings);
  });

  it('gives no line to warnings about the mapping (missing styles)', async () => {
    const result = await convert({
      markdown: 'Plain.',
      mapping: {
        rules: {
          heading: { '1': 'No Such Style' },
          paragraph: 'Normal',
          list_bullet: 'List Bullet',
          list_ordered: 'List Number',
          code_block: 'Normal',
          blockquote: 'Quote',
          table: { style: 'Table Grid', header_row: true },
        },
      },
    });
    const missing = result.warningDetails.find((detail) => detail.warning.startsWith('missing_style'));
    expect(missing).toMatchObject({ line: null, count: 1 });
  });
});
