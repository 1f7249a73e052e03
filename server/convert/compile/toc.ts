import { BookmarkEnd, BookmarkStart, Paragraph, type FileChild, type ParagraphChild } from 'docx';
import type { Paragraph as MdParagraph, Root } from 'mdast';
import { toString } from 'mdast-util-to-string';
import type { HeadingEntry } from './anchors.ts';

/**
 * A table of contents (issue 15): front matter `toc: true` (at the top) or a paragraph that is exactly `[TOC]` or
 * `[[_TOC_]]` (where it stands) asks for one. The compiler writes a marker paragraph in its place; the packaging step
 * (package/toc.ts) replaces it with a Word TOC field pre-filled with the headings, or fills the template's own TOC.
 */

/** The bookmark name that marks where a TOC goes (never a heading's: those start with a letter). */
export const TOC_MARKER = '_DocwrightToc';
/** Heading levels listed when the front matter sets no `toc_depth`. */
export const DEFAULT_TOC_DEPTH = 3;

/** What the packaging step needs to write the TOC. */
export interface TocRequest {
  /** Heading levels listed (1–9). */
  depth: number;
  /** True when the front matter set `toc_depth` (it then overrides a template TOC's own levels). */
  depthSet: boolean;
  /** Every heading of the document, in order, with its bookmark. */
  headings: HeadingEntry[];
  /** The front matter's `toc-title` (pandoc's): a title paragraph above our own TOC's entries. */
  title?: string;
}

/** What the table of contents needs of the compiler's state (state.ts, which holds a TocState). */
export interface TocHost {
  readonly toc: TocState;
  readonly anchors: { newId(): number };
  warn(warning: string): void;
}

/** The text of a TOC marker paragraph (`[[_TOC_]]` reads as `[[TOC]]` once `_TOC_` is emphasis). */
const MARKERS = new Set(['[TOC]', '[[_TOC_]]', '[[TOC]]']);

/** The table-of-contents state of one conversion. */
export class TocState {
  depth = DEFAULT_TOC_DEPTH;
  depthSet = false;
  /** The front matter's `toc-title`, if any. */
  title: string | undefined;
  /** Set once a marker paragraph was written. */
  written = false;
  /** Marker paragraphs among the top-level blocks (found before compiling). */
  readonly markers = new Set<MdParagraph>();

  /** Finds the marker paragraphs: top-level paragraphs of plain text reading `[TOC]` or `[[_TOC_]]`. */
  findMarkers(tree: Root): void {
    for (const node of tree.children) {
      if (node.type !== 'paragraph') continue;
      if (!node.children.every((c) => c.type === 'text' || c.type === 'emphasis')) continue;
      if (MARKERS.has(toString(node).trim())) this.markers.add(node);
    }
  }

  /**
   * The marker paragraph the packaging step replaces. A document gets one TOC: a later marker prints nothing and is
   * warned with its line (each TOC lists every heading, so one a marker made the output grow with markers × headings).
   */
  marker(state: TocHost): FileChild[] {
    if (this.written) {
      state.warn('toc_repeated: a second table of contents marker is ignored (a document has one)');
      return [];
    }
    this.written = true;
    const id = state.anchors.newId();
    const children = [new BookmarkStart(TOC_MARKER, id), new BookmarkEnd(id)] as unknown as ParagraphChild[];
    return [new Paragraph({ children })];
  }

  request(headings: HeadingEntry[]): TocRequest | undefined {
    if (!this.written) return undefined;
    return { depth: this.depth, depthSet: this.depthSet, headings, ...(this.title ? { title: this.title } : {}) };
  }
}

/**
 * Reads `toc`, `toc_depth` and `toc-title` from the front matter; returns the keys it used and the blocks to print where the front
 * matter stands (the TOC, unless a `[TOC]` paragraph places it).
 */
export function tocFrontMatter(
  state: TocHost,
  record: Record<string, unknown>,
): { used: string[]; blocks: FileChild[] } {
  const used: string[] = [];
  const toc = state.toc;
  if ('toc_depth' in record) {
    used.push('toc_depth');
    const depth = record.toc_depth;
    if (typeof depth === 'number' && Number.isInteger(depth) && depth >= 1 && depth <= 9) {
      toc.depth = depth;
      toc.depthSet = true;
    } else state.warn(`invalid_front_matter: toc_depth must be a whole number from 1 to 9 (${DEFAULT_TOC_DEPTH} used)`);
  }
  if ('toc-title' in record) {
    used.push('toc-title');
    const title = record['toc-title'];
    if (typeof title === 'string' && title.trim()) toc.title = title.trim();
    else state.warn('invalid_front_matter: toc-title must be text (no title)');
  }
  if (!('toc' in record)) return { used, blocks: [] };
  used.push('toc');
  if (typeof record.toc !== 'boolean') {
    state.warn('invalid_front_matter: toc must be true or false (no table of contents)');
    return { used, blocks: [] };
  }
  return { used, blocks: record.toc && toc.markers.size === 0 ? toc.marker(state) : [] };
}
