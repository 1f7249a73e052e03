import { crc32, deflateRawSync } from 'node:zlib';
import { Packer, type Document } from 'docx';
import { Zip, type ZipInputFile } from 'fflate';
import { optimisationsEnabled } from '../optimisations.ts';
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

/** Parts kept as they are (already compressed). */
const STORED = /\.(png|jpe?g|gif|odttf|ttf)$/i;

/** A part as the zip holds it: its bytes deflated (or stored), with the CRC-32 and size of the bytes. */
interface ZipEntry {
  data: Uint8Array;
  crc: number;
  size: number;
  compression: 0 | 8;
  level: number;
}

/**
 * The entries of parts that outlive a conversion (a template's unchanged parts, kept by the template caches and
 * never changed), by their bytes: deflated once, not at every conversion. Weak: a template let go takes its
 * entries with it.
 */
const kept = new WeakMap<Uint8Array, ZipEntry>();

function entryOf(data: Uint8Array, store: boolean, level: number): ZipEntry {
  const crc = crc32(data);
  if (store) return { data, crc, size: data.length, compression: 0, level };
  return { data: deflateRawSync(data, { level }), crc, size: data.length, compression: 8, level };
}

/**
 * Zips a package, [Content_Types].xml first, with fixed timestamps (same parts, same bytes); images stored as they
 * are. Parts are deflated by node:zlib (native: about 3× fflate's deflate) and put in the container by fflate's Zip,
 * which takes them already deflated; `lasting` names the parts whose bytes outlive the conversion (a template's),
 * whose deflated bytes are kept (docs/performance.md, "The zip"). Every part has its sizes and CRC in a data
 * descriptor after it, as streaming zip writers write them.
 */
export function zipParts(
  parts: ReadonlyMap<string, Uint8Array | string>,
  level: 1 | 6 | 9 = 6,
  lasting: (path: string, data: Uint8Array) => boolean = () => false,
): Uint8Array {
  const chunks: Uint8Array[] = [];
  // fflate's Zip hands every chunk over synchronously here: each part is added whole.
  const failures: Error[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) failures.push(error);
    else chunks.push(chunk);
  });
  const reuse = optimisationsEnabled();
  const ordered = ['[Content_Types].xml', ...[...parts.keys()].filter((p) => p !== '[Content_Types].xml')];
  for (const path of ordered) {
    const data = parts.get(path);
    if (data === undefined) continue;
    const bytes = typeof data === 'string' ? encodeUtf8(data) : data;
    const store = STORED.test(path);
    const keep = reuse && typeof data !== 'string' && lasting(path, data);
    let entry = keep ? kept.get(bytes) : undefined;
    if (entry?.level !== level || entry.compression !== (store ? 0 : 8)) {
      entry = entryOf(bytes, store, level);
      if (keep) kept.set(bytes, entry);
    }
    const file: ZipInputFile = {
      filename: path,
      size: entry.size,
      crc: entry.crc,
      compression: entry.compression,
      mtime: ZIP_MTIME,
    };
    zip.add(file);
    // fflate only reads the chunk (its type asks for an ArrayBuffer-backed one).
    file.ondata?.(null, entry.data as Uint8Array<ArrayBuffer>, true);
  }
  zip.end();
  if (failures[0]) throw failures[0];
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
