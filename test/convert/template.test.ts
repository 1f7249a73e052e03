import { DOMParser, type Document as XmlDocument, type Element } from '@xmldom/xmldom';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convert, type ConvertResult, type MappingRules } from '../../server/convert/index.ts';
import { fixture, part, validateDocx } from '../helpers/docx.ts';
import { CORPORATE_RULES } from '../helpers/corporate.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';
const HYPERLINK = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink';

const CORPORATE = fixture('templates', 'corporate.docx');
const NOBODY = fixture('templates', 'corporate-nobody.docx');
const TEMPLATE_PARTS = unzipSync(CORPORATE);
const templateText = (path: string): string => {
  const bytes = TEMPLATE_PARTS[path];
  if (!bytes) throw new Error(`the template has no ${path}`);
  return strFromU8(bytes);
};

const RULES = CORPORATE_RULES;

const LINK = 'https://example.com/path?a=1&b=2';
const AUTOLINK = 'https://docwright.example/auto';

const MARKDOWN = `# Heading one text

Body paragraph with a [link text](${LINK}) and <${AUTOLINK}>.

> Quoted words

\`\`\`
code line one
\tcode line two
\`\`\`

- bullet level zero
  - bullet level one
    - bullet level two

1. first list one
2. first list two

Intervening paragraph.

5. second list five
6. second list six

| Head A | Head B |
| --- | --- |
| Cell 1 | Cell 2 |
| Cell 3 | Cell 4 |

Before the rule.

---

After the rule[^note].

[^note]: The footnote text.
`;

const CREATED = new Date('2024-01-02T03:04:05Z');

async function run(markdown: string, template: Uint8Array, rules: MappingRules): Promise<ConvertResult> {
  return await convert({ markdown, template, mapping: { rules }, created: CREATED });
}

function parse(xml: string): XmlDocument {
  return new DOMParser().parseFromString(xml, 'text/xml');
}

function elements(root: XmlDocument | Element, name: string, ns = W): Element[] {
  const list = root.getElementsByTagNameNS(ns, name);
  const out: Element[] = [];
  for (let i = 0; i < list.length; i++) {
    const el = list.item(i);
    if (el) out.push(el);
  }
  return out;
}

function children(el: Element, name?: string): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (
      n.nodeType === 1 &&
      (name === undefined || ((n as Element).localName === name && (n as Element).namespaceURI === W))
    )
      out.push(n as Element);
  }
  return out;
}

function child(el: Element, name: string): Element | undefined {
  return children(el, name)[0];
}

const val = (el: Element | undefined): string | null => el?.getAttributeNS(W, 'val') ?? null;

/** The text of the code block of MARKDOWN: one paragraph, its line break and tab being elements of their own. */
const CODE_TEXT = 'code line onecode line two';

function textOf(el: Element): string {
  return elements(el, 't')
    .map((t) => t.textContent ?? '')
    .join('');
}

function pStyle(p: Element): string | null {
  const pPr = child(p, 'pPr');
  return pPr ? val(child(pPr, 'pStyle')) : null;
}

/** The body of a document.xml, its w:body element. */
function body(doc: XmlDocument): Element {
  const b = elements(doc, 'body')[0];
  if (!b) throw new Error('no w:body');
  return b;
}

/** The paragraph whose text is exactly `text`. */
function paragraph(doc: XmlDocument, text: string): Element {
  const found = elements(doc, 'p').filter((p) => textOf(p) === text);
  expect(found, `one paragraph "${text}"`).toHaveLength(1);
  return found[0] as Element;
}

function numPr(p: Element): { ilvl: string | null; numId: string | null } {
  const pPr = child(p, 'pPr');
  const n = pPr ? child(pPr, 'numPr') : undefined;
  return { ilvl: n ? val(child(n, 'ilvl')) : null, numId: n ? val(child(n, 'numId')) : null };
}

/** The style ids styles.xml defines. */
function styleIds(stylesXml: string): Set<string> {
  return new Set(elements(parse(stylesXml), 'style').map((s) => s.getAttributeNS(W, 'styleId') ?? ''));
}

/** Every pStyle, rStyle and tblStyle in document.xml and footnotes.xml names a style styles.xml defines. */
function expectStyleReferencesResolve(docx: Uint8Array): void {
  const ids = styleIds(part(docx, 'word/styles.xml'));
  for (const path of ['word/document.xml', 'word/footnotes.xml']) {
    const doc = parse(part(docx, path));
    for (const name of ['pStyle', 'rStyle', 'tblStyle']) {
      for (const el of elements(doc, name)) {
        const id = val(el) ?? '';
        expect(ids.has(id), `${path}: w:${name} "${id}" is not a style of styles.xml`).toBe(true);
      }
    }
  }
}

