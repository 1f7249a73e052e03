// Numbered headings (issue 34, item 5): front matter `number_sections` / `numbersections` or the convert option number
// the headings with a multilevel list attached to the heading styles; a template whose heading styles number
// themselves keeps its own; `{.unnumbered}` headings get numId 0; LibreOffice shows the numbers, in the TOC too.
import { DOMParser, type Element } from '@xmldom/xmldom';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate } from '../../server/convert/index.ts';
import { part, pdfText, validateDocx } from '../helpers/docx.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const created = new Date('2026-01-02T03:04:05Z');
const parse = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml');
const all = (root: Element | ReturnType<typeof parse>, name: string): Element[] =>
  Array.from(root.getElementsByTagNameNS(W, name));
const wAttr = (el: Element | undefined, name: string) => el?.getAttributeNS(W, name) ?? '';
const child = (el: Element | undefined, name: string): Element | undefined =>
  el ? Array.from(el.childNodes).find((n): n is Element => (n as Element).localName === name) : undefined;

const DOC = `# Introduction

## Background

### Earlier engines

# Method

- a list item
- another

# Acknowledgements {.unnumbered}

# Results
`;

/** The heading styles' numbering: style id → [ilvl, numId] (undefined: none). */
function headingNumPr(docx: Uint8Array): Map<string, [string, string] | undefined> {
  const styles = parse(part(docx, 'word/styles.xml'));
  const out = new Map<string, [string, string] | undefined>();
  for (const style of all(styles, 'style')) {
    const id = wAttr(style, 'styleId');
    if (!/^Heading\d$/.test(id)) continue;
    const numPr = child(child(style, 'pPr'), 'numPr');
    out.set(id, numPr ? [wAttr(child(numPr, 'ilvl'), 'val'), wAttr(child(numPr, 'numId'), 'val')] : undefined);
  }
  return out;
}

/** The abstract numbering a w:num refers to, in a numbering part. */
function abstractOf(numberingXml: string, numId: string): Element | undefined {
  const numbering = parse(numberingXml);
  const num = all(numbering, 'num').find((n) => wAttr(n, 'numId') === numId);
  const abstractId = wAttr(child(num, 'abstractNumId'), 'val');
  return all(numbering, 'abstractNum').find((a) => wAttr(a, 'abstractNumId') === abstractId);
}

