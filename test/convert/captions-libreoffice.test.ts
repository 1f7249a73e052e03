// Issue 34, items 1-3 in LibreOffice: a document with 3 figures, 2 tables, 2 equations and references to each prints
// every number right (the fields' pre-filled results), each reference an internal link in the PDF; and LibreOffice,
// which computes SEQ and REF fields itself when it opens a document, arrives at the same numbers, even from a copy
// whose pre-filled results were all made wrong first (so the check cannot pass by LibreOffice keeping them).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DOMParser, XMLSerializer, type Element } from '@xmldom/xmldom';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert, filesSource } from '../../server/convert/index.ts';
import { fixture, libreOfficePdfs, part, validateDocx } from '../helpers/docx.ts';

const run = promisify(execFile);
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const MARKDOWN = new TextDecoder().decode(fixture('captions', 'numbered.md'));
const APPARATUS = new TextDecoder().decode(fixture('captions', 'apparatus.md'));
const BIBLIOGRAPHY = { text: new TextDecoder().decode(fixture('citations', 'refs.bib')) };
const IMAGES = filesSource(new Map([['box.svg', fixture('captions', 'box.svg')]]));

/** Text compared without spaces (PDF text items split and join lines freely). */
const squash = (text: string) => text.replace(/\s+/g, '');

/** Every SEQ and REF field of a document.xml, in order: its instruction and its result's text. */
function fields(documentXml: string): { instruction: string; result: string }[] {
  const doc = new DOMParser().parseFromString(documentXml, 'text/xml');
  const found: { instruction: string; result: string }[] = [];
  let current: { instruction: string; result: string } | undefined;
  let inResult = false;
  for (const r of Array.from(doc.getElementsByTagNameNS(W, 'r'))) {
    for (const child of Array.from(r.childNodes) as Element[]) {
      if (child.localName === 'fldChar') {
        const type = child.getAttributeNS(W, 'fldCharType');
        if (type === 'begin') current = { instruction: '', result: '' };
        else if (type === 'separate') inResult = true;
        else if (type === 'end' && current) {
          current.instruction = current.instruction.trim().replace(/\s+/g, ' ');
          if (/^(SEQ|REF) /.test(current.instruction)) found.push(current);
          current = undefined;
          inResult = false;
        }
      } else if (child.localName === 'instrText' && current && !inResult)
        current.instruction += child.textContent ?? '';
      else if (child.localName === 't' && current && inResult) current.result += child.textContent ?? '';
    }
  }
  return found;
}

/** The document with every SEQ and REF field's pre-filled result (`headings`: also a heading's number) made 99. */
function withWrongResults(docx: Uint8Array, headings = false): Uint8Array {
  const files = unzipSync(docx);
  const doc = new DOMParser().parseFromString(part(docx, 'word/document.xml'), 'text/xml');
  let state: 'none' | 'instruction' | 'result' = 'none';
  let instruction = '';
  for (const r of Array.from(doc.getElementsByTagNameNS(W, 'r'))) {
    for (const child of Array.from(r.childNodes) as Element[]) {
      const type = child.localName === 'fldChar' ? child.getAttributeNS(W, 'fldCharType') : undefined;
      if (type === 'begin') [state, instruction] = ['instruction', ''];
      else if (type === 'separate') state = 'result';
      else if (type === 'end') state = 'none';
      else if (child.localName === 'instrText' && state === 'instruction') instruction += child.textContent ?? '';
      else if (
        child.localName === 't' &&
        state === 'result' &&
        (headings ? /^\s*(SEQ|REF)/ : /^\s*(SEQ|REF _Ref)/).test(instruction)
      )
        child.textContent = '99';
    }
  }
  files['word/document.xml'] = strToU8(new XMLSerializer().serializeToString(doc));
  return zipSync(files);
}