async function expectValid(docx: Uint8Array): Promise<void> {
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
}

/** The raw XML of the template's element that starts with `start` (e.g. `<w:num w:numId="1"`), up to `end`. */
function rawElement(xml: string, start: string, end: string): string {
  const at = xml.indexOf(start);
  if (at < 0) throw new Error(`no ${start}`);
  return xml.slice(at, xml.indexOf(end, at) + end.length);
}

/** Numbering: w:num by id → abstractNumId and level-0 start override; abstractNum by id. */
function numbering(xml: string) {
  const doc = parse(xml);
  const nums = new Map<string, { abstractNumId: string | null; startOverride: string | null; count: number }>();
  for (const num of elements(doc, 'num')) {
    const id = num.getAttributeNS(W, 'numId') ?? '';
    const override = children(num, 'lvlOverride').find((o) => o.getAttributeNS(W, 'ilvl') === '0');
    const previous = nums.get(id);
    nums.set(id, {
      abstractNumId: val(child(num, 'abstractNumId')),
      startOverride: override ? val(child(override, 'startOverride')) : null,
      count: (previous?.count ?? 0) + 1,
    });
  }
  const abstracts = new Map<string, Element>();
  for (const a of elements(doc, 'abstractNum')) abstracts.set(a.getAttributeNS(W, 'abstractNumId') ?? '', a);
  return { nums, abstracts };
}

function level(
  abstract: Element,
  ilvl: number,
): { start: string | null; numFmt: string | null; lvlText: string | null } {
  const lvl = children(abstract, 'lvl').find((l) => l.getAttributeNS(W, 'ilvl') === String(ilvl));
  if (!lvl) return { start: null, numFmt: null, lvlText: null };
  return { start: val(child(lvl, 'start')), numFmt: val(child(lvl, 'numFmt')), lvlText: val(child(lvl, 'lvlText')) };
}

const TEMPLATE_NUM_IDS = ['1', '2', '3'];
const TEMPLATE_ABSTRACT_IDS = ['0', '1', '2'];
const TEMPLATE_NSIDS = ['FFFFFF89', 'FFFFFF88', '5A8E2C14'];

