// A formula's text is written as every run's: characters XML forbids left out, braces docx would read as its own
// placeholders kept as written (the review of 2026-11-27: `$\char"FFFE$` made document.xml not well-formed, and
// `$\text{\{bullet-1\}}$` printed a list's number).
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

describe('the text of a formula', () => {
  it('leaves out U+FFFE and U+FFFF, in the body and in a note: the parts stay well-formed', async () => {
    const markdown = 'A $\\char"FFFE x$ and $a\uFFFFb$ here[^1].\n\n[^1]: In a note, $\\char"FFFF y$.\n';
    const result = await convert({ markdown });
    const document = part(result.docx, 'word/document.xml');
    expect(document).toContain('<m:oMath>');
    expect(document).not.toMatch(/[\uFFFE\uFFFF]/);
    expect(part(result.docx, 'word/footnotes.xml')).not.toMatch(/[\uFFFE\uFFFF]/);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('keeps braces as written, beside a list (docx numbers {bullet-1} in text)', async () => {
    const result = await convert({ markdown: '- an item\n\n$\\text{\\{bullet-1\\}}$\n' });
    const document = part(result.docx, 'word/document.xml');
    expect(document).toMatch(/<m:t[^>]*>\{bullet-1\}<\/m:t>/);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});
