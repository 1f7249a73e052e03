// Equations wherever phrasing content goes (issue 33, item 1): a footnote (its own part, which must declare m:), a
// table cell, a link's text and a heading; each is an m:oMath and the document passes the schema.
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const MARKDOWN = [
  '# Heading $h^2$',
  '',
  'Text[^1] and a table:',
  '',
  '| a | $\\frac{1}{2}$ |',
  '|---|---|',
  '| [link $x$](http://example.org) | $$y$$ |',
  '',
  '[^1]: A note with $x^2 + \\frac{a}{b}$.',
  '',
].join('\n');

describe('equations in every place phrasing goes', () => {
  it('a heading, a table cell, a link and a footnote', async () => {
    const result = await convert({ markdown: MARKDOWN });
    expect(result.warnings).toEqual([]);
    const body = part(result.docx, 'word/document.xml');
    expect(body.match(/<m:oMath>/g)).toHaveLength(4);
    expect(body).toMatch(/<w:hyperlink [^>]*>(?:(?!<\/w:hyperlink>).)*<m:oMath>/);
    expect(part(result.docx, 'word/footnotes.xml')).toContain('<m:oMath>');
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});
