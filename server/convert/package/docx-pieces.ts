// docx lays our content out in pieces: a long body as several docx Documents of a few hundred blocks each, packed one
// after another, whose parts are then put together as the one Document of the whole body would have written them,
// byte for byte. docx formats a Document's whole body into a tree of plain objects before writing any of it (at 1.2 MB
// of markdown, 237 MB live: docs/performance.md), so a piece bounds that tree to its own blocks.
//
// What differs between a piece's parts and the whole's, and how it is put right:
// - list ids: each Document numbers its lists (w:num) from 2 in the order they are first used, after docx's default
//   list (1). A markdown list is one numbering instance of its own, in one top-level block (compile/list.ts), and a
//   piece ends only before a block that starts a top-level one, so no list is in two pieces: a piece's lists take the
//   ids after the pieces' before it, as one Document gives them. Its abstract numberings come from the numbering
//   options alone, the same in every piece.
// - pictures: each Document names its media from image1 and relates them with ids counted from its other
//   relationships, and stores a picture once however often it is used (by its bytes). A later piece's are renamed,
//   and a picture an earlier piece has is its earlier relationship.
// - hyperlinks: docx relates each with an id of its own making (random, unique), kept.
// - notes and comments: laid out with the last piece, after its body, as one Document lays them out after the body.
// Everything else a Document writes (bookmark, note and comment ids) is ours, given by the compiler.
import { Document, type FileChild, type ICommentOptions, type IPropertiesOptions } from 'docx';
import { textOf } from '../xml.ts';
import { bodyBounds } from './body.ts';
import { IMAGE_REL } from './media.ts';
import { generatedRelationships } from './relationships.ts';
import { docxParts } from './zip.ts';

/** The blocks a piece holds at least (the last holds what is left): 400 at about 150 bytes of markdown a block. */
export const PIECE_BLOCKS = 400;

/** What docx lays out: the body's blocks, with the blocks that start a top-level markdown block, notes and comments. */
export interface DocxContent {
  children: FileChild[];
  /** The blocks that start a block of the markdown's top level: a piece ends only before one. */
  starts: ReadonlySet<FileChild>;
  numbering: IPropertiesOptions['numbering'];
  footnotes: IPropertiesOptions['footnotes'];
  comments: ICommentOptions[];
}

/** docx's parts for the content, as one Document writes them (by path: text, or bytes for pictures). */
export async function docxContentParts(
  content: DocxContent,
  pieceBlocks: number = PIECE_BLOCKS,
): Promise<Map<string, Uint8Array | string>> {
  const pieces = piecesOf(content.children, content.starts, pieceBlocks);
  // A piece's blocks go once docx has written them (a long document's docx objects: 55 MB at 1.2 MB): nothing else
  // may hold them, the set of starts neither.
  content.children.length = 0;
  content.starts = new Set();
  const notes = {
    ...(Object.keys(content.footnotes ?? {}).length > 0 ? { footnotes: content.footnotes } : {}),
    ...(content.comments.length > 0 ? { comments: { children: content.comments } } : {}),
  };
  const document = (children: FileChild[], last: boolean): Document =>
    new Document({ numbering: content.numbering, ...(last ? notes : {}), sections: [{ children }] });
  if (pieces.length <= 1) return docxParts(document(pieces[0] ?? [], true));
  const whole = new Whole();
  for (let k = 0; k < pieces.length; k++) {
    const last = k === pieces.length - 1;
    const parts = await docxParts(document(pieces[k] ?? [], last));
    pieces[k] = [];
    whole.add(parts, k, last);
  }
  return whole.parts();
}

/** Cuts `children` into pieces of at least `size` blocks, each ending before a block in `starts`. */
export function piecesOf(children: readonly FileChild[], starts: ReadonlySet<FileChild>, size: number): FileChild[][] {
  const pieces: FileChild[][] = [];
  let piece: FileChild[] = [];
  for (const child of children) {
    if (piece.length >= size && starts.has(child)) {
      pieces.push(piece);
      piece = [];
    }
    piece.push(child);
  }
  if (piece.length > 0 || pieces.length === 0) pieces.push(piece);
  return pieces;
}

const NUM = /<w:num w:numId="(\d+)">[\s\S]*?<\/w:num>/g;
const NUM_ID = /<w:numId w:val="(\d+)"\/>/g;
const EMBED = / r:embed="([^"]*)"/g;
const RELATIONSHIP = /<Relationship\s[^>]*>/g;
/** A part's text, '' when there is none. */
const partText = (parts: ReadonlyMap<string, Uint8Array | string>, path: string): string => {
  const data = parts.get(path);
  return data === undefined ? '' : textOf(data);
};

