import { Packer, type Document } from 'docx';
import { zipSync, type Zippable } from 'fflate';
import { encodeUtf8 } from '../xml.ts';

/** Fixed zip timestamp, so the same input gives the same bytes. */
const ZIP_MTIME = new Date('2000-01-01T00:00:00Z');

type Compiled = ReadonlyMap<string, string | Uint8Array>;

/** An image docx's compile found in a part's XML: its media key and file name. */
export interface MediaData {
  key: string;
  fileName: string;
}

/** A list instance docx numbered (its `{reference-instance}` placeholders become numId). */
export interface ConcreteNumbering {
  reference: string;
  instance: number;
  numId: number;
}

/** docx's compiler (Packer's), and the placeholder replacers it uses on every part's text. */
export interface DocxCompiler {
  compile(file: Document): Compiled;
  imageReplacer: { replace(xml: string, images: readonly MediaData[], offset: number): string };
  numberingReplacer: { replace(xml: string, numberings: readonly ConcreteNumbering[]): string };
}

/**
 * docx's compiler: docx's Packer would deflate every part only for us to inflate them again, so its compiler (the
 * part map Packer zips, in docx ≥ 9.15) is used directly; a test pins this.
 */
export function docxCompiler(): DocxCompiler {
  const compiler = (Packer as unknown as { compiler?: Partial<DocxCompiler> }).compiler;
  if (
    typeof compiler?.compile !== 'function' ||
    typeof compiler.imageReplacer?.replace !== 'function' ||
    typeof compiler.numberingReplacer?.replace !== 'function'
  )
    throw new Error('This docx version has no Packer.compiler; Docwright needs docx 9.15 or later.');
  return compiler as DocxCompiler;
}

/** Lays the document out with docx, in memory (see docxCompiler). */
export function compileParts(doc: Document): Compiled {
  return docxCompiler().compile(doc);
}

/** Zips a package, [Content_Types].xml first, with fixed timestamps (same parts, same bytes); images stored as they are. */
export function zipParts(parts: ReadonlyMap<string, Uint8Array | string>, level: 1 | 6 | 9 = 6): Uint8Array {
  const files: Zippable = {};
  const ordered = ['[Content_Types].xml', ...[...parts.keys()].filter((p) => p !== '[Content_Types].xml')];
  for (const path of ordered) {
    const data = parts.get(path);
    if (data === undefined) continue;
    files[path] = [
      typeof data === 'string' ? encodeUtf8(data) : data,
      { mtime: ZIP_MTIME, level: /\.(png|jpe?g|gif|odttf|ttf)$/i.test(path) ? 0 : level },
    ];
  }
  return zipSync(files);
}
