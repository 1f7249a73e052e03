// Numbered captions as Word fields, cross-references and lists of figures and tables (issue 34, items 1-3), beyond
// the element fixtures (test/fixtures/elements/captions-*, cross-references*, list-of-figures).
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert, filesSource } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const created = new Date('2026-01-02T03:04:05Z');

const parse = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml');
const all = (root: Element | ReturnType<typeof parse>, name: string): Element[] =>
  Array.from(root.getElementsByTagNameNS(W, name));
const wAttr = (el: Element, name: string) => el.getAttributeNS(W, name) ?? '';

/** Each paragraph's text, field results included, instructions left out. */
function paragraphs(documentXml: string): string[] {
  return all(parse(documentXml), 'p').map((p) =>
    all(p, 't')
      .map((t) => t.textContent ?? '')
      .join(''),
  );
}
const instructions = (documentXml: string): string[] =>
  all(parse(documentXml), 'instrText').map((t) => (t.textContent ?? '').trim());

const DOC = `# Results {#sec:results}

See @fig:cat, [@tbl:sizes], @eq:energy and [@fig:cat; @fig:dog]. Back to @sec:results.
Escaped: \\@fig:cat. Mail: someone@fig.com. Unknown: @fig:nowhere.

![A cat](cat.png){#fig:cat}

![A dog](dog.png){#fig:dog}

| a | b |
|---|---|
| 1 | 2 |

Table: Sizes of things {#tbl:sizes}

$$ E = mc^2 $$ {#eq:energy}

\`\`\`{#lst:hello .python caption="Hello"}
print("hello")
\`\`\`

[LOF]

[LOT]
`;

const SVG = new TextEncoder().encode(
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="teal"/></svg>',
);

