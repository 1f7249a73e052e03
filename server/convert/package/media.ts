import type { ContentTypes } from './content-types.ts';
import { descendants, parsePart } from './dom.ts';
import { NS } from './namespaces.ts';
import type { GeneratedRelationship, Relationships } from './relationships.ts';

/** Relationship type of an image part. */
export const IMAGE_REL = `${NS.r}/image`;

const MEDIA_TYPE: Record<string, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
};

/**
 * Moves the images docx wrote (its `media/` parts and their relationships) into the template's package: parts under
 * names the template does not use, relationships with ids of our own, a content type each. Returns docx's relationship
 * ids → ours (renameEmbeds applies them to the content).
 */
export function moveMediaParts(
  generated: ReadonlyMap<string, string | Uint8Array>,
  generatedRels: readonly GeneratedRelationship[],
  rels: Relationships,
  types: ContentTypes,
  out: Map<string, Uint8Array | string>,
  mainPart: string,
): Map<string, string> {
  const renamed = new Map<string, string>();
  const folder = mainPart.slice(0, mainPart.lastIndexOf('/') + 1);
  // Part names are compared without case (ECMA-376 Part 2, 6.3.5): `Docwright-Image1.png` in a template is taken.
  // Both folds are kept: readers fold with Unicode's mapping, where `ı` upper-cases to `I` but does not lower-case.
  const folds = (path: string): string[] => [path.toLowerCase(), path.toUpperCase()];
  const taken = new Set([...out.keys()].flatMap(folds));
  let n = 0;
  for (const rel of generatedRels) {
    if (rel.type !== IMAGE_REL) continue;
    const target = rel.target;
    const data = generated.get(`word/${target}`);
    const extension = target.slice(target.lastIndexOf('.') + 1).toLowerCase();
    const type = MEDIA_TYPE[extension];
    if (data === undefined || typeof data === 'string' || type === undefined) continue;
    let name: string;
    do {
      n += 1;
      name = `media/docwright-image${n}.${extension}`;
    } while (folds(`${folder}${name}`).some((fold) => taken.has(fold)));
    for (const fold of folds(`${folder}${name}`)) taken.add(fold);
    out.set(`${folder}${name}`, data);
    types.addOverride(`/${folder}${name}`, type);
    renamed.set(rel.id, rels.add(IMAGE_REL, name, { prefix: 'dwImg' }));
  }
  return renamed;
}

/** Parts whose drawings share the document's drawing ids (headers, footers, notes, comments). */
function sharesDrawingIds(path: string): boolean {
  return /^word\/(header|footer|footnotes|endnotes|comments)\d*\.xml$/.test(path);
}

/**
 * The ids for our drawings (Word wants each `wp:docPr` id once in the document), one after another past every id
 * the template's headers, footers and notes use (from 1 when they use none). Always renumbered: docx counts drawings
 * across every document of the process, so its ids would make the same input give other bytes after other
 * conversions.
 */
export function drawingIds(parts: ReadonlyMap<string, Uint8Array | string>): () => number {
  let max = 0;
  for (const [path, data] of parts) {
    if (!sharesDrawingIds(path)) continue;
    for (const docPr of descendants(parsePart(data, path), NS.wp, 'docPr')) {
      const id = Number(docPr.getAttribute('id'));
      if (Number.isInteger(id) && id > max) max = id;
    }
  }
  return () => (max += 1);
}