describe('a Word-made template with a mapping to its styles', async () => {
  const result = await run(MARKDOWN, CORPORATE, RULES);
  const documentXml = part(result.docx, 'word/document.xml');
  const doc = parse(documentXml);
  const parts = unzipSync(result.docx);

  it('converts without warnings into a schema-valid document', async () => {
    expect(result.warnings).toEqual([]);
    expect(result.stats).toEqual({ headings: 1, paragraphs: 13, lists: 5, tables: 1, code_blocks: 1, images: 0 });
    await expectValid(result.docx);
  });

  it('puts every element in its mapped style', () => {
    const ids = styleIds(templateText('word/styles.xml'));
    const expected: [string, string][] = [
      ['Heading one text', 'Heading1'],
      ['Body paragraph with a link text and https://docwright.example/auto.', 'CorpBody'],
      ['Intervening paragraph.', 'CorpBody'],
      ['Quoted words', 'CorpQuote'],
      [CODE_TEXT, 'CorpCode'],
      ['bullet level zero', 'ListBullet'],
      ['bullet level one', 'ListBullet'],
      ['bullet level two', 'ListBullet'],
      ['first list one', 'ListNumber'],
      ['second list six', 'ListNumber'],
    ];
    for (const [text, style] of expected) {
      expect(ids.has(style)).toBe(true);
      expect(pStyle(paragraph(doc, text)), text).toBe(style);
    }
    const tables = elements(doc, 'tbl');
    expect(tables).toHaveLength(1);
    const tblPr = child(tables[0] as Element, 'tblPr');
    expect(tblPr ? val(child(tblPr, 'tblStyle')) : null).toBe('CorpTable');
    expectStyleReferencesResolve(result.docx);
  });

  it('finds "Heading 1" (any case) as Word\'s built-in "heading 1"', async () => {
    for (const name of ['Heading 1', 'HEADING 1', 'heading 1']) {
      const { docx, warnings } = await run('# Title\n\nText.', CORPORATE, { ...RULES, heading: { '1': name } });
      expect(warnings, name).toEqual([]);
      expect(pStyle(paragraph(parse(part(docx, 'word/document.xml')), 'Title')), name).toBe('Heading1');
      if (name === 'Heading 1') await expectValid(docx);
    }
  });

  it('writes code at 9 pt in a monospaced font, whatever the code style says', () => {
    const code = elements(doc, 'p').filter((p) => pStyle(p) === 'CorpCode');
    // One paragraph: the style's spacing goes around the block, the lines are separated by a line break.
    expect(code.map(textOf)).toEqual([CODE_TEXT]);
    expect(elements(code[0] as Element, 'br')).toHaveLength(1);
    const monospaced = new Set([
      'Consolas',
      'Courier New',
      'Cascadia Mono',
      'Menlo',
      'Liberation Mono',
      'DejaVu Sans Mono',
    ]);
    for (const p of code) {
      const runs = children(p, 'r');
      expect(runs.length).toBeGreaterThan(0);
      for (const r of runs) {
        const rPr = child(r, 'rPr');
        expect(rPr, textOf(p)).toBeDefined();
        const fonts = rPr ? child(rPr, 'rFonts') : undefined;
        expect(monospaced.has(fonts?.getAttributeNS(W, 'ascii') ?? '')).toBe(true);
        expect(fonts?.getAttributeNS(W, 'hAnsi')).toBe(fonts?.getAttributeNS(W, 'ascii'));
        expect(rPr ? val(child(rPr, 'sz')) : null).toBe('18');
      }
    }
    // The tab of the second line is a real tab.
    expect(elements(code[0] as Element, 'tab')).toHaveLength(1);
  });

  it("numbers a list in the numbering its mapped style carries, nested levels the style lacks in Docwright's, leaving the template's numbering alone", () => {
    const items = ['bullet level zero', 'bullet level one', 'bullet level two'].map((t) => numPr(paragraph(doc, t)));
    expect(items.map((i) => i.ilvl)).toEqual(['0', '1', '2']);
    const numberingXml = part(result.docx, 'word/numbering.xml');
    const { nums, abstracts } = numbering(numberingXml);
    const listParagraphs = elements(doc, 'p').filter((p) => numPr(p).numId !== null);
    expect(listParagraphs.map(textOf)).toEqual([
      'bullet level zero',
      'bullet level one',
      'bullet level two',
      'first list one',
      'first list two',
      'second list five',
      'second list six',
    ]);
    for (const p of listParagraphs) {
      const { numId, ilvl } = numPr(p);
      expect(TEMPLATE_NUM_IDS).not.toContain(numId);
      const num = nums.get(numId ?? '');
      expect(num, `w:num ${String(numId)}`).toBeDefined();
      expect(num?.count).toBe(1);
      const abstractId = num?.abstractNumId ?? '';
      const abstract = abstracts.get(abstractId);
      expect(abstract, `abstractNum ${abstractId}`).toBeDefined();
      if (!abstract) continue;
      const ordered = pStyle(p) === 'ListNumber';
      if (ilvl === '0') {
        // The template's List Bullet and List Number numbering (single-level, Word's own): its symbols and indents.
        expect(abstractId).toBe(ordered ? '1' : '0');
        continue;
      }
      // Nested levels the single-level template numbering lacks: Docwright's nine-level definitions.
      expect(TEMPLATE_ABSTRACT_IDS).not.toContain(abstractId);
      expect(children(abstract, 'lvl')).toHaveLength(9);
      expect(TEMPLATE_NSIDS).not.toContain(val(child(abstract, 'nsid')));
      const levels = [0, 1, 2].map((l) => level(abstract, l));
      expect(levels.map((l) => l.numFmt)).toEqual(['bullet', 'bullet', 'bullet']);
      expect(levels.map((l) => l.lvlText)).toEqual(['\u2022', '\u25E6', '\u25AA']);
    }
    // The template's own lists are all still there, unchanged.
    const template = templateText('word/numbering.xml');
    for (const id of TEMPLATE_NUM_IDS)
      expect(numberingXml).toContain(rawElement(template, `<w:num w:numId="${id}"`, '</w:num>'));
    for (const id of TEMPLATE_ABSTRACT_IDS) {
      expect(numberingXml).toContain(
        rawElement(template, `<w:abstractNum w:abstractNumId="${id}"`, '</w:abstractNum>'),
      );
    }
  });

  it('restarts each list and starts an ordered list at its first number', () => {
    const first = numPr(paragraph(doc, 'first list one')).numId;
    const second = numPr(paragraph(doc, 'second list five')).numId;
    expect(numPr(paragraph(doc, 'first list two')).numId).toBe(first);
    expect(numPr(paragraph(doc, 'second list six')).numId).toBe(second);
    expect(first).not.toBe(second);
    const bullets = ['bullet level zero', 'bullet level one', 'bullet level two'].map(
      (t) => numPr(paragraph(doc, t)).numId,
    );
    expect(bullets).not.toContain(first);
    expect(bullets).not.toContain(second);
    const { nums, abstracts } = numbering(part(result.docx, 'word/numbering.xml'));
    const startOf = (numId: string | null) => {
      const num = nums.get(numId ?? '');
      const abstract = abstracts.get(num?.abstractNumId ?? '');
      return num?.startOverride ?? (abstract ? level(abstract, 0).start : null);
    };
    expect(startOf(first)).toBe('1');
    expect(startOf(second)).toBe('5');
  });

  it('repeats the first table row as a header row', () => {
    const rows = children(elements(doc, 'tbl')[0] as Element, 'tr');
    expect(rows).toHaveLength(3);
    const isHeader = (tr: Element) => {
      const trPr = child(tr, 'trPr');
      const header = trPr ? child(trPr, 'tblHeader') : undefined;
      if (!header) return false;
      const v = val(header);
      return v === null || !['off', '0', 'false'].includes(v);
    };
    expect(rows.map(isHeader)).toEqual([true, false, false]);
    expect(textOf(rows[0] as Element)).toBe('Head AHead B');
    expect(textOf(rows[2] as Element)).toBe('Cell 3Cell 4');
  });

  it('makes links real hyperlinks with external relationships', () => {
    const rels = parse(part(result.docx, 'word/_rels/document.xml.rels'));
    const byId = new Map(elements(rels, 'Relationship', PKG).map((r) => [r.getAttribute('Id') ?? '', r]));
    const links = elements(doc, 'hyperlink');
    expect(links.map(textOf)).toEqual(['link text', AUTOLINK]);
    const targets = links.map((link) => {
      const id = link.getAttributeNS(R, 'id') ?? '';
      const rel = byId.get(id);
      expect(rel, `relationship ${id}`).toBeDefined();
      expect(rel?.getAttribute('Type')).toBe(HYPERLINK);
      expect(rel?.getAttribute('TargetMode')).toBe('External');
      return rel?.getAttribute('Target');
    });
    expect(targets).toEqual([LINK, AUTOLINK]);
    // The template's relationships are kept with their ids.
    const templateRels = parse(templateText('word/_rels/document.xml.rels'));
    for (const rel of elements(templateRels, 'Relationship', PKG)) {
      const kept = byId.get(rel.getAttribute('Id') ?? '');
      expect(kept?.getAttribute('Target')).toBe(rel.getAttribute('Target'));
      expect(kept?.getAttribute('Type')).toBe(rel.getAttribute('Type'));
    }
  });

  it('turns a rule into a page break: the next paragraph starts a page', () => {
    // A page break is the next block's pageBreakBefore (docs/elements.md), not a paragraph of its own.
    expect(elements(doc, 'br').filter((br) => br.getAttributeNS(W, 'type') === 'page')).toHaveLength(0);
    const breaks = elements(doc, 'pageBreakBefore');
    expect(breaks).toHaveLength(1);
    const paragraph = breaks[0]?.parentNode?.parentNode;
    expect(paragraph?.textContent).toContain('After the rule');
    const at = documentXml.indexOf('<w:pageBreakBefore/>');
    expect(at).toBeGreaterThan(documentXml.indexOf('Before the rule.'));
    expect(at).toBeLessThan(documentXml.indexOf('After the rule'));
  });

  it("keeps all the template's styles with their ids and definitions", () => {
    const template = templateText('word/styles.xml');
    const output = part(result.docx, 'word/styles.xml');
    const templateIds = [...styleIds(template)];
    expect(templateIds).toHaveLength(19);
    const outputIds = [...styleIds(output)];
    expect(outputIds.slice(0, templateIds.length)).toEqual(templateIds);
    // Each style element, the document defaults and the latent styles are there byte for byte.
    for (const style of template.match(/<w:style\b[\s\S]*?<\/w:style>/g) ?? []) expect(output).toContain(style);
    expect(output).toContain(rawElement(template, '<w:docDefaults>', '</w:docDefaults>'));
    expect(output).toContain(rawElement(template, '<w:latentStyles', '</w:latentStyles>'));
    const heading1 = elements(parse(output), 'style').find((s) => s.getAttributeNS(W, 'styleId') === 'Heading1');
    expect(heading1).toBeDefined();
    const rPr = heading1 ? child(heading1, 'rPr') : undefined;
    expect(rPr ? val(child(rPr, 'color')) : null).toBe('C00000');
    expect(heading1 ? val(child(heading1, 'name')) : null).toBe('heading 1');
  });

  it('keeps theme, header, footer, their media, settings and the other template parts byte for byte', () => {
    const identical = [
      'word/theme/theme1.xml',
      'word/header1.xml',
      'word/footer1.xml',
      'word/_rels/header1.xml.rels',
      'word/media/image1.png',
      'word/settings.xml',
      'word/fontTable.xml',
      'word/webSettings.xml',
      'word/endnotes.xml',
      '_rels/.rels',
    ];
    for (const path of identical) {
      const mine = parts[path];
      expect(mine, path).toBeDefined();
      expect(
        Buffer.from(mine as Uint8Array).equals(Buffer.from(TEMPLATE_PARTS[path] as Uint8Array)),
        `${path} changed`,
      ).toBe(true);
    }
    expect(strFromU8(parts['word/settings.xml'] as Uint8Array)).toContain('<w:mirrorMargins/>');
    expect(strFromU8(parts['word/header1.xml'] as Uint8Array)).toContain('ACME Corporation Internal');
  });

  it('keeps the page setup and the header and footer references of the section', () => {
    const sections = elements(doc, 'sectPr');
    expect(sections).toHaveLength(1);
    const sectPr = sections[0] as Element;
    expect(sectPr.parentNode).toBe(body(doc));
    const templateSectPr = rawElement(templateText('word/document.xml'), '<w:sectPr', '</w:sectPr>');
    expect(documentXml).toContain(templateSectPr);
    const pgSz = child(sectPr, 'pgSz');
    expect([pgSz?.getAttributeNS(W, 'w'), pgSz?.getAttributeNS(W, 'h')]).toEqual(['8391', '11906']);
    const pgMar = child(sectPr, 'pgMar');
    expect(['top', 'right', 'bottom', 'left', 'header', 'footer'].map((a) => pgMar?.getAttributeNS(W, a))).toEqual([
      '1418',
      '851',
      '1418',
      '1134',
      '567',
      '567',
    ]);
    const rels = new Map(
      elements(parse(part(result.docx, 'word/_rels/document.xml.rels')), 'Relationship', PKG).map((r) => [
        r.getAttribute('Id') ?? '',
        r.getAttribute('Target'),
      ]),
    );
    const header = child(sectPr, 'headerReference');
    const footer = child(sectPr, 'footerReference');
    expect(rels.get(header?.getAttributeNS(R, 'id') ?? '')).toBe('header1.xml');
    expect(rels.get(footer?.getAttributeNS(R, 'id') ?? '')).toBe('footer1.xml');
  });

  it('replaces the {{content}} paragraph, keeping the cover before the content and the signature after it', () => {
    expect(documentXml).not.toContain('{{con');
    expect(documentXml).not.toContain('tent}}');
    expect(documentXml).not.toContain('spellStart');
    const blocks = children(body(doc)).filter((el) => el.localName !== 'sectPr');
    expect(textOf(blocks[0] as Element)).toBe('Corporate Cover Page');
    expect(textOf(blocks[1] as Element)).toBe('Heading one text');
    expect(textOf(blocks[blocks.length - 1] as Element)).toBe('Signature block');
    expect(textOf(blocks[blocks.length - 2] as Element)).toBe('After the rule.');
    // The kept paragraphs are the template's own, attributes and all.
    const template = templateText('word/document.xml');
    expect(documentXml).toContain(rawElement(template, '<w:p w14:paraId="0F3A21C4"', '</w:p>'));
    expect(documentXml).toContain(rawElement(template, '<w:p w14:paraId="6E1F0A38"', '</w:p>'));
    const cover = documentXml.indexOf('Corporate Cover Page');
    expect(cover).toBeLessThan(documentXml.indexOf('Heading one text'));
    expect(documentXml.indexOf('After the rule')).toBeLessThan(documentXml.indexOf('Signature block'));
  });

  it("writes the footnote into the template's footnotes, after its separators", () => {
    const footnotes = part(result.docx, 'word/footnotes.xml');
    const ids = elements(parse(footnotes), 'footnote').map((f) => f.getAttributeNS(W, 'id'));
    expect(ids.slice(0, 2)).toEqual(['-1', '0']);
    expect(ids).toHaveLength(3);
    expect(footnotes).toContain('The footnote text.');
    const reference = elements(doc, 'footnoteReference')[0];
    expect(reference?.getAttributeNS(W, 'id')).toBe(ids[2]);
  });

  it('with a template without a placeholder, the content is the whole body', async () => {
    const nobody = await run(MARKDOWN, NOBODY, RULES);
    expect(nobody.warnings).toEqual([]);
    const xml = part(nobody.docx, 'word/document.xml');
    expect(xml).not.toContain('Template sample text');
    const nobodyDoc = parse(xml);
    const blocks = children(body(nobodyDoc));
    expect(blocks[blocks.length - 1]?.localName).toBe('sectPr');
    expect(textOf(blocks[0] as Element)).toBe('Heading one text');
    expect(textOf(blocks[blocks.length - 2] as Element)).toBe('After the rule.');
    // The same content as between the cover and the signature of the placeholder template.
    const content = (x: string, from: RegExp, to: RegExp) => {
      const start = (from.exec(x)?.index ?? -1) + (from.exec(x)?.[0].length ?? 0);
      return x.slice(start, to.exec(x)?.index ?? -1);
    };
    const withPlaceholder = content(
      documentXml,
      /Corporate Cover Page<\/w:t><\/w:r><\/w:p>/,
      /<w:p w14:paraId="6E1F0A38"/,
    );
    const whole = content(xml, /<w:body>/, /<w:sectPr/);
    expect(whole.length).toBeGreaterThan(1000);
    expect(whole).toBe(withPlaceholder);
    expect(xml).toContain(rawElement(templateText('word/document.xml'), '<w:sectPr', '</w:sectPr>'));
    expectStyleReferencesResolve(nobody.docx);
    await expectValid(nobody.docx);
  });
});

