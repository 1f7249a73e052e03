// The reader's checks: what a reader sees on the pages LibreOffice makes of an output, read with poppler. Each check
// takes the rendered pages (and what the markdown and the output package say should be on them) and returns null
// when it passes, else a reason that names the pair and the page. Shared by test/corpus/corpus.test.ts (the shared
// corpus) and test/corpus/pages-checks.test.ts (each check on a hand-made document with and without its defect).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { strFromU8 } from 'fflate';
import type { Nodes } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { parseMarkdown } from '../../server/convert/parse/index.ts';
import { mainPart, markdownWords, words, type Parts } from './checks.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const XHTML = 'http://www.w3.org/1999/xhtml';
const run = promisify(execFile);

export const PAGE_CHECKS = ['first page', 'no empty page', 'lists at body size', 'tables in column'] as const;
export type PageCheck = (typeof PAGE_CHECKS)[number];

/** A word on a page, in points from the page's top left corner (poppler's boxes). */
export interface TextItem {
  str: string;
  x: number;
  y: number;
  width: number;
  /**
   * The word's box height: the font's size times its ascent plus descent, so words of one font compare as their
   * sizes do (poppler reports no font size; pdf.js does, but reads CJK set in a fallback font as the wrong characters).
   */
  height: number;
}

export interface Page {
  /** 1-based. */
  number: number;
  width: number;
  height: number;
  items: TextItem[];
}

/** The pages of a PDF with their words in the order the PDF draws them (`pdftotext -raw -bbox`). */
export async function readPdf(path: string): Promise<Page[]> {
  const { stdout } = await run('pdftotext', ['-raw', '-bbox', path, '-'], { maxBuffer: 256 * 1024 * 1024 });
  const doc = new DOMParser({ onError: () => undefined }).parseFromString(stdout, 'text/xml');
  const num = (el: Element, name: string): number => Number(el.getAttribute(name) ?? 0);
  const pages: Page[] = [];
  for (const page of Array.from(doc.getElementsByTagNameNS(XHTML, 'page'))) {
    const items = Array.from(page.getElementsByTagNameNS(XHTML, 'word')).map((w) => ({
      str: w.textContent ?? '',
      x: num(w, 'xMin'),
      y: num(w, 'yMin'),
      width: num(w, 'xMax') - num(w, 'xMin'),
      height: num(w, 'yMax') - num(w, 'yMin'),
    }));
    pages.push({ number: pages.length + 1, width: num(page, 'width'), height: num(page, 'height'), items });
  }
  return pages;
}

/** Text compared without spaces (PDF text runs split and join words and wrapped lines freely). */
const squash = (text: string): string => text.normalize('NFKC').replace(/\s+/g, '');

/** A page list as one string without spaces, each character knowing its page and run. */
interface Stream {
  text: string;
  page: number[];
  item: TextItem[];
}

function streamOf(pages: Page[]): Stream {
  const text: string[] = [];
  const page: number[] = [];
  const item: TextItem[] = [];
  for (const p of pages)
    for (const it of p.items)
      for (const ch of squash(it.str)) {
        text.push(ch);
        page.push(p.number);
        item.push(it);
      }
  return { text: text.join(''), page, item };
}

/** What the markdown puts in the body, in order: body paragraphs, list items (their first paragraph), tables. */
export type Block =
  | { kind: 'paragraph' | 'list item'; text: string }
  | { kind: 'table'; rows: string[][] }
  | { kind: 'other'; text: string };

const plain = (node: Nodes): string => toString(node, { includeHtml: false, includeImageAlt: false });

/** The blocks of a markdown document as Docwright parses it (raw HTML turned into elements). */
export function markdownBlocks(markdown: string): Block[] {
  const out: Block[] = [];
  const listItems = (node: Nodes): void => {
    if (node.type === 'listItem') {
      const [first, ...rest] = node.children;
      if (first?.type === 'paragraph') out.push({ kind: 'list item', text: plain(first) });
      else if (first) visit(first, false);
      for (const child of rest) visit(child, false);
    } else if ('children' in node) for (const child of node.children) listItems(child);
  };
  const visit = (node: Nodes, top: boolean): void => {
    if (node.type === 'paragraph') out.push({ kind: top ? 'paragraph' : 'other', text: plain(node) });
    else if (node.type === 'list') listItems(node);
    else if (node.type === 'table')
      out.push({ kind: 'table', rows: node.children.map((row) => row.children.map((cell) => plain(cell))) });
    else if (node.type === 'heading' || node.type === 'code') out.push({ kind: 'other', text: plain(node) });
    else if ('children' in node) for (const child of node.children) visit(child, false);
  };
  for (const child of parseMarkdown(markdown).tree.children) visit(child, true);
  return out;
}

