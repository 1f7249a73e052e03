// `::: {.landscape}` (issue 33, item 3): the div's content in a landscape section of its own, between section breaks
// that keep the template's section properties (its footer among them), its table as wide as the landscape text.
// Printed by LibreOffice: the pages' sizes (pdfinfo) and what each holds (pdftotext).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { afterAll, describe, expect, it } from 'vitest';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { convert, defaultTemplate, filesSource } from '../../server/convert/index.ts';
import { libreOfficePdfs, part, validateDocx } from '../helpers/docx.ts';

const run = promisify(execFile);
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const dir = mkdtempSync(join(tmpdir(), 'dw-landscape-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const wide = `| ${Array.from({ length: 12 }, (_, k) => `C${k + 1}`).join(' | ')} |`;
const markdown = [
  'Portrait page before.',
  '::: {.landscape}',
  'The landscape page.',
  `${wide}\n|${' --- |'.repeat(12)}\n|${' cell |'.repeat(12)}`,
  ':::',
  'Portrait page after.',
  '',
].join('\n\n');

/** The section properties of the body, in order (section breaks, then the body's own). */
function sections(documentXml: string): Element[] {
  const doc = new DOMParser().parseFromString(documentXml, 'text/xml');
  return Array.from(doc.getElementsByTagNameNS(W, 'sectPr'));
}
const attr = (el: Element | undefined, name: string): string | null => el?.getAttributeNS(W, name) ?? null;
const child = (el: Element | undefined, name: string): Element | undefined =>
  el?.getElementsByTagNameNS(W, name).item(0) ?? undefined;

describe('a landscape div', () => {
  it('is a landscape section of its own, with the template footer, its table at the landscape width', async () => {
    const result = await convert({ markdown, created: new Date('2026-01-02T03:04:05Z') });
    expect(result.warnings).toEqual([]);
    const documentXml = part(result.docx, 'word/document.xml');
    const [before, landscape, after] = sections(documentXml);
    expect(sections(documentXml)).toHaveLength(3);
    // The built-in template: A4 portrait, 1418 twips on every side.
    expect([attr(child(before, 'pgSz'), 'w'), attr(child(before, 'pgSz'), 'h')]).toEqual(['11906', '16838']);
    expect([attr(child(landscape, 'pgSz'), 'w'), attr(child(landscape, 'pgSz'), 'h')]).toEqual(['16838', '11906']);
    expect(attr(child(landscape, 'pgSz'), 'orient')).toBe('landscape');
    expect(attr(child(after, 'pgSz'), 'orient')).toBe('portrait');
    for (const sectPr of [before, landscape, after])
      expect(child(sectPr, 'footerReference')?.getAttributeNS(R, 'id')).toBe('rId6');
    // The table spans the landscape text: 16838 less two margins of 1418.
    const table = new DOMParser().parseFromString(documentXml, 'text/xml').getElementsByTagNameNS(W, 'tblW').item(0);
    expect(attr(table ?? undefined, 'w')).toBe(String(16838 - 2 * 1418));
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);

    const input = join(dir, 'landscape.docx');
    writeFileSync(input, result.docx);
    await libreOfficePdfs([input], dir);
    const pdf = join(dir, 'landscape.pdf');
    const info = (await run('pdfinfo', ['-f', '1', '-l', '3', pdf])).stdout;
    const sizes = [...info.matchAll(/Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+)/g)].map((m) => [
      Number(m[1]),
      Math.round(Number(m[2])),
      Math.round(Number(m[3])),
    ]);
    expect(sizes).toEqual([
      [1, 595, 842],
      [2, 842, 595],
      [3, 595, 842],
    ]);
    const page = async (n: number) =>
      (await run('pdftotext', ['-f', String(n), '-l', String(n), '-layout', pdf, '-'])).stdout;
    expect(await page(1)).toContain('Portrait page before.');
    const second = await page(2);
    expect(second).toContain('The landscape page.');
    // All twelve columns on the landscape page, side by side.
    expect(second).toMatch(/C1\s+C2\s+C3\s+C4\s+C5\s+C6\s+C7\s+C8\s+C9\s+C10\s+C11\s+C12\n/);
    expect(await page(3)).toContain('Portrait page after.');
  }, 180_000);

  it('sizes a wide picture to the landscape text width, and one outside to the portrait one', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="3000" height="300"><rect width="3000" height="300" fill="#369"/></svg>';
    const result = await convert({
      markdown: '![wide](wide.svg)\n\n::: {.landscape}\n![wide](wide.svg)\n:::\n\nAfter.\n',
      images: filesSource(new Map([['wide.svg', strToU8(svg)]])),
    });
    const doc = new DOMParser().parseFromString(part(result.docx, 'word/document.xml'), 'text/xml');
    const WP = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
    // EMU: 635 a twip.
    const widths = Array.from(doc.getElementsByTagNameNS(WP, 'extent')).map((e) => Number(e.getAttribute('cx')) / 635);
    // Whole pixels (15 twips each) of the text width at each place.
    const texts = [11906 - 2 * 1418, 16838 - 2 * 1418];
    expect(widths).toHaveLength(2);
    widths.forEach((width, k) => {
      expect(width).toBeLessThanOrEqual(texts[k] ?? 0);
      expect(width).toBeGreaterThan((texts[k] ?? 0) - 15);
    });
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('two with nothing between are two landscape sections, with no portrait one between', async () => {
    const result = await convert({
      markdown: 'Before.\n\n::: {.landscape}\nOne.\n:::\n\n::: {.landscape}\nTwo.\n:::\n\nAfter.\n',
    });
    const orientations = sections(part(result.docx, 'word/document.xml')).map((s) => attr(child(s, 'pgSz'), 'orient'));
    expect(orientations).toEqual(['portrait', 'landscape', 'landscape', 'portrait']);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('inside a note it is warned and its text kept; nested, it makes no second section', async () => {
    const result = await convert({
      markdown:
        'Text.[^n]\n\n::: {.landscape}\n::: {.landscape}\nInner.\n:::\n:::\n\n[^n]: Note.\n\n    ::: {.landscape}\n    In a note.\n    :::\n',
    });
    // Text, then the div, which ends the document: its section is the last one.
    expect(sections(part(result.docx, 'word/document.xml'))).toHaveLength(2);
    expect(result.warnings).toContain('landscape_ignored: a note has no page of its own to turn');
    expect(part(result.docx, 'word/footnotes.xml')).toContain('In a note.');
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  // A div at the very start or end of the document: no empty portrait page before or after it (the section before a
  // first div held only its break; the last section after a last div held nothing).
  it('first, last or alone, it makes no empty portrait page', async () => {
    const cases = {
      first: '::: {.landscape}\nThe landscape page.\n:::\n\nPortrait page after.\n',
      last: 'Portrait page before.\n\n::: {.landscape}\nThe landscape page.\n:::\n',
      alone: '::: {.landscape}\nThe landscape page.\n:::\n',
    };
    const expected = {
      first: { orientations: ['landscape', 'portrait'], pages: ['842x595', '595x842'] },
      last: { orientations: ['portrait', 'landscape'], pages: ['595x842', '842x595'] },
      alone: { orientations: ['landscape'], pages: ['842x595'] },
    };
    const paths: string[] = [];
    for (const [name, text] of Object.entries(cases)) {
      const result = await convert({ markdown: text });
      expect(result.warnings).toEqual([]);
      const orientations = sections(part(result.docx, 'word/document.xml')).map((s) =>
        attr(child(s, 'pgSz'), 'orient'),
      );
      expect({ name, orientations }).toEqual({ name, orientations: expected[name as keyof typeof cases].orientations });
      const { ok, report } = await validateDocx(result.docx);
      expect(ok, report).toBe(true);
      const path = join(dir, `edge-${name}.docx`);
      writeFileSync(path, result.docx);
      paths.push(path);
    }
    await libreOfficePdfs(paths, dir);
    for (const name of Object.keys(cases)) {
      const info = (await run('pdfinfo', ['-f', '1', '-l', '9', join(dir, `edge-${name}.pdf`)])).stdout;
      const pages = [...info.matchAll(/Page\s+\d+ size:\s+([\d.]+) x ([\d.]+)/g)].map(
        (m) => `${String(Math.round(Number(m[1])))}x${String(Math.round(Number(m[2])))}`,
      );
      expect({ name, pages }).toEqual({ name, pages: expected[name as keyof typeof cases].pages });
    }
  }, 180_000);

  it('first in a template with a first page of its own, it keeps that first page: it starts the document', async () => {
    const parts = unzipSync(defaultTemplate());
    const documentXml = strFromU8(parts['word/document.xml'] ?? new Uint8Array()).replace(
      /<w:pgNumType\/>/,
      '<w:pgNumType w:start="5"/><w:titlePg/>',
    );
    parts['word/document.xml'] = strToU8(documentXml);
    const result = await convert({
      markdown: '::: {.landscape}\nWide.\n:::\n\nText.\n\n::: {.landscape}\nWide again.\n:::\n\nEnd.\n',
      template: zipSync(parts),
    });
    const all = sections(part(result.docx, 'word/document.xml'));
    expect(all.map((s) => attr(child(s, 'pgSz'), 'orient'))).toEqual([
      'landscape',
      'portrait',
      'landscape',
      'portrait',
    ]);
    expect(child(all[0], 'titlePg')).toBeDefined();
    expect(attr(child(all[0], 'pgNumType'), 'start')).toBe('5');
    // The sections after continue it: no first page, no restart (a portrait one between divs too).
    for (const sectPr of all.slice(1)) {
      expect(child(sectPr, 'titlePg')).toBeUndefined();
      expect(attr(child(sectPr, 'pgNumType'), 'start') ?? '').toBe('');
    }
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('leaves the first page its own header, numbering start and section start; the sections after continue', async () => {
    // The built-in template with a first page of its own (w:titlePg), numbering from 5, a continuous start.
    const parts = unzipSync(defaultTemplate());
    const documentXml = strFromU8(parts['word/document.xml'] ?? new Uint8Array())
      .replace(/<w:pgSz /, '<w:type w:val="continuous"/><w:pgSz ')
      .replace(/<w:pgNumType\/>/, '<w:pgNumType w:start="5"/><w:titlePg/>');
    expect(documentXml).toContain('<w:titlePg/>');
    parts['word/document.xml'] = strToU8(documentXml);
    const template = zipSync(parts);
    const result = await convert({ markdown, template, created: new Date('2026-01-02T03:04:05Z') });
    const [before, landscape, after] = sections(part(result.docx, 'word/document.xml'));
    expect(child(before, 'titlePg')).toBeDefined();
    expect(attr(child(before, 'pgNumType'), 'start')).toBe('5');
    expect(attr(child(before, 'type'), 'val')).toBe('continuous');
    for (const sectPr of [landscape, after]) {
      expect(child(sectPr, 'titlePg')).toBeUndefined();
      expect(child(sectPr, 'type')).toBeUndefined();
      expect(attr(child(sectPr, 'pgNumType'), 'start') ?? '').toBe('');
    }
    // The template is read once per byte array: a second conversion starts from its section properties again.
    const again = await convert({ markdown: 'No landscape.\n', template });
    const [only] = sections(part(again.docx, 'word/document.xml'));
    expect(child(only, 'titlePg')).toBeDefined();
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});
