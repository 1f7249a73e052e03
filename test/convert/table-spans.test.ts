// HTML tables' colspan and rowspan become merged cells (fixture html-table-spans); a span is bounded by Word's
// 63 columns and by the rows the table has, whatever the HTML says.
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

describe('HTML table spans', () => {
  it('a colspan of a million is read as 63 columns (Word’s most), and a rowspan past the last row ends there', async () => {
    const rows = [
      '<tr><td colspan="1000000" rowspan="99999">r0</td></tr>',
      ...Array.from({ length: 49 }, (_, i) => `<tr><td>r${i + 1}</td></tr>`),
    ];
    const result = await convert({ markdown: `<table>\n${rows.join('\n')}\n</table>\n` });
    const xml = part(result.docx, 'word/document.xml');
    // As a browser lays it out: r0 over 63 columns and all 50 rows, each later row's cell beside it, in column 64.
    expect(xml.match(/<w:gridCol /g)?.length).toBe(64);
    expect(xml).toContain('<w:gridSpan w:val="63"/>');
    expect(xml.match(/<w:vMerge w:val="continue"\/>/g)?.length).toBe(49);
    expect(xml).toContain('>r49<');
    expect(xml.match(/<w:tr>/g)?.length).toBe(50);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});