interface Found {
  page: number;
  items: TextItem[];
  /** The word height most of the snippet's characters have, to 0.1 pt. */
  height: number;
}

/**
 * Finds each block's text in the pages, in document order (a block is looked for after the previous one found, so a
 * table of contents or a running header does not answer for the body). A snippet shorter than `min` characters is
 * not looked for (it would match anywhere).
 */
function locate(stream: Stream, texts: string[], min: number): (Found | null)[] {
  let from = 0;
  return texts.map((text) => {
    const snippet = squash(text).slice(0, 24);
    if (snippet.length < min) return null;
    const at = stream.text.indexOf(snippet, from);
    if (at < 0) return null;
    from = at + snippet.length;
    const items: TextItem[] = [];
    const heights = new Map<number, number>();
    for (let i = at; i < at + snippet.length; i++) {
      const it = stream.item[i] as TextItem;
      if (items.at(-1) !== it) items.push(it);
      const height = Math.round(it.height * 10) / 10;
      heights.set(height, (heights.get(height) ?? 0) + 1);
    }
    return { page: stream.page[at] ?? 0, items, height: modeOf(heights) };
  });
}

function modeOf(counts: Map<number, number>): number {
  let best = 0;
  let most = -1;
  for (const [value, n] of counts) if (n > most || (n === most && value > best)) [best, most] = [value, n];
  return best;
}

const quote = (text: string): string => {
  const t = text.replace(/\s+/g, ' ').trim();
  return `"${t.length > 30 ? `${t.slice(0, 30)}…` : t}"`;
};

/**
 * (a) The first page holds the document's first words: the markdown's first three visible words or, when the output
 * opens with the template's own text (a cover: before its `{{content}}` paragraph, or kept otherwise), that text's.
 */
export function firstPageCheck(
  pair: string,
  pages: Page[],
  markdown: string,
  template: Parts,
  output?: Parts,
): string | null {
  const cover = coverWords(template, output);
  const expected = (cover.length > 0 ? cover : markdownWords(markdown)).slice(0, 3);
  if (expected.length === 0) return null;
  const first = pages[0];
  if (!first) return `${pair}: the PDF has no page`;
  const onPage = words(first.items.map((it) => it.str).join(' ')).join('');
  if (onPage.includes(expected.join(''))) return null;
  const where = pages.find((p) =>
    words(p.items.map((it) => it.str).join(' '))
      .join('')
      .includes(expected.join('')),
  );
  return `${pair}: page 1 does not hold the ${cover.length > 0 ? "template's cover" : "document's first words"} "${expected.join(' ')}"${where ? ` (they are on page ${String(where.number)})` : ''}; page 1 shows ${first.items.length === 0 ? 'nothing' : quote(first.items.map((it) => it.str).join(' '))}`;
}

/** The text of each body paragraph of a package's main part, in order. */
function bodyParagraphs(parts: Parts): string[] {
  const bytes = parts[mainPart(parts)];
  if (!bytes) return [];
  const doc = new DOMParser({ onError: () => undefined }).parseFromString(strFromU8(bytes), 'text/xml');
  return Array.from(doc.getElementsByTagNameNS(W, 'p')).map((p) =>
    Array.from(p.getElementsByTagNameNS(W, 't'))
      .map((t) => t.textContent)
      .join(''),
  );
}

/**
 * The words of the template's cover: its body's text before its `{{content}}` paragraph or, without one, its body's
 * opening words when the output opens with them too (the template's text kept); none otherwise.
 */
export function coverWords(template: Parts, output?: Parts): string[] {
  const paragraphs = bodyParagraphs(template);
  const at = paragraphs.findIndex((text) => text.trim() === '{{content}}');
  if (at >= 0) return words(paragraphs.slice(0, at).join(' '));
  if (!output) return [];
  const opening = words(paragraphs.join(' ')).slice(0, 3);
  const kept = words(bodyParagraphs(output).join(' ')).slice(0, 3);
  return opening.length > 0 && opening.join(' ') === kept.join(' ') ? opening : [];
}

/** The words of every header and footer part of a package. */
export function headerFooterWords(parts: Parts): Set<string> {
  const out = new Set<string>();
  for (const [path, bytes] of Object.entries(parts))
    if (/^word\/(header|footer)\d*\.xml$/.test(path))
      for (const w of words(strFromU8(bytes).replace(/<[^>]*>/g, ' '))) out.add(w);
  return out;
}