const EXPECTED_TEXT = [
  'Method',
  'Figure 1 starts a sentence; Figure 1 is in one. The results are in Figure 2, Figure 3, Table 1 and Table 2, ' +
    'and follow from Equation 1 and Equation 2. The method is in Method.',
  'Figure 1: Shape',
  'Figure 2: A graph',
  'Table 1: Sizes',
  '(1)',
  'Results',
  'Figure 3: A map',
  'Table 2: Costs',
  '(2)',
  'Again: Figure 3, Table 2 and Equation 2.',
  // The lists of figures and tables.
  'Figure 1: Shape',
  'Figure 2: A graph',
  'Figure 3: A map',
  'Table 1: Sizes',
  'Table 2: Costs',
];

describe('numbered captions and cross-references in LibreOffice', () => {
  let dir: string;
  let docx: Uint8Array;
  let warnings: string[];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dw-captions-'));
    const result = await convert({ markdown: MARKDOWN, images: IMAGES });
    docx = result.docx;
    warnings = result.warnings;
    writeFileSync(join(dir, 'ours.docx'), docx);
    writeFileSync(join(dir, 'wrong.docx'), withWrongResults(docx));
    await libreOfficePdfs([join(dir, 'ours.docx'), join(dir, 'wrong.docx')], dir);
    await run(
      'libreoffice',
      [
        `-env:UserInstallation=file://${dir}/profile`,
        '--headless',
        '--convert-to',
        'docx',
        '--outdir',
        join(dir, 'saved'),
        join(dir, 'ours.docx'),
        join(dir, 'wrong.docx'),
      ],
      { timeout: 120_000 },
    );
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('converts without warnings into a schema-valid document', async () => {
    expect(warnings).toEqual([]);
    const { ok, report } = await validateDocx(docx);
    expect(ok, report).toBe(true);
  });

  it('prints every number right: captions, equation numbers, references, lists of figures and tables', async () => {
    const { stdout } = await run('pdftotext', ['-layout', join(dir, 'ours.pdf'), '-']);
    let text = squash(stdout);
    // In order: each expected line after the one before.
    for (const line of EXPECTED_TEXT) {
      const at = text.indexOf(squash(line));
      expect(at, `${line} in ${stdout}`).toBeGreaterThanOrEqual(0);
      text = text.slice(at + squash(line).length);
    }
    expect(stdout).not.toMatch(/@(fig|tbl|eq|sec):|\[LOF\]|\[LOT\]|Table:/);
  });

  it('makes each reference and each list entry an internal link of the PDF', async () => {
    const pdf = await getDocument({ data: new Uint8Array(readFileSync(join(dir, 'ours.pdf'))) }).promise;
    let internal = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      const annotations = (await (await pdf.getPage(n)).getAnnotations()) as { subtype: string; dest?: unknown }[];
      internal += annotations.filter((a) => a.subtype === 'Link' && Array.isArray(a.dest)).length;
    }
    await pdf.destroy();
    // 12 references and 5 list entries (a reference wrapped over two lines is two link areas).
    expect(internal).toBeGreaterThanOrEqual(17);
  });

  it('keeps every number when LibreOffice computes the fields (even from wrong pre-filled results)', async () => {
    const ours = fields(part(docx, 'word/document.xml'));
    expect(ours.filter((f) => f.instruction.startsWith('SEQ')).map((f) => f.result)).toEqual([
      '1',
      '2',
      '1',
      '1',
      '3',
      '2',
      '2',
    ]);
    for (const name of ['ours', 'wrong']) {
      const saved = fields(part(new Uint8Array(readFileSync(join(dir, 'saved', `${name}.docx`))), 'word/document.xml'));
      expect(saved, name).toEqual(ours);
    }
    const printed = await run('pdftotext', [join(dir, 'wrong.pdf'), '-']);
    const original = await run('pdftotext', [join(dir, 'ours.pdf'), '-']);
    expect(squash(printed.stdout)).toBe(squash(original.stdout));
  });
});