/** The pieces' parts put together as one Document's. */
class Whole {
  /** The first piece's parts, which the others' are added to (its document's text around the body). */
  private first = new Map<string, Uint8Array | string>();
  private readonly bodies: string[] = [];
  private tail = '';
  /** The list instances (w:num) of every piece, renumbered; the highest id so far. */
  private readonly nums: string[] = [];
  private lastNum = 0;
  /** Relationships past the first piece's (renamed pictures; hyperlinks as they are). */
  private readonly relationships: string[] = [];
  /** The pictures stored so far: their bytes, with their relationship ids. */
  private readonly pictures: { data: Uint8Array; id: string }[] = [];

  add(parts: Map<string, Uint8Array | string>, k: number, last: boolean): void {
    const text = (path: string): string => partText(parts, path);
    const document = text('word/document.xml');
    const bounds = bodyBounds(document);
    // The piece's lists: docx's default (1) once, its own after the pieces' before it.
    const numbering = text('word/numbering.xml');
    const listIds = new Map<string, string>();
    for (const [num, id = ''] of numbering.matchAll(NUM)) {
      if (k > 0 && id === '1') continue;
      const to = k === 0 ? id : String(this.lastNum + Number(id) - 1);
      listIds.set(id, to);
      this.nums.push(k === 0 ? num : num.replace(`w:numId="${id}"`, `w:numId="${to}"`));
    }
    this.lastNum = Math.max(this.lastNum, ...[...listIds.values()].map(Number));
    // Its pictures: renamed past the first piece, or the earlier piece's where it has the same bytes.
    const embeds = new Map<string, string>();
    const earlierPictures = this.pictures.length;
    const rels = text('word/_rels/document.xml.rels');
    // Each relationship read by relationships.ts, beside its tag (both in the part's order).
    const tags = Array.from(rels.matchAll(RELATIONSHIP), ([tag]) => tag);
    for (const [n, { id, type, target }] of generatedRelationships(rels).entries()) {
      const tag = tags[n] ?? '';
      if (type !== IMAGE_REL) {
        if (k > 0 && type.endsWith('/hyperlink')) this.relationships.push(tag);
        continue;
      }
      const data = parts.get(`word/${target}`);
      if (!(data instanceof Uint8Array)) continue;
      const earlier = this.pictures
        .slice(0, earlierPictures)
        .find((p) => p.data.length === data.length && Buffer.from(p.data).equals(data));
      if (earlier) {
        embeds.set(id, earlier.id);
        continue;
      }
      const ownId = k === 0 ? id : `${id}p${String(k)}`;
      this.pictures.push({ data, id: ownId });
      if (k === 0) continue;
      const ownTarget = target.replace(/([^/]*)$/, `p${String(k)}-$1`);
      embeds.set(id, ownId);
      this.first.set(`word/${ownTarget}`, data);
      this.relationships.push(
        tag.replace(`Id="${id}"`, `Id="${ownId}"`).replace(`Target="${target}"`, `Target="${ownTarget}"`),
      );
    }
    const renumbered = (xml: string): string =>
      k > 0 && listIds.size > 0
        ? xml.replace(NUM_ID, (tag, id: string) => {
            const to = listIds.get(id);
            return to === undefined ? tag : `<w:numId w:val="${to}"/>`;
          })
        : xml;
    let body = renumbered(document.slice(bounds.from, bounds.to));
    if (embeds.size > 0)
      body = body.replace(EMBED, (attr, id: string) => {
        const to = embeds.get(id);
        return to === undefined ? attr : ` r:embed="${to}"`;
      });
    this.bodies.push(body);
    if (k === 0) {
      this.first = parts;
      this.first.set('word/document.xml', document.slice(0, bounds.from));
    }
    if (last) {
      this.tail = document.slice(bounds.to);
      // The notes' and comments' lists too: laid out after the body, as one Document numbers them.
      for (const path of ['word/footnotes.xml', 'word/_rels/footnotes.xml.rels', 'word/comments.xml']) {
        const part = parts.get(path);
        if (part === undefined) this.first.delete(path);
        else this.first.set(path, path.endsWith('.rels') ? part : renumbered(text(path)));
      }
    }
  }

  parts(): Map<string, Uint8Array | string> {
    const parts = this.first;
    const text = (path: string): string => partText(parts, path);
    parts.set('word/document.xml', text('word/document.xml') + this.bodies.join('') + this.tail);
    this.bodies.length = 0;
    const numbering = text('word/numbering.xml');
    const from = numbering.indexOf('<w:num w:numId=');
    const to = numbering.lastIndexOf('</w:numbering>');
    if (from >= 0 && to >= from)
      parts.set('word/numbering.xml', numbering.slice(0, from) + this.nums.join('') + numbering.slice(to));
    if (this.relationships.length > 0) {
      const rels = text('word/_rels/document.xml.rels');
      const end = rels.lastIndexOf('</Relationships>');
      parts.set('word/_rels/document.xml.rels', rels.slice(0, end) + this.relationships.join('') + rels.slice(end));
    }
    return parts;
  }
}
