// What the drop zone says while files hover over it. Browsers tell the kinds and content types of dragged items
// before the drop, not their names, so markdown is counted by type (text/markdown, text/plain) and anything with
// another known type is named as skipped; an item of no type (a folder, or a file the system has no type for) is
// checked by its name on the drop.
import { ACCEPTED } from './convert-queue.svelte.ts';

const MARKDOWN_TYPES = new Set(['text/markdown', 'text/x-markdown', 'text/plain']);
/** Types systems give bibliographies and CSL styles (a .bib or .csl often has none: then it is "unknown"). */
const CITATION_TYPES = new Set([
  'text/x-bibtex',
  'application/x-bibtex',
  'text/x-bibtex-source',
  'application/json',
  'application/vnd.citationstyles.csl+json',
  'application/yaml',
  'application/x-yaml',
  'text/yaml',
  'text/x-yaml',
  'application/vnd.citationstyles.style+xml',
]);
const NAMES: Record<string, string> = {
  'application/pdf': 'PDF',
  'application/msword': 'Word document',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word document',
  'application/vnd.oasis.opendocument.text': 'OpenDocument text',
  'application/rtf': 'RTF',
  'text/html': 'HTML',
  'application/zip': 'ZIP',
  'image/svg+xml': 'SVG image',
};

/** A content type in words: "PDF", "PNG image", "Word document", else "other". */
function kindOf(type: string): string {
  const known = NAMES[type];
  if (known) return known;
  if (type.startsWith('image/')) return `${type.slice(6).toUpperCase()} image`;
  return 'other';
}

/** The dragged items as the drop will treat them. */
export interface DragSummary {
  /** Markdown by its type: these convert. */
  convert: number;
  /** Items of no type: converted on the drop if their names end in .md, .markdown or .txt. */
  unknown: number;
  /** Images, which come with markdown (embedded where it names them) and are skipped alone. */
  images: number;
  /** Bibliographies and CSL styles by their type: sent with the markdown, or kept for the next one when alone. */
  citations: number;
  /** Everything else, with images when nothing else convert: the kinds, in words, that will be skipped. */
  skipped: string[];
}

/** Sorts dragged items (kind and type only, as browsers give them while dragging). */
export function summarise(items: readonly { kind: string; type: string }[]): DragSummary {
  const files = items.filter((item) => item.kind === 'file');
  const convert = files.filter((f) => MARKDOWN_TYPES.has(f.type)).length;
  const unknown = files.filter((f) => f.type === '').length;
  const images = files.filter((f) => f.type.startsWith('image/'));
  const citations = files.filter((f) => CITATION_TYPES.has(f.type)).length;
  const others = files.filter(
    (f) => f.type !== '' && !MARKDOWN_TYPES.has(f.type) && !f.type.startsWith('image/') && !CITATION_TYPES.has(f.type),
  );
  const alone = convert === 0 && unknown === 0;
  const skipped = [...others, ...(alone ? images : [])].map((f) => kindOf(f.type));
  return { convert, unknown, images: alone ? 0 : images.length, citations, skipped };
}

const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;

/** The hover message: its first line (what a release does) and what will be skipped ('' when nothing). */
export function dragMessage(summary: DragSummary): { action: string; skipped: string } {
  const { convert, unknown, images, citations, skipped } = summary;
  const kinds = [...new Set(skipped)].join(', ');
  const total = convert + unknown + images + citations + skipped.length;
  let action: string;
  if (convert > 0)
    action =
      `Release to convert ${files(convert)}` +
      (unknown > 0 ? ` (${unknown} more if ${unknown === 1 ? 'its name ends' : 'their names end'} in .md)` : '') +
      (images > 0 ? `, with ${images} image${images === 1 ? '' : 's'}` : '') +
      (citations > 0
        ? `${images > 0 ? ' and' : ', with'} ${citations} bibliography or style file${citations === 1 ? '' : 's'}`
        : '');
  else if (unknown > 0) action = `Release to convert what is markdown (${ACCEPTED.join(', ')}) among ${files(unknown)}`;
  else if (citations > 0 && skipped.length === 0)
    action = `Release to add ${citations === 1 ? 'this bibliography or style' : 'these bibliographies or styles'} for the markdown you convert`;
  else if (total === 1) action = 'This file will not convert';
  else action = `None of these ${files(total)} will convert`;
  const skippedText =
    skipped.length === 0
      ? ''
      : `${skipped.length} will be skipped (${kinds}): Docwright converts ${ACCEPTED.join(', ')} files.`;
  return { action, skipped: skippedText };
}
