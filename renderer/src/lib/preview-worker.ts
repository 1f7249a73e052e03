// The preview's worker: reads the .docx off the main thread and hands the page a few pages' worth of it at a time
// (docx-blocks.ts), each a small .docx sharing the original's other parts, so reading a large document never blocks
// the window. Its messages are typed in preview-source.ts.
import { strFromU8, strToU8, unzipSync, zipSync, type Unzipped } from 'fflate';
import {
  documentOf,
  groupBlocks,
  numberingFor,
  relationshipsFor,
  splitBody,
  valuesOf,
  type Body,
} from './docx-blocks.ts';
import type { FromWorker, ToWorker } from './preview-source.ts';

/** Under a page of text a piece: each is laid out in one go on the main thread, so it stays a short task. */
const FIRST_TEXT = 1_200;
const PIECE_TEXT = 1_500;

/** The parts the page marks (page fields, header tab stops) before anything is rendered. */
const MARKED = /^word\/(styles|header\d*|footer\d*)\.xml$/;

let files: Unzipped = {};
let body: Body | null = null;
let groups: [number, number][] = [];
/** Lists the styles use (a list style's paragraphs name no list of their own). */
let styleLists = new Set<string>();
/** The parts that grow with the document, read once. */
let numbering: string | null = null;
let rels: string | null = null;

function reply(message: FromWorker, transfer: Transferable[] = []): void {
  self.postMessage(message, { transfer });
}

function open(bytes: Uint8Array): void {
  files = unzipSync(bytes);
  const xml = files['word/document.xml'];
  body = xml ? splitBody(strFromU8(xml)) : null;
  groups = body ? groupBlocks(body.text, FIRST_TEXT, PIECE_TEXT) : [[0, 0]];
  const styles = files['word/styles.xml'];
  styleLists = styles ? valuesOf(strFromU8(styles), 'numId') : new Set();
  const numberingPart = files['word/numbering.xml'];
  numbering = numberingPart ? strFromU8(numberingPart) : null;
  const relsPart = files['word/_rels/document.xml.rels'];
  rels = relsPart ? strFromU8(relsPart) : null;
  if (groups.length === 0) groups = [[0, 0]];
  const parts: Record<string, Uint8Array> = {};
  for (const [name, data] of Object.entries(files)) if (MARKED.test(name)) parts[name] = data.slice();
  reply({
    kind: 'opened',
    parts,
    pieces: groups.length,
    text: body ? body.text.reduce((sum, n) => sum + n, 0) : 0,
  });
}

/** Only what the piece's blocks use of the parts that grow with the document: its lists, links and images. */
function partsFor(blocks: string): Unzipped {
  const parts: Unzipped = {};
  if (numbering !== null) {
    const lists = new Set([...styleLists, ...valuesOf(blocks, 'numId')]);
    const pruned = numberingFor(numbering, lists);
    if (pruned !== null) parts['word/numbering.xml'] = strToU8(pruned);
  }
  if (rels !== null) {
    const pruned = relationshipsFor(rels, blocks);
    if (pruned !== null) parts['word/_rels/document.xml.rels'] = strToU8(pruned);
  }
  return parts;
}

function piece(index: number): void {
  const [start, end] = groups[index] ?? [0, 0];
  let bytes: Uint8Array;
  let text = 0;
  if (body) {
    const blocks = body.blocks.slice(start, end);
    const joined = blocks.join('');
    const document = strToU8(documentOf(body, blocks));
    // Stored, not compressed: the page unzips it at once.
    bytes = zipSync({ ...files, ...partsFor(joined), 'word/document.xml': document }, { level: 0 });
    text = body.text.slice(start, end).reduce((sum, n) => sum + n, 0);
  } else bytes = zipSync(files, { level: 0 });
  reply({ kind: 'piece', index, bytes, text }, [bytes.buffer]);
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  try {
    if (message.kind === 'open') open(message.bytes);
    else if (message.kind === 'marked') Object.assign(files, message.parts);
    else piece(message.index);
  } catch (error) {
    reply({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
};
