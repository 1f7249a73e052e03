// Right-to-left text as LibreOffice lays it out: the Arabic corpus document and a Persian one are converted, printed
// to PDF by LibreOffice, and the words' boxes (`pdftotext -bbox-layout`) show right-aligned lines whose first word
// (logically) stands at the right.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { libreOfficePdfs, validateDocx } from '../helpers/docx.ts';

const run = promisify(execFile);

interface Word {
  text: string;
  xMin: number;
  xMax: number;
}
interface Line {
  words: Word[];
  xMin: number;
  xMax: number;
}

/** The lines of every page, with their words' boxes, as LibreOffice printed the document. */
async function pdfLines(docx: Uint8Array): Promise<{ pageWidth: number; lines: Line[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-rtl-'));
  try {
    writeFileSync(join(dir, 'doc.docx'), docx);
    await libreOfficePdfs([join(dir, 'doc.docx')], dir, 180_000);
    await run('pdftotext', ['-bbox-layout', join(dir, 'doc.pdf'), join(dir, 'boxes.html')]);
    const html = readFileSync(join(dir, 'boxes.html'), 'utf8');
    const doc = new DOMParser().parseFromString(html, 'text/xml');
    const num = (el: Element, name: string) => Number(el.getAttribute(name));
    const page = doc.getElementsByTagName('page')[0];
    const lines = Array.from(doc.getElementsByTagName('line')).map((line) => ({
      xMin: num(line, 'xMin'),
      xMax: num(line, 'xMax'),
      words: Array.from(line.getElementsByTagName('word')).map((w) => ({
        text: w.textContent ?? '',
        xMin: num(w, 'xMin'),
        xMax: num(w, 'xMax'),
      })),
    }));
    return { pageWidth: page ? num(page, 'width') : 0, lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Arabic-script letters (also Persian's), as pdftotext prints them: base letters or presentation forms. */
const ARABIC = /[\u0600-\u06FF\uFB50-\uFDFF\uFE70-\uFEFF]/;
/** The built-in template's right margin: 1 inch (72 pt). */
const MARGIN = 72;

function rightmost(line: Line): Word | undefined {
  return [...line.words].sort((a, b) => b.xMax - a.xMax)[0];
}

describe('right-to-left text in LibreOffice', () => {
  it('lays the Arabic corpus document out right to left', { timeout: 240_000 }, async () => {
    const markdown = readFileSync(
      resolve(import.meta.dirname, '../../../shared/corpus/docs/fpb-courses-ar.md'),
      'utf8',
    );
    const { docx } = await convert({ markdown, created: new Date('2026-01-02T00:00:00Z') });
    expect((await validateDocx(docx)).ok).toBe(true);
    const { pageWidth, lines } = await pdfLines(docx);
    const rightEdge = pageWidth - MARGIN;
    // The Latin heading "Index" stands in `<div dir="rtl">`: right-aligned.
    const index = lines.find((l) => l.words.length === 1 && l.words[0]?.text === 'Index');
    expect(index?.xMax).toBeGreaterThan(rightEdge - 3);
    expect(index?.xMin).toBeGreaterThan(pageWidth / 2);
    // "[سلسة الخوارزميات …](url) - Programming Advices": the Arabic link text comes first, so it stands at the right
    // and the Latin words after it at the left.
    const item = lines.find(
      (l) => l.words.some((w) => w.text === 'Advices') && l.words.some((w) => ARABIC.test(w.text)),
    );
    expect(item, 'the first Arabic list item').toBeDefined();
    if (!item) return;
    expect(ARABIC.test(rightmost(item)?.text ?? '')).toBe(true);
    const programming = item.words.find((w) => w.text === 'Programming');
    const arabicWords = item.words.filter((w) => ARABIC.test(w.text));
    expect(Math.min(...arabicWords.map((w) => w.xMin))).toBeGreaterThan(programming?.xMax ?? Infinity);
    // List items are indented from the right (their bullet is on the right).
    expect(item.xMax).toBeGreaterThan(rightEdge - 3 - 36);
    expect(item.xMax).toBeLessThan(rightEdge - 30);
  });

  it(
    'lays a Persian document out right to left, keeping numbers and Latin words left to right',
    { timeout: 240_000 },
    async () => {
      const markdown = [
        '# راهنمای نصب',
        '',
        'این راهنما نسخه 3.2 از Docwright را توضیح می‌دهد.',
        '',
        '| نام | مقدار |',
        '| --- | --- |',
        '| اندازه | 12 |',
        '',
      ].join('\n');
      const { docx } = await convert({ markdown });
      expect((await validateDocx(docx)).ok).toBe(true);
      const { pageWidth, lines } = await pdfLines(docx);
      const rightEdge = pageWidth - MARGIN;
      const arabicLines = lines.filter((l) => l.words.some((w) => ARABIC.test(w.text)));
      // The heading and the paragraph: right-aligned, their first word at the right.
      const [heading, paragraph] = arabicLines;
      for (const line of [heading, paragraph]) {
        expect(line?.xMax).toBeGreaterThan(rightEdge - 3);
        expect(line?.xMin).toBeGreaterThan(pageWidth / 3);
        expect(ARABIC.test((line && rightmost(line)?.text) ?? '')).toBe(true);
      }
      // The number and the Latin word read left to right, inside the right-to-left line.
      expect(paragraph?.words.some((w) => w.text === '3.2')).toBe(true);
      expect(paragraph?.words.some((w) => w.text === 'Docwright')).toBe(true);
      // The table's header row is right to left: its first column ("نام") is the rightmost cell.
      const cell = (letters: number) =>
        lines.find(
          (l) =>
            l.words.length === 1 && ARABIC.test(l.words[0]?.text ?? '') && (l.words[0]?.text ?? '').length === letters,
        );
      const name = cell(3);
      const value = cell(5);
      expect(name?.xMin).toBeGreaterThan(value?.xMax ?? Infinity);
      expect(name?.xMin).toBeGreaterThan(pageWidth / 2);
    },
  );
});