describe('numbered headings', () => {
  it('front matter number_sections: a nine-level list on the heading styles, %1. %1.%2. …, schema-valid', async () => {
    const result = await convert({ markdown: `---\nnumber_sections: true\n---\n${DOC}`, created });
    expect(result.warnings).toEqual([]);
    const numPrs = headingNumPr(result.docx);
    const numId = numPrs.get('Heading1')?.[1] ?? '';
    expect(numId).not.toBe('');
    for (let level = 1; level <= 6; level++) expect(numPrs.get(`Heading${level}`)).toEqual([String(level - 1), numId]);
    const abstract = abstractOf(part(result.docx, 'word/numbering.xml'), numId);
    const levels = all(abstract ?? parse('<x/>'), 'lvl');
    expect(levels.map((l) => wAttr(child(l, 'lvlText'), 'val'))).toEqual([
      '%1.',
      '%1.%2.',
      '%1.%2.%3.',
      '%1.%2.%3.%4.',
      '%1.%2.%3.%4.%5.',
      '%1.%2.%3.%4.%5.%6.',
      '%1.%2.%3.%4.%5.%6.%7.',
      '%1.%2.%3.%4.%5.%6.%7.%8.',
      '%1.%2.%3.%4.%5.%6.%7.%8.%9.',
    ]);
    expect(levels.slice(0, 6).map((l) => wAttr(child(l, 'pStyle'), 'val'))).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => `Heading${n}`),
    );
    // The list's items have their own numbering, not the headings'.
    const body = parse(part(result.docx, 'word/document.xml'));
    const listNumIds = all(body, 'numPr').map((n) => wAttr(child(n, 'numId'), 'val'));
    expect(listNumIds).toContain('0'); // the .unnumbered heading
    expect(listNumIds.filter((id) => id !== '0').every((id) => id !== numId)).toBe(true);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('pandoc spelling numbersections and the convert option ask for the same; the front matter may say no', async () => {
    const byFrontMatter = await convert({ markdown: `---\nnumber_sections: true\n---\n${DOC}`, created });
    const byAlias = await convert({ markdown: `---\nnumbersections: true\n---\n${DOC}`, created });
    const byOption = await convert({ markdown: DOC, created, numberSections: true });
    const expected = part(byFrontMatter.docx, 'word/styles.xml');
    expect(part(byAlias.docx, 'word/styles.xml')).toBe(expected);
    expect(part(byOption.docx, 'word/styles.xml')).toBe(expected);
    const refused = await convert({
      markdown: `---\nnumber_sections: false\n---\n${DOC}`,
      created,
      numberSections: true,
    });
    expect([...headingNumPr(refused.docx).values()].every((v) => v === undefined)).toBe(true);
    const plain = await convert({ markdown: DOC, created });
    expect([...headingNumPr(plain.docx).values()].every((v) => v === undefined)).toBe(true);
  });

  it('a value that is not true or false is warned and numbers nothing', async () => {
    const result = await convert({ markdown: `---\nnumber_sections: yes please\n---\n${DOC}`, created });
    expect(result.warnings).toContain('invalid_front_matter: number_sections must be true or false (ignored)');
    expect([...headingNumPr(result.docx).values()].every((v) => v === undefined)).toBe(true);
  });

  it('a template whose heading styles number themselves keeps its own numbering, never doubled', async () => {
    const template = withOwnHeadingNumbering(defaultTemplate());
    const result = await convert({ markdown: `---\nnumber_sections: true\n---\n${DOC}`, template, created });
    expect(result.warnings).toEqual([]);
    expect(headingNumPr(result.docx).get('Heading1')).toEqual(['0', '7']);
    expect(headingNumPr(result.docx).get('Heading2')).toBeUndefined();
    const numbering = parse(part(result.docx, 'word/numbering.xml'));
    // The template's one chapter list and the bullet list's: no list with our heading levels.
    expect(all(numbering, 'lvlText').some((t) => wAttr(t, 'val') === '%1.%2.')).toBe(false);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it("ids follow the template's, passing over one at the top of 32 bits (Word reads them as 32-bit integers)", async () => {
    const template = withNumbering(
      defaultTemplate(),
      '<w:abstractNum w:abstractNumId="2147483647"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="-"/></w:lvl></w:abstractNum><w:num w:numId="2147483647"><w:abstractNumId w:val="2147483647"/></w:num>',
    );
    const result = await convert({ markdown: `---\nnumber_sections: true\n---\n${DOC}`, template, created });
    const numId = headingNumPr(result.docx).get('Heading1')?.[1] ?? '';
    expect(Number(numId)).toBeGreaterThan(0);
    expect(Number(numId)).toBeLessThan(2 ** 31 - 1);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('LibreOffice shows the numbers in the text and in the table of contents', async () => {
    const markdown = `---\nnumber_sections: true\ntoc: true\n---\n${DOC}`;
    const result = await convert({ markdown, created });
    const text = await pdfText(result.docx);
    const lines = text.split('\n').map((l) => l.replace(/\s+/g, ' ').trim());
    for (const heading of ['1. Introduction', '1.1. Background', '1.1.1. Earlier engines', '2. Method', '3. Results'])
      expect(lines.filter((l) => l === heading || l.startsWith(`${heading} `)).length, heading).toBe(2);
    expect(lines.filter((l) => l.endsWith('Acknowledgements')).every((l) => l === 'Acknowledgements')).toBe(true);
  }, 120_000);
});

/** The built-in template with this numbering part (its w:abstractNum and w:num elements). */
function withNumbering(bytes: Uint8Array, inner: string): Uint8Array {
  const files = unzipSync(bytes);
  files['word/numbering.xml'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:numbering xmlns:w="${W}">${inner}</w:numbering>`,
  );
  return zipSync(files);
}

/** The built-in template with Heading 1 numbered by a list of its own ("Chapter 1"), numId 7, as a thesis template is. */
function withOwnHeadingNumbering(bytes: Uint8Array): Uint8Array {
  const files = unzipSync(bytes);
  const styles = strFromU8(files['word/styles.xml'] ?? new Uint8Array());
  const heading = /(<w:style [^>]*w:styleId="Heading1"[^>]*>[\s\S]*?<w:pPr>)/.exec(styles);
  if (!heading?.[1]) throw new Error('no Heading1 with a w:pPr');
  // Word's order: w:keepNext, w:keepLines come before w:numPr; the built-in Heading 1 has both.
  const patched = styles.replace(
    /(<w:style [^>]*w:styleId="Heading1"[^>]*>[\s\S]*?<w:keepLines\/>)/,
    '$1<w:numPr><w:ilvl w:val="0"/><w:numId w:val="7"/></w:numPr>',
  );
  if (patched === styles) throw new Error('Heading1 has no w:keepLines to put w:numPr after');
  files['word/styles.xml'] = strToU8(patched);
  files['word/numbering.xml'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:numbering xmlns:w="${W}"><w:abstractNum w:abstractNumId="3"><w:multiLevelType w:val="singleLevel"/><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="Heading1"/><w:lvlText w:val="Chapter %1"/><w:lvlJc w:val="left"/></w:lvl></w:abstractNum><w:num w:numId="7"><w:abstractNumId w:val="3"/></w:num></w:numbering>`,
  );
  const rels = strFromU8(files['word/_rels/document.xml.rels'] ?? new Uint8Array());
  files['word/_rels/document.xml.rels'] = strToU8(
    rels.replace(
      '</Relationships>',
      '<Relationship Id="rIdNumbering9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/></Relationships>',
    ),
  );
  const types = strFromU8(files['[Content_Types].xml'] ?? new Uint8Array());
  files['[Content_Types].xml'] = strToU8(
    types.replace(
      '</Types>',
      '<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/></Types>',
    ),
  );
  return zipSync(files);
}