describe('numbered captions and cross-references', () => {
  it('numbers figures, tables, equations and listings with SEQ fields, pre-filled in document order', async () => {
    const result = await convert({ markdown: DOC, created });
    const xml = part(result.docx, 'word/document.xml');
    const texts = paragraphs(xml);
    expect(texts).toContain('Figure 1: A cat');
    expect(texts).toContain('Figure 2: A dog');
    expect(texts).toContain('Table 1: Sizes of things');
    expect(texts).toContain('Listing 1: Hello');
    expect(texts.some((t) => t.endsWith('(1)'))).toBe(true);
    const seq = instructions(xml).filter((i) => i.startsWith('SEQ'));
    expect(seq).toEqual([
      'SEQ Figure \\* ARABIC',
      'SEQ Figure \\* ARABIC',
      'SEQ Table \\* ARABIC',
      'SEQ Equation \\* ARABIC',
      'SEQ Listing \\* ARABIC',
    ]);
    // The table's caption is above it.
    const body = parse(xml).getElementsByTagNameNS(W, 'body')[0];
    const blocks = Array.from(body?.childNodes ?? []).filter((n) => n.nodeType === 1) as Element[];
    const table = blocks.findIndex((b) => b.localName === 'tbl');
    expect(
      all(blocks[table - 1] as Element, 't')
        .map((t) => t.textContent)
        .join(''),
    ).toBe('Table 1: Sizes of things');
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('writes references as REF fields in internal links, pre-filled; unknown ones stay with a warning', async () => {
    const result = await convert({ markdown: DOC, created });
    const xml = part(result.docx, 'word/document.xml');
    const first = paragraphs(xml).find((t) => t.startsWith('See')) ?? '';
    expect(first).toBe(
      'See Figure 1, Table 1, Equation 1 and Figure 1, Figure 2. Back to Results. Escaped: @fig:cat. Mail: someone@fig.com. Unknown: @fig:nowhere.',
    );
    const refs = instructions(xml).filter((i) => i.startsWith('REF'));
    expect(refs).toHaveLength(6);
    const names = new Set(all(parse(xml), 'bookmarkStart').map((b) => wAttr(b, 'name')));
    for (const ref of refs) expect(names.has(ref.split(/\s+/)[1] ?? '')).toBe(true);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(40);
    const see = all(parse(xml), 'p').find((p) => all(p, 't')[0]?.textContent === 'See ');
    const anchors = all(see as Element, 'hyperlink')
      .map((h) => wAttr(h, 'anchor'))
      .filter(Boolean);
    expect(anchors.filter((a) => a.startsWith('_Ref'))).toHaveLength(5);
    expect(anchors).toHaveLength(6);
    expect(result.warnings).toContain('broken_reference: fig:nowhere');
    expect(result.warningDetails.find((w) => w.warning === 'broken_reference: fig:nowhere')?.line).toBe(4);
  });

  it('writes lists of figures and tables as TOC \\c fields listing the captions', async () => {
    const result = await convert({ markdown: DOC, created });
    const xml = part(result.docx, 'word/document.xml');
    expect(instructions(xml)).toContain('TOC \\h \\z \\c "Figure"');
    expect(instructions(xml)).toContain('TOC \\h \\z \\c "Table"');
    const texts = paragraphs(xml);
    expect(texts.filter((t) => t === 'Figure 1: A cat')).toHaveLength(2);
    expect(texts).not.toContain('[LOF]');
  });

  it('takes the label words from the language and the front matter', async () => {
    const markdown = `---\nlang: de\ntableTitle: Tab.\nlof: true\n---\n\n![Katze](k.svg)\n\n| a |\n|---|\n| 1 |\n\n: Werte\n`;
    const result = await convert({ markdown, created, images: filesSource(new Map([['k.svg', SVG]])) });
    const texts = paragraphs(part(result.docx, 'word/document.xml'));
    expect(texts).toContain('Abbildung 1: Katze');
    expect(texts).toContain('Tab. 1: Werte');
    expect(result.warnings.filter((w) => w.startsWith('front_matter_ignored'))).toEqual([]);
  });

  it('numbers an image alone in its paragraph by its alt text only where images are embedded (SPEC: placeholders)', async () => {
    const markdown = '![A box](k.svg)\n\n![Labelled](k.svg){#fig:l}\n';
    const embedded = paragraphs(
      part(
        (await convert({ markdown, created, images: filesSource(new Map([['k.svg', SVG]])) })).docx,
        'word/document.xml',
      ),
    );
    expect(embedded.filter((t) => t.startsWith('Figure'))).toEqual(['Figure 1: A box', 'Figure 2: Labelled']);
    const placeholders = paragraphs(part((await convert({ markdown, created })).docx, 'word/document.xml'));
    expect(placeholders).toEqual(['[Image: A box]', '[Image: Labelled]', 'Figure 1: Labelled']);
  });

  it('asks Word to update the fields on open where a list of figures is written (its page numbers), not otherwise', async () => {
    const listed = await convert({ markdown: '[LOF]\n\n![A](a.png){#fig:a}\n', created });
    expect(part(listed.docx, 'word/settings.xml')).toMatch(/<w:updateFields w:val="true"\/>/);
    const { ok, report } = await validateDocx(listed.docx);
    expect(ok, report).toBe(true);
    const captioned = await convert({ markdown: '![A](a.png){#fig:a}\n\nSee @fig:a.\n', created });
    expect(part(captioned.docx, 'word/settings.xml')).not.toMatch(/updateFields/);
  });

  it('numbers by chapter where the front matter asks (chapters: true): STYLEREF and SEQ \\s 1, pre-filled', async () => {
    const markdown =
      '---\nchapters: true\n---\n\n# One\n\n![A](a.png){#fig:a}\n\n# Two\n\n![B](b.png){#fig:b}\n\n' +
      '![C](c.png){#fig:c}\n\nSee @fig:c.\n';
    const result = await convert({ markdown, created });
    const xml = part(result.docx, 'word/document.xml');
    const texts = paragraphs(xml);
    expect(texts.filter((t) => t.startsWith('Figure'))).toEqual(['Figure 1.1: A', 'Figure 2.1: B', 'Figure 2.2: C']);
    expect(texts).toContain('See Figure 2.2.');
    // Each chapter's heading ends with a hidden reset of the sequence (LibreOffice ignores `\\s 1`).
    const reset = 'SEQ Figure \\r 0 \\h';
    const numbered = 'SEQ Figure \\* ARABIC \\s 1';
    expect(instructions(xml).filter((i) => i.startsWith('SEQ'))).toEqual([reset, numbered, reset, numbered, numbered]);
    expect(instructions(xml).filter((i) => i.startsWith('STYLEREF'))).toEqual(Array(3).fill('STYLEREF 1 \\s'));
    expect(result.warnings.filter((w) => !w.startsWith('image_placeholder'))).toEqual([]);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('warns a Table: paragraph that has no table next to it, with its line (it stays text)', async () => {
    const result = await convert({ markdown: 'Intro.\n\nTable: Orphan caption\n\nMore text.\n', created });
    expect(paragraphs(part(result.docx, 'word/document.xml'))).toContain('Table: Orphan caption');
    const warning = result.warningDetails.find((w) => w.warning.startsWith('syntax_as_text: Table:'));
    expect(warning?.line).toBe(3);
  });
});