// Citations and cross-references inside captions and the abstract, and references to numbered sections (`\r`).
const APPARATUS_TEXT = [
  // number_sections numbers the headings: the captions by chapter (`1.2`).
  'We extend (Doe & Roe, 2020) with the pictures of Figure 1.2, as Section 2 shows.',
  '1. Method',
  'The sizes are in Table 1.1; the results in Section 2 and Section 2.1.',
  'Figure 1.1: Shape, after (Smith, 2019)',
  'Figure 1.2: A graph like Figure 1.1, from Doe & Roe (2020)',
  'Table 1.1: Sizes measured as in Section 1 and (García, 2018, p. 104)',
  '2. Results',
  '2.1. Detail',
  'Back to Section 1 and Figure 1.2.',
  'Figure 1.1: Shape, after (Smith, 2019)',
  'Figure 1.2: A graph like Figure 1.1, from Doe & Roe (2020)',
];

describe('references and citations in captions, the abstract and to numbered sections, in LibreOffice', () => {
  let dir: string;
  let docx: Uint8Array;
  let warnings: string[];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dw-apparatus-'));
    const result = await convert({ markdown: APPARATUS, images: IMAGES, bibliography: BIBLIOGRAPHY });
    docx = result.docx;
    warnings = result.warnings;
    writeFileSync(join(dir, 'ours.docx'), docx);
    writeFileSync(join(dir, 'wrong.docx'), withWrongResults(docx, true));
    await libreOfficePdfs([join(dir, 'ours.docx'), join(dir, 'wrong.docx')], dir);
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints every number and citation right, from the pre-filled results and from computed fields', async () => {
    expect(warnings).toEqual([]);
    const { ok, report } = await validateDocx(docx);
    expect(ok, report).toBe(true);
    const sectionReferences = fields(part(docx, 'word/document.xml')).filter(
      (f) => f.instruction.startsWith('REF') && f.instruction.includes('\\r'),
    );
    expect(sectionReferences).toHaveLength(5);
    for (const name of ['ours', 'wrong']) {
      const { stdout } = await run('pdftotext', ['-layout', join(dir, `${name}.pdf`), '-']);
      let text = squash(stdout);
      for (const line of APPARATUS_TEXT) {
        const at = text.indexOf(squash(line));
        expect(at, `${name}: ${line} in ${stdout}`).toBeGreaterThanOrEqual(0);
        text = text.slice(at + squash(line).length);
      }
      expect(stdout).not.toMatch(/@|Table:/);
    }
  });
});

// Numbers by chapter (`2.1`): LibreOffice recomputes `SEQ … \s 1` without starting again at each chapter (it printed
// `Figure 2.3` for `2.1`); a hidden `SEQ … \r 0 \h` ending each chapter's heading starts it again there, in Word too.
describe('numbers by chapter in LibreOffice', () => {
  let dir: string;
  let docx: Uint8Array;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dw-chapters-'));
    const markdown = `---\nchapters: true\nnumber_sections: true\n---\n\n${MARKDOWN}`;
    const result = await convert({ markdown, images: IMAGES });
    expect(result.warnings).toEqual([]);
    docx = result.docx;
    writeFileSync(join(dir, 'ours.docx'), docx);
    writeFileSync(join(dir, 'wrong.docx'), withWrongResults(docx));
    await libreOfficePdfs([join(dir, 'ours.docx'), join(dir, 'wrong.docx')], dir);
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts each sequence again at each chapter, from the pre-filled results and from computed fields', async () => {
    const { ok, report } = await validateDocx(docx);
    expect(ok, report).toBe(true);
    for (const name of ['ours', 'wrong']) {
      const text = squash((await run('pdftotext', [join(dir, `${name}.pdf`), '-'])).stdout);
      for (const line of [
        'Figure1.1:Shape',
        'Figure1.2:Agraph',
        'Table1.1:Sizes',
        '(1.1)',
        'Figure2.1:Amap',
        'Table2.1:Costs',
        '(2.1)',
        'Again:Figure2.1,Table2.1andEquation2.1.',
      ])
        expect(text, `${name}: ${line}`).toContain(line);
      // No hidden field's value printed: the chapter headings read as written.
      expect(text, name).toContain('1.Method');
      expect(text, name).toContain('2.Results');
    }
  });
});
