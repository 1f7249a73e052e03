// What a reader sees of a template's sections and columns (issue 32, items 1 and 3): a template's earlier sections
// become pages only where they hold something of the template's own, and a table or picture fits the column it lands
// in. Templates built here (7 sections; 2 columns) and real ones of the shared corpus, printed by LibreOffice.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert, defaultTemplate, filesSource, type ImageSource } from '../../server/convert/index.ts';
import { libreOfficePdfs, part, partNames, validateDocx } from '../helpers/docx.ts';

const run = promisify(execFile);
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const HEADER_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/header';
const HEADER_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml';
const CORPUS = resolve(import.meta.dirname, '../../../shared/corpus/templates');
const CREATED = new Date('2026-01-02T03:04:05Z');

/** A section of a built template: what its body holds (paragraph texts; `{{content}}` among them) and its header. */
interface Section {
  texts?: string[];
  header?: string;
  /** Extra section properties after the page size and margins (w:cols, w:type…). */
  extra?: string;
  /** Left margin, to tell sections apart. */
  left?: number;
}

const paragraph = (text: string): string => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

/**
 * The built-in template with its body replaced by `sections` (the last one the body's own w:sectPr), each header a
 * part of its own (header<k>.xml, relationship rIdH<k>); every section keeps the built-in footer (rId6) in the last.
 */
