// Each reader's check (pages.ts) proved on hand-made documents, independently of the engine's fixes: a document
// converted with the built-in template passes every check; copies of it edited to carry one defect each (two leading
// sections that hold nothing, list text at 8 pt, a full-width table in a two-column section) fail that check, with
// a message naming the page; a template with a cover before its `{{content}}` passes "first page" with the cover
// on page 1. Every document is schema-valid and LibreOffice renders them all in one run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser, XMLSerializer, type Document as XmlDocument, type Element } from '@xmldom/xmldom';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert, defaultTemplate } from '../../server/convert/index.ts';
import { libreOfficePdfs, validateDocx } from '../helpers/docx.ts';
import { unzip } from './checks.ts';
import {
  emptyPagesCheck,
  firstPageCheck,
  headerFooterWords,
  listSizeCheck,
  markdownBlocks,
  readPdf,
  sectionBoxes,
  tableWidthCheck,
  type Page,
} from './pages.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const created = new Date('2026-01-01T00:00:00Z');

const MARKDOWN = `First words of the hand-made document, a paragraph long enough to be found.

Another body paragraph, plain text at the size of the body.

- A list item long enough to be found on the page
- Another list item, also long enough to be found

| Left column heading | Middle column heading | Right column heading |
| --- | --- | --- |
| alpha cell text one | beta cell text two | gamma cell text three |
`;

/** A copy of a package with one XML part changed through its DOM. */
function edit(docx: Uint8Array, path: string, change: (doc: XmlDocument) => void): Uint8Array {
  const parts = unzipSync(docx);
  const bytes = parts[path];
  if (!bytes) throw new Error(`no part ${path}`);
  const doc = new DOMParser().parseFromString(strFromU8(bytes), 'text/xml');
  change(doc);
  parts[path] = strToU8(new XMLSerializer().serializeToString(doc));
  return zipSync(parts);
}

const els = (root: XmlDocument | Element, name: string): Element[] => Array.from(root.getElementsByTagNameNS(W, name));

function wEl(doc: XmlDocument, name: string, attrs: Record<string, string> = {}, children: Element[] = []): Element {
  const el = doc.createElementNS(W, `w:${name}`);
  for (const [k, v] of Object.entries(attrs)) el.setAttributeNS(W, `w:${k}`, v);
  for (const c of children) el.appendChild(c);
  return el;
}

const body = (doc: XmlDocument): Element => {
  const b = els(doc, 'body')[0];
  if (!b) throw new Error('no w:body');
  return b;
};

/** Two paragraphs holding nothing but a copy of the last section's properties, before everything: two empty pages. */
const leadingSections = (doc: XmlDocument): void => {
  const b = body(doc);
  const last = els(doc, 'sectPr').at(-1);
  if (!last) throw new Error('no w:sectPr');
  for (let i = 0; i < 2; i++)
    b.insertBefore(wEl(doc, 'p', {}, [wEl(doc, 'pPr', {}, [last.cloneNode(true) as Element])]), b.firstChild);
};

/** Every run of a list paragraph (one with w:numPr) at 8 pt. */
const smallLists = (doc: XmlDocument): void => {
  for (const p of els(doc, 'p')) {
    if (els(p, 'numPr').length === 0) continue;
    for (const r of els(p, 'r'))
      r.insertBefore(
        wEl(doc, 'rPr', {}, [wEl(doc, 'sz', { val: '16' }), wEl(doc, 'szCs', { val: '16' })]),
        r.firstChild,
      );
  }
};

/** The last section set in two columns, the table kept at the page's full text width (9,069 twips in thirds). */
const twoColumnsFullTable = (doc: XmlDocument): void => {
  const sect = els(doc, 'sectPr').at(-1);
  if (!sect) throw new Error('no w:sectPr');
  const after = ['formProt', 'vAlign', 'noEndnote', 'titlePg', 'textDirection', 'bidi', 'rtlGutter', 'docGrid'];
  const next = Array.from(sect.childNodes).find((n) => after.includes((n as Element).localName ?? ''));
  sect.insertBefore(wEl(doc, 'cols', { num: '2', space: '720' }), next ?? null);
  for (const w of els(doc, 'tblW')) {
    w.setAttributeNS(W, 'w:type', 'dxa');
    w.setAttributeNS(W, 'w:w', '9069');
  }
  for (const w of [...els(doc, 'gridCol'), ...els(doc, 'tcW')]) w.setAttributeNS(W, 'w:w', '3023');
  for (const w of els(doc, 'tcW')) w.setAttributeNS(W, 'w:type', 'dxa');
};

