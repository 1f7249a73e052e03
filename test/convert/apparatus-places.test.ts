// Citations and cross-references wherever a writer puts them (issue 34, acceptance 3): inside a figure's caption (alt
// text or title), a `Table:` caption and the front matter's abstract they resolve as in any paragraph, and what cannot
// resolve is warned with its line; `@sec:` reads the heading's number where the headings are numbered.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const created = new Date('2026-01-02T03:04:05Z');
const elements = resolve(import.meta.dirname, '../fixtures/elements');
const apparatus = readFileSync(resolve(elements, 'captions-apparatus/input.md'), 'utf8');
const numbered = readFileSync(resolve(elements, 'cross-references-numbered/input.md'), 'utf8');
const bib = { text: readFileSync(resolve(import.meta.dirname, '../fixtures/citations/refs.bib'), 'utf8') };

const parse = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml');
const all = (root: Element | ReturnType<typeof parse>, name: string): Element[] =>
  Array.from(root.getElementsByTagNameNS(W, name));
/** Each paragraph's text, field results included, instructions left out. */
function paragraphs(documentXml: string): string[] {
  return all(parse(documentXml), 'p').map((p) =>
    all(p, 't')
      .map((t) => t.textContent ?? '')
      .join(''),
  );
}
const instructionsOf = (documentXml: string): string[] =>
  all(parse(documentXml), 'instrText').map((t) => (t.textContent ?? '').trim());

describe('citations and cross-references in captions and the abstract', () => {
  it('resolve in a figure caption, a table caption, the abstract and the list of figures', async () => {
    const result = await convert({ markdown: apparatus, created, bibliography: bib });
    const xml = part(result.docx, 'word/document.xml');
    const texts = paragraphs(xml);
    expect(texts).toContainEqual(
      expect.stringMatching(/^We extend \(Doe & Roe, 2020\) with the pictures of Figure 2\. An unknown/),
    );
    expect(texts).toContain('Figure 2: See Figure 1 and (Doe & Roe, 2020)');
    expect(texts).toContain('Figure 3: After Figure 2, as Smith (2019) says');
    expect(texts).toContain('Table 1: Sizes of Figure 1, from (Doe & Roe, 2020, p. 3)');
    // The list of figures' entries read as the captions do.
    expect(texts.filter((t) => t === 'Figure 2: See Figure 1 and (Doe & Roe, 2020)')).toHaveLength(2);
    // Only what was escaped or cannot resolve keeps its `@`.
    // (An image placeholder names the image by its alt text as written, in its warning too: SPEC.md's Images.)
    const withAt = texts.filter((t) => t.includes('@') && !t.startsWith('[Image: '));
    expect(withAt).toEqual([
      expect.stringContaining('An unknown source [@nobody2000] and an unknown figure @fig:gone.'),
      'Figure 4: Lost: @fig:lost and [@nobody2001]',
      'Table 2: Unknown @tbl:none and [@nobody2002]',
      'Literal: @fig:a, and [Doe & Roe (2020)] is narrative.',
      // The list of figures.
      'Figure 4: Lost: @fig:lost and [@nobody2001]',
    ]);
    expect(instructionsOf(xml)).toEqual(expect.arrayContaining(['REF _Ref_fig_a \\h', 'REF _Ref_fig_b \\h']));
    const at = (warning: string) => result.warningDetails.find((d) => d.warning === warning)?.line;
    expect(at('citation_missing: nobody2000')).toBe(5);
    expect(at('broken_reference: fig:gone')).toBe(5);
    expect(at('broken_reference: fig:lost')).toBe(17);
    expect(at('citation_missing: nobody2001')).toBe(17);
    expect(at('broken_reference: tbl:none')).toBe(29);
    expect(at('citation_missing: nobody2002')).toBe(29);
    expect(result.warnings.filter((w) => w.startsWith('syntax_as_text'))).toEqual([]);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('without a bibliography, a bracketed citation in a caption or the abstract is warned with its line', async () => {
    const result = await convert({ markdown: apparatus, created });
    const texts = paragraphs(part(result.docx, 'word/document.xml'));
    expect(texts).toContain('Figure 2: See Figure 1 and [@doe2020]');
    const said = result.warningDetails.filter((d) => d.warning.startsWith('syntax_as_text: [@'));
    // A warning is given once, with its first line, and counted: [@doe2020] on lines 4 (the abstract) and 13.
    expect(said.map((d) => [d.warning.slice(16, d.warning.indexOf(']') + 1), d.line, d.count])).toEqual([
      ['[@doe2020]', 4, 2],
      ['[@nobody2000]', 5, 1],
      ['[@nobody2001]', 17, 1],
      ['[@doe2020, p. 3]', 23, 1],
      ['[@nobody2002]', 29, 1],
    ]);
    expect(result.warningDetails.find((d) => d.warning === 'broken_reference: fig:gone')?.line).toBe(5);
  });
});

describe('@sec: where the headings are numbered', () => {
  it('reads "Section 1.1": the word, and a REF field to the heading with its paragraph number', async () => {
    const result = await convert({ markdown: numbered, created });
    const xml = part(result.docx, 'word/document.xml');
    const texts = paragraphs(xml);
    expect(texts).toContain('See Section 1, Section 1.1, Section 2, Section 1.2 (a slug) and Section 2.');
    expect(texts).toContain('And Appendix, which has no number.');
    // The heading's bookmark (anchors.ts names `{#sec:intro}` so), its paragraph number (`\\r`), linked.
    expect(instructionsOf(xml).filter((i) => i.startsWith('REF'))).toEqual([
      expect.stringMatching(/^REF sec_intro_\w+ \\r \\h$/),
      expect.stringMatching(/^REF sec_background_\w+ \\r \\h$/),
      expect.stringMatching(/^REF sec_methods_\w+ \\r \\h$/),
      'REF aims \\r \\h',
      expect.stringMatching(/^REF sec_methods_\w+ \\r \\h$/),
      expect.stringMatching(/^REF sec_appendix_\w+ \\h$/),
    ]);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('keeps the heading text where the headings are not numbered', async () => {
    const result = await convert({
      markdown: numbered.replace('number_sections: true', 'number_sections: false'),
      created,
    });
    const texts = paragraphs(part(result.docx, 'word/document.xml'));
    expect(texts).toContain('See Introduction, Background, Methods, Aims (a slug) and Methods.');
  });
});