/**
 * (b) No page is empty: every page shows a word that is not the header's or footer's (page numbers, in digits or
 * roman numerals, are the footer's too). A page holding only a picture counts as empty: the corpus documents'
 * pictures are not embedded (they convert to their alt text).
 */
export function emptyPagesCheck(pair: string, pages: Page[], headerFooter: Set<string>): string | null {
  const empty = pages.filter(
    (p) =>
      !words(p.items.map((it) => it.str).join(' ')).some(
        (w) => !headerFooter.has(w) && !/^\d+$/.test(w) && !/^[ivxlcdm]+$/.test(w),
      ),
  );
  if (empty.length === 0) return null;
  const shown = empty
    .slice(0, 4)
    .map(
      (p) =>
        `page ${String(p.number)}: ${p.items.length === 0 ? 'nothing' : quote(p.items.map((it) => it.str).join(' '))}`,
    );
  return `${pair}: ${String(empty.length)} of ${String(pages.length)} pages show nothing but the header and footer (pages ${ranges(empty.map((p) => p.number))}; ${shown.join('; ')})`;
}

function ranges(numbers: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < numbers.length;) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === (numbers[j] as number) + 1) j++;
    out.push(j === i ? String(numbers[i]) : `${String(numbers[i])}–${String(numbers[j])}`);
    i = j + 1;
  }
  return out.join(', ');
}

/** How much list text may differ in size from body text (a share of the body's): 10 pt beside 12 pt is 17 %. */
export const SIZE_SLACK = 0.04;

/**
 * (c) List items render at the body's size: the word height most list-item characters have is the one most
 * body-paragraph characters have (a list item or paragraph is found by its first 24 characters, in order; inline
 * code and the like are outvoted by the plain text around them). Word heights of one font are proportional to
 * its size, so the ratio of the two is the ratio of the sizes.
 */
export function listSizeCheck(pair: string, pages: Page[], blocks: Block[]): string | null {
  const texts = blocks.flatMap((b) => (b.kind === 'table' ? [] : [b]));
  const found = locate(
    streamOf(pages),
    texts.map((b) => b.text),
    10,
  );
  const body = new Map<number, number>();
  const list = new Map<number, number>();
  const firstAt = new Map<number, { page: number; text: string }>();
  for (const [i, f] of found.entries()) {
    const b = texts[i];
    if (!f || !b || b.kind === 'other') continue;
    const counts = b.kind === 'paragraph' ? body : list;
    counts.set(f.height, (counts.get(f.height) ?? 0) + 1);
    if (b.kind === 'list item' && !firstAt.has(f.height)) firstAt.set(f.height, { page: f.page, text: b.text });
  }
  if (body.size === 0 || list.size === 0) return null;
  const bodyHeight = modeOf(body);
  const listHeight = modeOf(list);
  const ratio = listHeight / bodyHeight;
  if (Math.abs(ratio - 1) <= SIZE_SLACK) return null;
  const n = list.get(listHeight) ?? 0;
  const total = [...list.values()].reduce((a, b) => a + b, 0);
  const at = firstAt.get(listHeight);
  return `${pair}: list items' text is ${String(Math.round(ratio * 100))} % of the body's size (${String(n)} of ${String(total)} list items found are ${listHeight.toFixed(1)} pt high, most body paragraphs ${bodyHeight.toFixed(1)} pt)${at ? `; the first on page ${String(at.page)}: ${quote(at.text)}` : ''}`;
}

/** A text column's left and right edges, in points from the page's left edge. */
export interface Column {
  left: number;
  right: number;
}

/** A section's page size and text columns, in points. */
export interface SectionBox {
  width: number;
  height: number;
  columns: Column[];
}

const twips = (el: Element | undefined, name: string, fallback: number): number => {
  const v = el?.getAttributeNS(W, name);
  return v ? Number(v) / 20 : fallback / 20;
};