describe('styles the template lacks', () => {
  it('a mapping naming a missing style gives one warning and only references existing styles', async () => {
    const rules: MappingRules = { ...RULES, paragraph: 'No Such Style', code_block: 'No Such Style' };
    const { docx, warnings } = await run(MARKDOWN, CORPORATE, rules);
    expect(warnings).toEqual(['missing_style: No Such Style']);
    const doc = parse(part(docx, 'word/document.xml'));
    // The paragraph and the code fall back to built-in formatting; the rest keeps its mapped style.
    expect(pStyle(paragraph(doc, 'Intervening paragraph.'))).toBeNull();
    expect(pStyle(paragraph(doc, CODE_TEXT))).toBeNull();
    expect(pStyle(paragraph(doc, 'Quoted words'))).toBe('CorpQuote');
    expect(pStyle(paragraph(doc, 'Heading one text'))).toBe('Heading1');
    const code = paragraph(doc, CODE_TEXT);
    const rPr = child(children(code, 'r')[0] as Element, 'rPr');
    expect(rPr ? val(child(rPr, 'sz')) : null).toBe('18');
    expect(part(docx, 'word/document.xml')).not.toMatch(/No ?Such ?Style/);
    expectStyleReferencesResolve(docx);
    await expectValid(docx);
  });

  it('a table style named for paragraphs is reported missing', async () => {
    const { docx, warnings } = await run(MARKDOWN, CORPORATE, { ...RULES, paragraph: 'Corp Table' });
    expect(warnings).toEqual(['missing_style: Corp Table']);
    const doc = parse(part(docx, 'word/document.xml'));
    expect(pStyle(paragraph(doc, 'Intervening paragraph.'))).toBeNull();
    expect(elements(doc, 'pStyle').map(val)).not.toContain('CorpTable');
    // As a table style it is still used where it belongs.
    expect(elements(doc, 'tblStyle').map(val)).toEqual(['CorpTable']);
    expectStyleReferencesResolve(docx);
    await expectValid(docx);
  });

  it('a paragraph style named for a table is reported missing too', async () => {
    const { docx, warnings } = await run(MARKDOWN, CORPORATE, { ...RULES, table: { style: 'Corp Body' } });
    expect(warnings).toEqual(['missing_style: Corp Body']);
    const doc = parse(part(docx, 'word/document.xml'));
    expect(elements(doc, 'tblStyle').map(val)).not.toContain('CorpBody');
    expectStyleReferencesResolve(docx);
    await expectValid(docx);
  });
});