function buildTemplate(sections: Section[], page = { w: 11906, h: 16838 }): Uint8Array {
  const parts = unzipSync(defaultTemplate());
  const text = (path: string): string => strFromU8(parts[path] ?? new Uint8Array());
  let rels = text('word/_rels/document.xml.rels');
  let types = text('[Content_Types].xml');
  const body: string[] = [];
  sections.forEach((section, k) => {
    const refs: string[] = [];
    if (section.header !== undefined) {
      parts[`word/header${k + 1}.xml`] = strToU8(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:hdr xmlns:w="${W}">${paragraph(section.header)}</w:hdr>`,
      );
      rels = rels.replace(
        '</Relationships>',
        `<Relationship Id="rIdH${k + 1}" Type="${HEADER_TYPE}" Target="header${k + 1}.xml"/></Relationships>`,
      );
      types = types.replace(
        '</Types>',
        `<Override PartName="/word/header${k + 1}.xml" ContentType="${HEADER_CONTENT_TYPE}"/></Types>`,
      );
      refs.push(`<w:headerReference w:type="default" r:id="rIdH${k + 1}"/>`);
    }
    const last = k === sections.length - 1;
    if (last) refs.push('<w:footerReference w:type="default" r:id="rId6"/>');
    const sectPr =
      `<w:sectPr>${refs.join('')}<w:pgSz w:w="${page.w}" w:h="${page.h}"/>` +
      `<w:pgMar w:top="1440" w:right="720" w:bottom="1440" w:left="${section.left ?? 720}" w:header="708" w:footer="708" w:gutter="0"/>` +
      `${section.extra ?? ''}</w:sectPr>`;
    body.push(...(section.texts ?? []).map(paragraph));
    body.push(last ? sectPr : `<w:p><w:pPr>${sectPr}</w:pPr></w:p>`);
  });
  parts['word/document.xml'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}" xmlns:r="${R}"><w:body>${body.join('')}</w:body></w:document>`,
  );
  parts['word/_rels/document.xml.rels'] = strToU8(rels);
  parts['[Content_Types].xml'] = strToU8(types);
  return zipSync(parts);
}

const SEVEN: Section[] = [
  { texts: ['Sample cover of the template'], header: 'Header of section 1', left: 1100 },
  { header: 'Header of section 2', left: 1200 },
  { texts: ['Sample front matter'], header: 'Header of section 3', left: 1300 },
  { header: 'Header of section 4', left: 1400 },
  { header: 'Header of section 5', left: 1500 },
  { texts: ['Sample chapter'], header: 'Header of section 6', left: 1600 },
  { left: 1700 },
];

function xmlOf(docx: Uint8Array, path = 'word/document.xml') {
  return new DOMParser().parseFromString(part(docx, path), 'text/xml');
}

function all(
  root: { getElementsByTagNameNS(ns: string, name: string): { length: number; item(i: number): Element | null } },
  name: string,
): Element[] {
  const list = root.getElementsByTagNameNS(W, name);
  const out: Element[] = [];
  for (let i = 0; i < list.length; i++) {
    const el = list.item(i);
    if (el) out.push(el);
  }
  return out;
}

/** The section properties of a document, in order, as (header/footer references by type, left margin). */
function sectionsOf(docx: Uint8Array): { refs: string[]; left: string; final: boolean }[] {
  return all(xmlOf(docx), 'sectPr').map((s) => ({
    refs: [...all(s, 'headerReference'), ...all(s, 'footerReference')].map(
      (r) => `${r.localName ?? ''}:${r.getAttributeNS(W, 'type') ?? ''}:${r.getAttributeNS(R, 'id') ?? ''}`,
    ),
    left: all(s, 'pgMar')[0]?.getAttributeNS(W, 'left') ?? '',
    final: (s.parentNode as Element | null)?.localName === 'body',
  }));
}

async function expectValid(docx: Uint8Array): Promise<void> {
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
}

const convertWith = async (markdown: string, template: Uint8Array, images?: ImageSource) =>
  (await convert({ markdown, template, created: CREATED, ...(images ? { images } : {}) })).docx;

const corpusTemplate = (file: string): Uint8Array => new Uint8Array(readFileSync(join(CORPUS, file)));

const PLACEHOLDER_SECTIONS: Section[] = [
  { texts: ['Cover title of the template'], header: 'Cover header', left: 1100 },
  { header: 'Empty section 2', left: 1200 },
  { texts: ['', ' '], left: 1300 },
  { texts: ['{{content}}'], header: 'Content header', left: 1400 },
  { texts: ['Annex of the template'], left: 1500 },
  { header: 'Empty section 6', left: 1600 },
  { left: 1700 },
];

const TABLE = `| Step | What to do | Why it matters |
| --- | --- | --- |
| Check | Look for structural damage before going back into the house | Weakened walls and floors can give way |
`;

/** The documents printed, converted and printed once (LibreOffice is slow to start): name → its .docx. */
const printedCases: Record<string, () => Promise<Uint8Array>> = {
  seven: () => convertWith('# Hi\n', buildTemplate(SEVEN)),
  placeholder: () => convertWith('# Hi\n\nOur text.\n', buildTemplate(PLACEHOLDER_SECTIONS)),
  ntu: () => convertWith('# Hi\n\nThe first words.\n', corpusTemplate('ntu-dissertation-template.docx')),
  // A fact sheet set in two columns on US Letter, as FEMA's are.
  columns: () =>
    convertWith(TABLE, buildTemplate([{ extra: '<w:cols w:num="2" w:space="360"/>' }], { w: 12240, h: 15840 })),
};
const outputs = new Map<string, Uint8Array>();
const work = mkdtempSync(join(tmpdir(), 'dw-sections-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(async () => {
  const paths: string[] = [];
  for (const [name, make] of Object.entries(printedCases)) {
    const docx = await make();
    outputs.set(name, docx);
    const path = join(work, `${name}.docx`);
    writeFileSync(path, docx);
    paths.push(path);
  }
  await libreOfficePdfs(paths, work, 240_000);
});

/** A printed case's .docx. */
function output(name: string): Uint8Array {
  const docx = outputs.get(name);
  if (!docx) throw new Error(`no output ${name}`);
  return docx;
}

/** The text of each page of a printed case's PDF. */
async function pages(name: string): Promise<string[]> {
  const pdf = join(work, `${name}.pdf`);
  if (!existsSync(pdf)) throw new Error(`LibreOffice printed no ${name}.pdf`);
  const { stdout } = await run('pdftotext', ['-layout', pdf, '-'], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.split('\f').slice(0, -1);
}

describe('a template’s earlier sections (item 1)', () => {
  it('a 7-section template without {{content}} gives one section: the last one’s page setup, with the header it showed (inherited from section 6) and its footer', async () => {
    const docx = output('seven');
    expect(sectionsOf(docx)).toEqual([
      {
        refs: ['headerReference:default:rIdH6', 'footerReference:default:rId6'],
        left: '1700',
        final: true,
      },
    ]);
    // The headers only removed sections referred to stay as parts, with their relationships: nothing dangles.
    expect(partNames(docx)).toEqual(expect.arrayContaining([1, 2, 3, 4, 5, 6].map((k) => `word/header${k}.xml`)));
    expect(part(docx, 'word/_rels/document.xml.rels')).toContain('Id="rIdH1"');
    await expectValid(docx);
    const text = await pages('seven');
    expect(text).toHaveLength(1);
    expect(text[0]).toContain('Hi');
    expect(text[0]).toContain('Header of section 6');
  });

  it('with {{content}}, the sections holding the template’s own content stay (cover, the content’s own, an annex); the empty ones go, the last kept one ending the document', async () => {
    const docx = output('placeholder');
    const sections = sectionsOf(docx);
    expect(sections.map((s) => s.left)).toEqual(['1100', '1400', '1500']);
    expect(sections.map((s) => s.final)).toEqual([false, false, true]);
    // The annex still inherits the content section's header, which stays: nothing to add to it.
    expect(sections[2]?.refs).toEqual([]);
    await expectValid(docx);
    const text = await pages('placeholder');
    expect(text).toHaveLength(3);
    expect(text[0]).toContain('Cover title of the template');
    expect(text[1]).toContain('Hi');
    expect(text[1]).toContain('Our text.');
    expect(text[2]).toContain('Annex of the template');
    expect(text[2]).toContain('Content header');
  });

  it('a section that holds only a table, a picture-less field or a content control stays; one of empty paragraphs goes', async () => {
    const parts = unzipSync(
      buildTemplate([{ left: 1100 }, { left: 1200 }, { left: 1300 }, { texts: ['{{content}}'], left: 1400 }]),
    );
    const doc = strFromU8(parts['word/document.xml'] ?? new Uint8Array());
    const table =
      '<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/></w:tblGrid><w:tr><w:tc><w:p/></w:tc></w:tr></w:tbl>';
    const field = '<w:p><w:fldSimple w:instr=" PAGE "><w:r><w:t>1</w:t></w:r></w:fldSimple></w:p>';
    const control = '<w:sdt><w:sdtPr/><w:sdtContent><w:p/></w:sdtContent></w:sdt>';
    // Section 1 a table, section 2 a field, section 3 a content control before its break.
    const breaks = doc.split('<w:p><w:pPr><w:sectPr>');
    parts['word/document.xml'] = strToU8(
      [
        `${breaks[0] ?? ''}${table}`,
        `${breaks[1] ?? ''}${field}`,
        `${breaks[2] ?? ''}${control}`,
        breaks[3] ?? '',
      ].join('<w:p><w:pPr><w:sectPr>'),
    );
    const docx = await convertWith('Body.\n', zipSync(parts));
    expect(sectionsOf(docx).map((s) => s.left)).toEqual(['1100', '1200', '1300', '1400']);
    await expectValid(docx);
  });

  for (const [name, key] of [['the NTU thesis (9 sections)', 'ntu']] as const)
    it(`${name}: # Hi prints on one page, the first`, async () => {
      const docx = output(key);
      expect(sectionsOf(docx)).toHaveLength(1);
      await expectValid(docx);
      const text = await pages(key);
      expect(text).toHaveLength(1);
      expect(text[0]).toContain('The first words.');
    });
});

/** The widths a document gives its tables (w:tblW, and the sum of its grid) and its pictures (twips). */
function widths(docx: Uint8Array): { table: number[]; grid: number[]; pictures: number[] } {
  const doc = xmlOf(docx);
  return {
    table: all(doc, 'tblW').map((w) => Number(w.getAttributeNS(W, 'w'))),
    grid: all(doc, 'tblGrid').map((g) =>
      all(g, 'gridCol').reduce((sum, c) => sum + Number(c.getAttributeNS(W, 'w')), 0),
    ),
    pictures: [
      ...Array.from(
        {
          length: doc.getElementsByTagNameNS(
            'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing',
            'extent',
          ).length,
        },
        (_, i) =>
          Number(
            doc
              .getElementsByTagNameNS(
                'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing',
                'extent',
              )
              .item(i)
              ?.getAttribute('cx'),
          ) / 635,
      ),
    ],
  };
}

const WIDE_PICTURE = filesSource(
  new Map([
    [
      'wide.svg',
      strToU8(
        '<svg xmlns="http://www.w3.org/2000/svg" width="3000" height="300"><rect width="3000" height="300" fill="#369"/></svg>',
      ),
    ],
  ]),
);

describe('tables and pictures in columns (item 3)', () => {
  const letter = { w: 12240, h: 15840 };
  it('in two equal columns (w:num, w:space) a table and a picture take the column’s width, 5,220 twips of 10,800', async () => {
    const template = buildTemplate([{ extra: '<w:cols w:num="2" w:space="360"/>' }], letter);
    const docx = await convertWith(`${TABLE}\n![wide](wide.svg)\n`, template, WIDE_PICTURE);
    const { table, grid, pictures } = widths(docx);
    expect(table).toEqual([5220]);
    expect(grid[0]).toBeLessThanOrEqual(5220);
    expect(pictures.length).toBeGreaterThan(0);
    for (const w of pictures) expect(w).toBeLessThanOrEqual(5220);
    await expectValid(docx);
  });

  it('in explicit columns (w:col w:w) a table takes the narrowest column', async () => {
    const template = buildTemplate(
      [
        {
          extra:
            '<w:cols w:num="2" w:space="360" w:equalWidth="0"><w:col w:w="3000" w:space="360"/><w:col w:w="7440"/></w:cols>',
        },
      ],
      letter,
    );
    const docx = await convertWith(TABLE, template);
    expect(widths(docx).table).toEqual([3000]);
    await expectValid(docx);
  });

  it('a fact sheet in two columns: the table fits its column and all three of its columns print', async () => {
    const docx = output('columns');
    expect(widths(docx).table).toEqual([5220]);
    await expectValid(docx);
    const text = (await pages('columns')).join('\n');
    // Its third column's words, which were past the page's edge.
    expect(text).toMatch(/Why it\s/);
    expect(text).toContain('matters');
    expect(text).toContain('give way');
  });
});