/** The page box and text columns of every section of a package (mirrored margins: both ways round). */
export function sectionBoxes(parts: Parts): SectionBox[] {
  const bytes = parts[mainPart(parts)];
  if (!bytes) return [];
  const doc = new DOMParser({ onError: () => undefined }).parseFromString(strFromU8(bytes), 'text/xml');
  const settings = parts['word/settings.xml'];
  const mirrored = settings ? strFromU8(settings).includes('mirrorMargins') : false;
  const boxes: SectionBox[] = [];
  const sects = doc.getElementsByTagNameNS(W, 'sectPr');
  for (let i = 0; i < sects.length; i++) {
    const sect = sects.item(i) as Element;
    const child = (name: string): Element | undefined => {
      for (let n = sect.firstChild; n; n = n.nextSibling)
        if (n.nodeType === 1 && (n as Element).localName === name) return n as Element;
      return undefined;
    };
    const size = child('pgSz');
    const margin = child('pgMar');
    const cols = child('cols');
    const width = twips(size, 'w', 11906);
    const height = twips(size, 'h', 16838);
    const margins: [number, number][] = [
      [twips(margin, 'left', 1440) + twips(margin, 'gutter', 0), twips(margin, 'right', 1440)],
    ];
    if (mirrored)
      margins.push([twips(margin, 'right', 1440), twips(margin, 'left', 1440) + twips(margin, 'gutter', 0)]);
    for (const [left, right] of margins) {
      const inner = width - left - right;
      const num = Math.max(1, Number(cols?.getAttributeNS(W, 'num') || 1));
      const space = twips(cols, 'space', 720);
      const explicit = cols ? Array.from(cols.getElementsByTagNameNS(W, 'col')) : [];
      const columns: Column[] = [];
      if (num > 1 && explicit.length > 0 && cols?.getAttributeNS(W, 'equalWidth') !== '1') {
        let x = left;
        for (const col of explicit) {
          const w = twips(col, 'w', 0);
          columns.push({ left: x, right: x + w });
          x += w + twips(col, 'space', 0);
        }
      } else {
        const w = (inner - (num - 1) * space) / num;
        for (let c = 0; c < num; c++) columns.push({ left: left + c * (w + space), right: left + c * (w + space) + w });
      }
      boxes.push({ width, height, columns });
    }
  }
  return boxes;
}

/** How far, in points, text may stand outside its column before a table counts as wider than it. */
export const COLUMN_SLACK = 6;

/**
 * (d) No table is wider than its column: the text of each table row (its cells found by their text, in order)
 * stands within one text column of a section whose page size is the page's.
 */
export function tableWidthCheck(pair: string, pages: Page[], blocks: Block[], sections: SectionBox[]): string | null {
  const stream = streamOf(pages);
  const problems: string[] = [];
  let tables = 0;
  for (const block of blocks) {
    if (block.kind !== 'table') continue;
    tables += 1;
    const cells = block.rows.flatMap((row, r) => row.map((text) => ({ r, text })));
    const found = locate(
      stream,
      cells.map((c) => c.text),
      3,
    );
    // One row's cells on one page: their text's left and right edges.
    const rows = new Map<string, { page: number; r: number; left: number; right: number; text: string }>();
    for (const [i, f] of found.entries()) {
      const cell = cells[i];
      if (!f || !cell) continue;
      const key = `${String(f.page)}:${String(cell.r)}`;
      const row = rows.get(key) ?? { page: f.page, r: cell.r, left: Infinity, right: -Infinity, text: cell.text };
      for (const it of f.items) {
        row.left = Math.min(row.left, it.x);
        row.right = Math.max(row.right, it.x + it.width);
      }
      rows.set(key, row);
    }
    for (const row of rows.values()) {
      const page = pages[row.page - 1];
      if (!page) continue;
      const columns = sections
        .filter((s) => Math.abs(s.width - page.width) < 2 && Math.abs(s.height - page.height) < 2)
        .flatMap((s) => s.columns);
      if (columns.length === 0) continue;
      const inside = columns.some((c) => row.left >= c.left - COLUMN_SLACK && row.right <= c.right + COLUMN_SLACK);
      if (!inside) {
        const nearest = columns.reduce((a, c) => (Math.abs(c.left - row.left) < Math.abs(a.left - row.left) ? c : a));
        problems.push(
          `page ${String(row.page)}, table ${String(tables)} row ${String(row.r + 1)} ${quote(row.text)}: text from ${row.left.toFixed(0)} to ${row.right.toFixed(0)} pt, column ${nearest.left.toFixed(0)}–${nearest.right.toFixed(0)} pt`,
        );
        break;
      }
    }
  }
  return problems.length === 0
    ? null
    : `${pair}: ${String(problems.length)} table(s) wider than the column (${problems.slice(0, 3).join('; ')})`;
}

/** Every reader's check of one rendered output. */
export function pageChecks(
  pair: string,
  pages: Page[],
  markdown: string,
  template: Parts,
  output: Parts,
): Record<PageCheck, string | null> {
  const blocks = markdownBlocks(markdown);
  return {
    'first page': firstPageCheck(pair, pages, markdown, template, output),
    'no empty page': emptyPagesCheck(pair, pages, headerFooterWords(output)),
    'lists at body size': listSizeCheck(pair, pages, blocks),
    'tables in column': tableWidthCheck(pair, pages, blocks, sectionBoxes(output)),
  };
}
