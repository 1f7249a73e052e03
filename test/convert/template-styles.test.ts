// What a reader sees of a template's own look (issue 32): the styles Docwright adds inherit from the template's
// default styles, whatever their ids (item 2), and a mapped style's own numbering stays off code, quotes and body
// paragraphs (item 4). Each test converts through a real template end to end and validates the output.
import { DOMParser, type Document as XmlDocument, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';
import { withParts } from '../helpers/hostile-template.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const created = new Date('2026-01-02T03:04:05Z');
const parse = (xml: string): XmlDocument => new DOMParser().parseFromString(xml, 'text/xml');
const all = (root: XmlDocument | Element, name: string): Element[] => {
  const list = root.getElementsByTagNameNS(W, name);
  const out: Element[] = [];
  for (let i = 0; i < list.length; i++) {
    const el = list.item(i);
    if (el) out.push(el);
  }
  return out;
};
const val = (el: Element | undefined): string | undefined => el?.getAttributeNS(W, 'val') ?? undefined;
const child = (el: Element | undefined, name: string): Element | undefined =>
  el ? all(el, name).find((c) => c.parentNode === el) : undefined;
const styleById = (styles: XmlDocument, id: string): Element | undefined =>
  all(styles, 'style').find((s) => s.getAttributeNS(W, 'styleId') === id);
const text = (el: Element): string =>
  all(el, 't')
    .map((t) => t.textContent ?? '')
    .join('');

const STYLES_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="${W}">`;

/**
 * A localised template's styles, as Chinese Word writes them: Normal is `a`, Default Paragraph Font `a0`; Normal sets
 * 12 pt and 1.5 lines over 10 pt single-spaced document defaults; no List Paragraph, no footnote reference.
 */
const LOCALISED_STYLES =
  STYLES_HEAD +
  '<w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="20"/><w:lang w:val="en-US" w:eastAsia="zh-CN"/></w:rPr></w:rPrDefault><w:pPrDefault/></w:docDefaults>' +
  '<w:style w:type="paragraph" w:default="1" w:styleId="a"><w:name w:val="Normal"/><w:qFormat/><w:pPr><w:spacing w:line="360" w:lineRule="auto"/></w:pPr><w:rPr><w:sz w:val="24"/></w:rPr></w:style>' +
  '<w:style w:type="character" w:default="1" w:styleId="a0"><w:name w:val="Default Paragraph Font"/><w:uiPriority w:val="1"/><w:semiHidden/><w:unhideWhenUsed/></w:style>' +
  '<w:style w:type="paragraph" w:styleId="1"><w:name w:val="heading 1"/><w:basedOn w:val="a"/><w:next w:val="a"/><w:qFormat/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>' +
  '</w:styles>';

describe('styles Docwright adds to a localised template (issue 32, item 2)', async () => {
  const template = withParts(defaultTemplate(), { 'word/styles.xml': LOCALISED_STYLES });
  const markdown = '# Lists\n\nBody text.[^n]\n\n- one\n- two\n\n1. first\n\n[^n]: A note.\n';
  const result = await convert({ markdown, template, mapping: { rules: { heading: { '1': 'heading 1' } } }, created });
  const styles = parse(part(result.docx, 'word/styles.xml'));

  it('List Paragraph is based on the template default paragraph style (a), not on Word defaults', () => {
    const list = styleById(styles, 'ListParagraph');
    expect(list, 'List Paragraph added').toBeDefined();
    expect(val(child(list, 'basedOn'))).toBe('a');
  });

  it('the footnote reference is based on the template default character style (a0)', () => {
    const reference = styleById(styles, 'FootnoteReference');
    expect(reference, 'footnote reference added').toBeDefined();
    expect(val(child(reference, 'basedOn'))).toBe('a0');
  });

  it('the list items refer to the added List Paragraph', () => {
    const body = parse(part(result.docx, 'word/document.xml'));
    const items = all(body, 'p').filter((p) => child(child(p, 'pPr'), 'numPr'));
    expect(items.map((p) => val(child(child(p, 'pPr'), 'pStyle')))).toEqual([
      'ListParagraph',
      'ListParagraph',
      'ListParagraph',
    ]);
  });

  it('is schema-valid', async () => {
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('a template without a default character style gets a footnote reference based on nothing', async () => {
    const bare = LOCALISED_STYLES.replace(/<w:style w:type="character" w:default="1".*?<\/w:style>/, '');
    const out = await convert({ markdown, template: withParts(template, { 'word/styles.xml': bare }), created });
    const added = parse(part(out.docx, 'word/styles.xml'));
    expect(styleById(added, 'FootnoteReference')).toBeDefined();
    expect(child(styleById(added, 'FootnoteReference'), 'basedOn')).toBeUndefined();
    expect(val(child(styleById(added, 'ListParagraph'), 'basedOn'))).toBe('a');
  });
});

/**
 * A template whose Plain Text style (纯文本, as Chinese government templates have it) carries the chapter numbering
 * ("第一章"), a quote style that inherits numbering from its base style, and a heading numbered the same way.
 */
const NUMBERED_STYLES =
  STYLES_HEAD +
  '<w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="24"/></w:rPr></w:rPrDefault><w:pPrDefault/></w:docDefaults>' +
  '<w:style w:type="paragraph" w:default="1" w:styleId="a"><w:name w:val="Normal"/></w:style>' +
  '<w:style w:type="paragraph" w:styleId="1"><w:name w:val="heading 1"/><w:basedOn w:val="a"/><w:pPr><w:numPr><w:numId w:val="7"/></w:numPr><w:outlineLvl w:val="0"/></w:pPr></w:style>' +
  '<w:style w:type="paragraph" w:styleId="af0"><w:name w:val="Plain Text"/><w:basedOn w:val="a"/><w:pPr><w:numPr><w:numId w:val="7"/></w:numPr></w:pPr><w:rPr><w:rFonts w:ascii="SimSun"/></w:rPr></w:style>' +
  '<w:style w:type="paragraph" w:customStyle="1" w:styleId="Numbered"><w:name w:val="Numbered Base"/><w:basedOn w:val="a"/><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="7"/></w:numPr></w:pPr></w:style>' +
  '<w:style w:type="paragraph" w:styleId="a7"><w:name w:val="Quote"/><w:basedOn w:val="Numbered"/><w:pPr><w:ind w:left="864"/></w:pPr></w:style>' +
  '<w:style w:type="paragraph" w:styleId="Unnumbered"><w:name w:val="Body Unnumbered"/><w:basedOn w:val="Numbered"/><w:pPr><w:numPr><w:numId w:val="0"/></w:numPr></w:pPr></w:style>' +
  '</w:styles>';
const NUMBERING =
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering xmlns:w="${W}">` +
  '<w:abstractNum w:abstractNumId="3"><w:multiLevelType w:val="multilevel"/>' +
  '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="chineseCounting"/><w:lvlText w:val="第%1章"/><w:lvlJc w:val="left"/></w:lvl>' +
  '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/><w:lvlJc w:val="left"/></w:lvl>' +
  '</w:abstractNum><w:num w:numId="7"><w:abstractNumId w:val="3"/></w:num></w:numbering>';

describe("a mapped style's own numbering on code, quotes and body text (issue 32, item 4)", async () => {
  const template = withParts(defaultTemplate(), {
    'word/styles.xml': NUMBERED_STYLES,
    'word/numbering.xml': NUMBERING,
  });
  const rules = {
    heading: { '1': 'heading 1' },
    paragraph: 'Body Unnumbered',
    code_block: 'Plain Text',
    blockquote: 'Quote',
    list_bullet: 'Plain Text',
  };
  const markdown =
    '# Chapter\n\n```\nfirst code\n```\n\nText.\n\n> A quote.\n\n```\nsecond code\n```\n\n> Another quote.\n\n- an item\n- another\n';
  const result = await convert({ markdown, template, mapping: { rules }, created });
  const body = parse(part(result.docx, 'word/document.xml'));
  const paragraph = (words: string): Element => {
    const p = all(body, 'p').find((q) => text(q).includes(words));
    if (!p) throw new Error(`no paragraph with ${words}`);
    return p;
  };
  const numPr = (p: Element) => child(child(p, 'pPr'), 'numPr');

  it('code blocks in the numbered Plain Text style have their numbering turned off (numId 0)', () => {
    for (const words of ['first code', 'second code']) {
      const p = paragraph(words);
      expect(val(child(child(p, 'pPr'), 'pStyle'))).toBe('af0');
      expect(val(child(numPr(p), 'numId')), words).toBe('0');
    }
  });

  it("keeps the style's own indentation on those paragraphs (LibreOffice drops it where numbering is turned off)", () => {
    const ind = child(child(paragraph('A quote.'), 'pPr'), 'ind');
    expect(ind?.getAttributeNS(W, 'left')).toBe('864');
    expect(child(child(paragraph('first code'), 'pPr'), 'ind')).toBeUndefined();
  });

  it('quotes whose style inherits numbering (basedOn) have it turned off too', () => {
    for (const words of ['A quote.', 'Another quote.']) expect(val(child(numPr(paragraph(words)), 'numId'))).toBe('0');
  });

  it('headings and list items keep their numbering; a style that turns numbering off itself is left alone', () => {
    expect(numPr(paragraph('Chapter'))).toBeUndefined();
    for (const words of ['an item', 'another']) expect(val(child(numPr(paragraph(words)), 'numId'))).not.toBe('0');
    expect(numPr(paragraph('Text.'))).toBeUndefined();
  });

  it('warns once per style, naming it', () => {
    const numbered = result.warnings.filter((w) => w.startsWith('style_numbering_off:'));
    expect(numbered).toEqual([
      'style_numbering_off: Plain Text (its numbering is not shown on code blocks)',
      'style_numbering_off: Quote (its numbering is not shown on quotes)',
    ]);
  });

  it('is schema-valid', async () => {
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});

describe('a title block line in a numbered style (issue 32, item 4)', async () => {
  it('has the numbering turned off too, with the warning', async () => {
    const template = withParts(defaultTemplate(), {
      'word/styles.xml': NUMBERED_STYLES,
      'word/numbering.xml': NUMBERING,
    });
    const markdown = '---\ntitle: The Report\n---\n\nText.\n';
    const result = await convert({ markdown, template, mapping: { rules: { title: 'Plain Text' } }, created });
    const body = parse(part(result.docx, 'word/document.xml'));
    const title = all(body, 'p').find((p) => text(p) === 'The Report');
    expect(val(child(child(child(title, 'pPr'), 'numPr'), 'numId'))).toBe('0');
    expect(result.warnings).toContain(
      'style_numbering_off: Plain Text (its numbering is not shown on the title block)',
    );
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});
