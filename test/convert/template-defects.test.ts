// Defects real templates exposed (issue 14): namespaces a part uses but does not declare ignorable, mapped list
// styles losing their numbering, multi-section templates collapsing, the template's own notes and comments leaking
// into the output. Each test runs a real template end to end.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DOMParser, XMLSerializer, type Document as XmlDocument, type Element } from '@xmldom/xmldom';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate, readTemplate } from '../../server/convert/index.ts';
import { fixture, part, partNames, validateDocx } from '../helpers/docx.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const MC = 'http://schemas.openxmlformats.org/markup-compatibility/2006';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const created = new Date('2026-01-02T03:04:05Z');
const PYTHON_DOCX = fixture('corpus-extra', 'templates', 'python-docx-default.docx');
const THESIS = resolve(import.meta.dirname, '../../../shared/corpus/templates/ntu-dissertation-template.docx');

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
const val = (el: Element | undefined): string => el?.getAttributeNS(W, 'val') ?? '';
const first = (root: Element, name: string): Element | undefined => all(root, name)[0];
const text = (el: Element): string =>
  all(el, 't')
    .map((t) => t.textContent ?? '')
    .join('');

const LISTS = '- bullet one\n- bullet two\n\n1. first one\n2. first two\n\nBetween.\n\n5. fifth\n6. sixth\n';

