// Citations, review of issue 34: a group mixing cross-references and citations, a `csl` that is not CSL, note
// styles, BibTeX entry types, bare-number locators and TeX logos in titles.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert, filesSource } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const BIB = readFileSync(resolve(import.meta.dirname, '../fixtures/citations/review.bib'), 'utf8');
const NOTE_STYLE = readFileSync(resolve(import.meta.dirname, '../fixtures/citations/note-style.csl'), 'utf8');

/** A part's paragraphs as text. */
function paragraphs(docx: Uint8Array, name = 'word/document.xml'): string[] {
  return part(docx, name)
    .split('</w:p>')
    .map((p) =>
      [...p.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)]
        .map((m) => m[1] ?? '')
        .join('')
        .replaceAll('&amp;', '&')
        .replaceAll('&apos;', "'"),
    )
    .filter((text) => text.trim() !== '');
}

async function run(markdown: string, csl?: string) {
  const result = await convert({ markdown, bibliography: { text: BIB }, ...(csl === undefined ? {} : { csl }) });
  const { ok, report } = await validateDocx(result.docx);
  expect(ok, report).toBe(true);
  return result;
}

describe('citations: review', () => {
  it('a group mixing cross-references and citations prints the references and one parenthetical citation', async () => {
    const result = await run(
      '![A cat](cat.png){#fig:a}\n\nMixed [@fig:a; @doe2020] and [see @fig:a; @knuth:1984, p. 4].\n',
    );
    const text = paragraphs(result.docx).find((p) => p.startsWith('Mixed'));
    expect(text).toBe('Mixed Figure 1; (Doe, 2020) and see Figure 1; (Knuth, 1984, p. 4).');
  });

  it('without a bibliography the citations of a mixed group stay text, warned; the cross-reference is made', async () => {
    const markdown = '![A cat](cat.png){#fig:a}\n\nMixed [@fig:a; @doe2020].\n';
    const result = await convert({ markdown });
    expect(paragraphs(result.docx).find((p) => p.startsWith('Mixed'))).toBe('Mixed Figure 1; [@doe2020].');
    expect(result.warnings).toContainEqual(expect.stringMatching(/^syntax_as_text: \[@doe2020\] \(citations are/));
  });

  it('a csl that is not a CSL style is refused in one sentence', async () => {
    await expect(run('A [@doe2020].', '<html/>')).rejects.toThrow(
      /^the CSL style sent is not a CSL style \(its root is <html>, not CSL's <style>\)$/,
    );
  });

  it('a csl file beside the markdown that is not CSL is refused naming the file', async () => {
    const files = new Map([
      ['refs.bib', new TextEncoder().encode(BIB)],
      ['notcsl.csl', new TextEncoder().encode('<?xml version="1.0"?>\n<html/>\n')],
    ]);
    const markdown = '---\nbibliography: refs.bib\ncsl: notcsl.csl\n---\n\nA [@doe2020].\n';
    await expect(convert({ markdown, images: filesSource(files) })).rejects.toMatchObject({
      code: 'bibliography_invalid',
      message: "the CSL style notcsl.csl is not a CSL style (its root is <html>, not CSL's <style>)",
    });
    const noCitation = NOTE_STYLE.replace(/<citation>[\s\S]*<\/citation>/, '');
    await expect(run('A [@doe2020].', noCitation)).rejects.toThrow(/it has no <citation> element/);
  });

  it('a note style makes each citation a footnote', async () => {
    const result = await run('A claim [@knuth:1984, p. 5]. Another [@doe2020].\n', NOTE_STYLE);
    const body = paragraphs(result.docx)[0];
    expect(body).toBe('A claim. Another.');
    const notes = paragraphs(result.docx, 'word/footnotes.xml').filter((p) => /Knuth|Doe/.test(p));
    expect(notes).toEqual(['Knuth, The TeXbook, p. 5.', 'Doe, Markdown at Length.']);
  });

  it('a note style prints a citation inside a footnote, and a narrative one, in the text, with one period', async () => {
    const result = await run('As @doe2020.[^n]\n\n[^n]: See [@doe2020].\n', NOTE_STYLE);
    const notes = paragraphs(result.docx, 'word/footnotes.xml').filter((p) => /Doe/.test(p));
    expect(notes).toEqual(['See Doe, Markdown at Length.']);
    // The narrative one: the author, then the rest as the style's suppress-author form gives it; one period.
    expect(paragraphs(result.docx)[0]).toMatch(/^As Doe\b[^.]*Markdown at Length\.$/);
  });

  it('BibTeX thesis and report types read as pandoc prints them, never the raw entry type', async () => {
    const result = await run('[@roe2019; @lee2018; @nist2020]\n', 'vancouver');
    const all = paragraphs(result.docx).join('\n');
    expect(all).toContain('[PhD thesis]');
    expect(all).toMatch(/\[Master['’]s thesis\]/);
    expect(all).not.toMatch(/phdthesis|mathesis|techreport/i);
  });

  it('a bare number locator is a page, as pandoc reads it; TeX logos in titles print as their names', async () => {
    const result = await run('A [@knuth:1984, 33] and [@knuth:1984, 33-35, my note].\n');
    const [body, , entry] = paragraphs(result.docx);
    expect(body).toBe('A (Knuth, 1984, p. 33) and (Knuth, 1984, pp. 33–35, my note).');
    expect(entry).toBe('Knuth, D. E. (1984). The TeXbook. Addison-Wesley.');
  });
});