/** The built-in template with a cover (a title and a page break) before its `{{content}}` paragraph. */
function coverTemplate(): Uint8Array {
  return edit(defaultTemplate(), 'word/document.xml', (doc) => {
    const placeholder = els(doc, 'p').find((p) => (p.textContent ?? '').trim() === '{{content}}');
    if (!placeholder) throw new Error('no {{content}} paragraph');
    const parent = placeholder.parentNode as Element;
    const t = wEl(doc, 't');
    t.appendChild(doc.createTextNode('Quarterly Cover Page of the Template'));
    parent.insertBefore(wEl(doc, 'p', {}, [wEl(doc, 'r', {}, [t])]), placeholder);
    parent.insertBefore(wEl(doc, 'p', {}, [wEl(doc, 'r', {}, [wEl(doc, 'br', { type: 'page' })])]), placeholder);
  });
}

interface Rendered {
  docx: Uint8Array;
  template: Uint8Array;
  pages: Page[];
}

const NAMES = ['plain', 'leading-sections', 'small-lists', 'two-columns', 'cover', 'cover-leading-sections'] as const;
type Name = (typeof NAMES)[number];

describe("the reader's checks on hand-made documents", () => {
  const docs = new Map<Name, Rendered>();
  let dir = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dw-pages-'));
    const builtIn = defaultTemplate();
    const cover = coverTemplate();
    const plain = (await convert({ markdown: MARKDOWN, created })).docx;
    const covered = (await convert({ markdown: MARKDOWN, template: cover, created })).docx;
    const made: Record<Name, [Uint8Array, Uint8Array]> = {
      plain: [plain, builtIn],
      'leading-sections': [edit(plain, 'word/document.xml', leadingSections), builtIn],
      'small-lists': [edit(plain, 'word/document.xml', smallLists), builtIn],
      'two-columns': [edit(plain, 'word/document.xml', twoColumnsFullTable), builtIn],
      cover: [covered, cover],
      'cover-leading-sections': [edit(covered, 'word/document.xml', leadingSections), cover],
    };
    const files = NAMES.map((name) => {
      const file = join(dir, `${name}.docx`);
      writeFileSync(file, made[name][0]);
      return file;
    });
    for (const file of files) {
      const { ok, report } = await validateDocx(file);
      expect(ok, `${file}: ${report}`).toBe(true);
    }
    await libreOfficePdfs(files, dir, 240_000);
    for (const name of NAMES) {
      const [docx, template] = made[name];
      docs.set(name, { docx, template, pages: await readPdf(join(dir, `${name}.pdf`)) });
    }
  }, 300_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const get = (name: Name): Rendered => {
    const d = docs.get(name);
    if (!d) throw new Error(`${name} was not rendered`);
    return d;
  };
  const first = (name: Name) => {
    const d = get(name);
    return firstPageCheck(name, d.pages, MARKDOWN, unzip(d.template));
  };
  const empty = (name: Name) => emptyPagesCheck(name, get(name).pages, headerFooterWords(unzip(get(name).docx)));
  const lists = (name: Name) => listSizeCheck(name, get(name).pages, markdownBlocks(MARKDOWN));
  const tables = (name: Name) =>
    tableWidthCheck(name, get(name).pages, markdownBlocks(MARKDOWN), sectionBoxes(unzip(get(name).docx)));

  it('a plain conversion passes every check', () => {
    expect(get('plain').pages.length).toBe(1);
    expect([first('plain'), empty('plain'), lists('plain'), tables('plain')]).toEqual([null, null, null, null]);
  });

  it('"first page": two leading empty sections push the first words to page 3', () => {
    expect(first('leading-sections')).toMatch(
      /^leading-sections: page 1 does not hold the document's first words "first words of" \(they are on page 3\)/,
    );
  });

  it('"first page": a template\'s cover on page 1 passes, pushed to page 3 it fails', () => {
    expect(get('cover').pages.length).toBe(2);
    expect(first('cover')).toBeNull();
    expect(empty('cover')).toBeNull();
    expect(first('cover-leading-sections')).toMatch(
      /^cover-leading-sections: page 1 does not hold the template's cover "quarterly cover page" \(they are on page 3\)/,
    );
  });

  it('"no empty page": the two leading pages that show only the footer are named', () => {
    expect(empty('leading-sections')).toMatch(
      /^leading-sections: 2 of 3 pages show nothing but the header and footer \(pages 1–2; page 1: "Page 1 of 3"/,
    );
  });

  it('"lists at body size": list text at 8 pt beside the body fails, naming the first list item\'s page', () => {
    expect(lists('small-lists')).toMatch(
      /^small-lists: list items' text is \d+ % of the body's size \(2 of 2 list items found are [\d.]+ pt high, most body paragraphs [\d.]+ pt\); the first on page 1: "A list item long enough to be …"$/,
    );
  });

  it('"tables in column": a full-width table in a two-column section fails, naming page and row', () => {
    expect(tables('two-columns')).toMatch(/^two-columns: 1 table\(s\) wider than the column \(page 1, table 1 row 1 /);
    expect(lists('two-columns')).toBeNull();
  });
});