describe('a Word 2010-era template whose numbering does not list w15 as ignorable (python-docx default)', async () => {
  const result = await convert({ markdown: LISTS, template: PYTHON_DOCX, created });
  const numbering = parse(part(result.docx, 'word/numbering.xml'));

  it('is schema-valid with our list definitions in it: w15 (restartNumberingAfterBreak) declared and ignorable', async () => {
    const rules = { list_bullet: 'List Paragraph', list_ordered: 'List Paragraph' };
    const ours = await convert({ markdown: LISTS, template: PYTHON_DOCX, mapping: { rules }, created });
    const root = parse(part(ours.docx, 'word/numbering.xml')).documentElement;
    expect(root?.getAttributeNS(MC, 'Ignorable')?.split(' ')).toContain('w15');
    const { ok, report } = await validateDocx(ours.docx);
    expect(ok, report).toBe(true);
  });

  it('is schema-valid with its own list styles mapped', async () => {
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('numbers each list in the numbering its mapped style carries, restarting each list where ours starts', () => {
    const styles = parse(part(result.docx, 'word/styles.xml'));
    const styleNum = (id: string) =>
      val(first(all(styles, 'style').find((s) => s.getAttributeNS(W, 'styleId') === id) as Element, 'numId'));
    const abstractOf = (numId: string) =>
      val(first(all(numbering, 'num').find((n) => n.getAttributeNS(W, 'numId') === numId) as Element, 'abstractNumId'));
    const doc = parse(part(result.docx, 'word/document.xml'));
    const items = all(doc, 'p').filter((p) => all(p, 'numId').length > 0);
    expect(items.map(text)).toEqual(['bullet one', 'bullet two', 'first one', 'first two', 'fifth', 'sixth']);
    const numIds = items.map((p) => val(first(p, 'numId')));
    // The template's own List Bullet / List Number definitions, one w:num per list.
    expect(abstractOf(numIds[0] ?? '')).toBe(abstractOf(styleNum('ListBullet')));
    expect(abstractOf(numIds[2] ?? '')).toBe(abstractOf(styleNum('ListNumber')));
    expect(abstractOf(numIds[4] ?? '')).toBe(abstractOf(styleNum('ListNumber')));
    expect(new Set(numIds).size).toBe(3);
    const start = (numId: string) => {
      const num = all(numbering, 'num').find((n) => n.getAttributeNS(W, 'numId') === numId) as Element;
      const override = all(num, 'lvlOverride').find((o) => o.getAttributeNS(W, 'ilvl') === '0');
      return override ? val(first(override, 'startOverride')) : null;
    };
    expect([start(numIds[2] ?? ''), start(numIds[4] ?? '')]).toEqual(['1', '5']);
  });

  it('gives two lists with the same start separate numbering instances', async () => {
    const result2 = await convert({ markdown: '1. a\n2. b\n\nText.\n\n1. c\n', template: PYTHON_DOCX, created });
    const doc = parse(part(result2.docx, 'word/document.xml'));
    const ids = all(doc, 'p')
      .filter((p) => all(p, 'numId').length > 0)
      .map((p) => val(first(p, 'numId')));
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
  });
});

describe.runIf(existsSync(THESIS))('a thesis template with nine sections (no placeholder)', async () => {
  const template = new Uint8Array(readFileSync(THESIS));
  const result = await convert({ markdown: '# Chapter\n\nThe converted text.\n', template, created });

  it('keeps its last section, with the headers and footers it showed, the content in it; the eight before, empty once the sample text goes, become no pages (issue 32)', () => {
    const templateSections = all(
      parse(strFromU8(unzipSync(template)['word/document.xml'] ?? new Uint8Array())),
      'sectPr',
    );
    expect(templateSections).toHaveLength(9);
    // What the last section showed: its own references, else the nearest earlier section's, by slot.
    const shown = new Map<string, string>();
    const slots = (sectPr: Element): Map<string, string> =>
      new Map(
        [...all(sectPr, 'headerReference'), ...all(sectPr, 'footerReference')].map((r) => [
          `${r.localName ?? ''}:${r.getAttributeNS(W, 'type') ?? ''}`,
          r.getAttributeNS(R, 'id') ?? '',
        ]),
      );
    for (const sectPr of templateSections) for (const [slot, id] of slots(sectPr)) shown.set(slot, id);
    const withoutReferences = (sectPr: Element): string => {
      const copy = sectPr.cloneNode(true) as Element;
      for (const r of [...all(copy, 'headerReference'), ...all(copy, 'footerReference')]) copy.removeChild(r);
      return new XMLSerializer().serializeToString(copy);
    };
    const out = parse(part(result.docx, 'word/document.xml'));
    const sections = all(out, 'sectPr');
    expect(sections).toHaveLength(1);
    const [only] = sections as [Element];
    expect(withoutReferences(only)).toBe(withoutReferences(templateSections[8] as Element));
    expect(slots(only)).toEqual(shown);
    const body = first(out.documentElement as Element, 'body') as Element;
    expect(all(body, 'p').map(text)).toEqual(['Chapter', 'The converted text.']);
  });

  it("leaves the template's sample text out", () => {
    const out = parse(part(result.docx, 'word/document.xml'));
    const words = all(out, 't')
      .map((t) => t.textContent ?? '')
      .join(' ');
    expect(words.trim()).toBe('Chapter The converted text.');
  });
});

/** The corporate template with a sample footnote, a sample endnote and a reviewer's comment of its own. */
function templateWithLeftovers(): Uint8Array {
  const parts = unzipSync(fixture('templates', 'corporate.docx'));
  const add = (path: string, tag: 'footnote' | 'endnote', words: string) => {
    const doc = parse(strFromU8(parts[path] ?? new Uint8Array()));
    const note = doc.createElementNS(W, `w:${tag}`);
    note.setAttributeNS(W, 'w:id', '1');
    const p = doc.createElementNS(W, 'w:p');
    const r = doc.createElementNS(W, 'w:r');
    const t = doc.createElementNS(W, 'w:t');
    t.appendChild(doc.createTextNode(words));
    r.appendChild(t);
    p.appendChild(r);
    note.appendChild(p);
    doc.documentElement?.appendChild(note);
    parts[path] = strToU8(new XMLSerializer().serializeToString(doc));
  };
  add('word/footnotes.xml', 'footnote', 'Template sample footnote');
  add('word/endnotes.xml', 'endnote', 'Template sample endnote');
  parts['word/comments.xml'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:comments xmlns:w="${W}"><w:comment w:id="0" w:author="Reviewer"><w:p><w:r><w:t>Template reviewer comment</w:t></w:r></w:p></w:comment></w:comments>`,
  );
  const rels = parse(strFromU8(parts['word/_rels/document.xml.rels'] ?? new Uint8Array()));
  const rel = rels.createElementNS('http://schemas.openxmlformats.org/package/2006/relationships', 'Relationship');
  rel.setAttribute('Id', 'rIdComments');
  rel.setAttribute('Type', 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments');
  rel.setAttribute('Target', 'comments.xml');
  rels.documentElement?.appendChild(rel);
  parts['word/_rels/document.xml.rels'] = strToU8(new XMLSerializer().serializeToString(rels));
  const types = parse(strFromU8(parts['[Content_Types].xml'] ?? new Uint8Array()));
  const override = types.createElementNS('http://schemas.openxmlformats.org/package/2006/content-types', 'Override');
  override.setAttribute('PartName', '/word/comments.xml');
  override.setAttribute('ContentType', 'application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml');
  types.documentElement?.appendChild(override);
  parts['[Content_Types].xml'] = strToU8(new XMLSerializer().serializeToString(types));
  return zipSync(parts);
}

describe("a template's own notes and comments", async () => {
  const result = await convert({
    markdown: 'Our text[^n].\n\n[^n]: Our footnote.\n',
    template: templateWithLeftovers(),
    created,
  });

  it('are not carried into the output; separators and our notes are', async () => {
    const footnotes = parse(part(result.docx, 'word/footnotes.xml'));
    const notes = all(footnotes, 'footnote');
    expect(notes.map((n) => n.getAttributeNS(W, 'type') || text(n).trim())).toEqual([
      'separator',
      'continuationSeparator',
      'Our footnote.',
    ]);
    const endnotes = parse(part(result.docx, 'word/endnotes.xml'));
    expect(all(endnotes, 'endnote').map((n) => n.getAttributeNS(W, 'type'))).toEqual([
      'separator',
      'continuationSeparator',
    ]);
    if (partNames(result.docx).includes('word/comments.xml'))
      expect(all(parse(part(result.docx, 'word/comments.xml')), 'comment')).toHaveLength(0);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});

describe('HTML comments as Word comments (`comments: "word"`) in a template with comments of its own', () => {
  it("take the part's place of the template's comments its text no longer anchors", async () => {
    const result = await convert({
      markdown: 'Our text <!-- our comment --> here.\n',
      template: templateWithLeftovers(),
      mapping: { comments: 'word' },
      created,
    });
    const comments = all(parse(part(result.docx, 'word/comments.xml')), 'comment');
    expect(comments.map((c) => [c.getAttributeNS(W, 'id'), c.getAttributeNS(W, 'author'), text(c).trim()])).toEqual([
      ['0', 'Markdown', 'our comment'],
    ]);
    const body = part(result.docx, 'word/document.xml');
    expect(body).toContain('<w:commentReference w:id="0"/>');
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});

/** A two-section template: `{{content}}` in the first, landscape section; an appendix in the second, portrait one. */
function landscapeFirstTemplate(): Uint8Array {
  const margins =
    '<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/>';
  const document =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>` +
    '<w:p><w:r><w:t>{{content}}</w:t></w:r></w:p>' +
    `<w:p><w:pPr><w:sectPr><w:pgSz w:w="16838" w:h="11906" w:orient="landscape"/>${margins}</w:sectPr></w:pPr></w:p>` +
    '<w:p><w:r><w:t>Appendix</w:t></w:r></w:p>' +
    `<w:sectPr><w:pgSz w:w="11906" w:h="16838"/>${margins}</w:sectPr></w:body></w:document>`;
  return zipSync({
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    '_rels/.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    'word/document.xml': strToU8(document),
  });
}

describe('a template whose {{content}} stands in a landscape first section', async () => {
  const template = landscapeFirstTemplate();
  const result = await convert({ markdown: 'Our text.\n\n| A | B |\n| - | - |\n| 1 | 2 |\n', template, created });
  const doc = parse(part(result.docx, 'word/document.xml'));

  it('keeps both sections; the content lands in the first and the appendix stays in the second', () => {
    const body = first(doc.documentElement as Element, 'body') as Element;
    const blocks: string[] = [];
    for (let n = body.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      const el = n as Element;
      blocks.push(
        all(el, 'sectPr').length > 0 || el.localName === 'sectPr'
          ? 'section'
          : el.localName === 'tbl'
            ? 'table'
            : text(el),
      );
    }
    expect(blocks).toEqual(['Our text.', 'table', 'section', 'Appendix', 'section']);
    expect(all(doc, 'pgSz').map((s) => s.getAttributeNS(W, 'orient') || 'portrait')).toEqual(['landscape', 'portrait']);
  });

  it('sizes tables to the landscape page the content lands on', async () => {
    expect(first(first(doc.documentElement as Element, 'tbl') as Element, 'tblW')?.getAttributeNS(W, 'w')).toBe(
      String(16838 - 2 * 1440),
    );
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});

describe('a template read once and reused', () => {
  it('gives the same bytes every time (what the package works out per template is only read)', async () => {
    const template = readTemplate(templateWithLeftovers());
    const markdown = 'Text[^a].\n\n- one\n- two\n\n[^a]: A note with a [link](https://example.com/).\n';
    const first = (await convert({ markdown, template, created })).docx;
    await convert({ markdown: '# Other\n\n1. x\n', template, created });
    expect(Buffer.from((await convert({ markdown, template, created })).docx).equals(Buffer.from(first))).toBe(true);
  });
});

describe('a template whose parts declare WordprocessingML as their default namespace (no w: on elements)', () => {
  /** The built-in template rewritten so: elements unprefixed under xmlns=W; attributes keep w: (declared too). */
  function defaultNamespaceTemplate(): Uint8Array {
    const files = unzipSync(defaultTemplate());
    for (const [name, data] of Object.entries(files)) {
      if (!/\.xml$/.test(name)) continue;
      const xml = strFromU8(data);
      if (!xml.includes(`xmlns:w="${W}"`)) continue;
      files[name] = strToU8(xml.replace(`xmlns:w="${W}"`, `xmlns="${W}" xmlns:w="${W}"`).replace(/(<\/?)w:/g, '$1'));
    }
    return zipSync(files);
  }

  it('converts lists, notes and links into a schema-valid document (the w prefix is found, not assumed)', async () => {
    const markdown =
      '# Head\n\n- one\n  - two\n\n1. first\n\nText[^1] and [a link](https://example.com).\n\n[^1]: A note.\n';
    const result = await convert({ markdown, template: defaultNamespaceTemplate(), created });
    const body = parse(part(result.docx, 'word/document.xml'));
    expect(all(body, 'numId').length).toBeGreaterThanOrEqual(3);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});
