import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { Packer, type Document } from 'docx';
import { decodeUtf8, encodeUtf8 } from '../xml.ts';

/**
 * The parts docx writes for a document, through its public API: Packer zips them (with fflate), and they are unzipped
 * here. What docx lacks (fields, bookmarks decided late) the package step adds through the DOM.
 */
export async function docxParts(doc: Document): Promise<Map<string, Uint8Array>> {
  return unzipOwn(await Packer.pack(doc, 'uint8array'));
}

/**
 * A zip docx wrote for us (trusted: a template, which is not, is read by template/zip.ts with its limits), its parts
 * inflated by node:zlib: native, about four times fflate's speed (120 KB of markdown: 2.6 -> 0.6 ms of CPU).
 */
function unzipOwn(zip: Uint8Array): Map<string, Uint8Array> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end -= 1;
  if (end < 0) throw new Error('docx wrote no zip');
  const parts = new Map<string, Uint8Array>();
  let at = view.getUint32(end + 16, true);
  for (let k = view.getUint16(end + 10, true); k > 0; k -= 1) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error('docx wrote a zip this step does not read');
    const method = view.getUint16(at + 10, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const local = view.getUint32(at + 42, true);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = zip.subarray(start, start + view.getUint32(at + 20, true));
    const part = method === 8 ? inflateRawSync(data) : data.slice();
    if ((method !== 0 && method !== 8) || part.length !== size)
      throw new Error('docx wrote a zip this step does not read');
    parts.set(decodeUtf8(zip.subarray(at + 46, at + 46 + nameLength)), part);
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return parts;
}

// The zip container. Our zip library (fflate) deflates every part itself, on every call, in JavaScript; it takes no
// part already deflated except through its streaming writer, whose local headers leave the sizes and CRC to a data
// descriptor after the data, which Java's ZipInputStream (Apache POI opening a stream) refuses on a stored part
// (test/convert/package/zip.test.ts). So a package is written here: each part deflated by node:zlib (native, about
// three times fflate's speed on our parts), a template's unchanged parts once per template (PartCache), and the
// container laid out as APPNOTE.TXT 4.3 gives it: local header + data per part, the central directory, its end record.
// No ZIP64: a package of 65,535 parts or 4 GB is refused (the limits keep a conversion far below either).

/** A part as the zip holds it. */
export interface Entry {
  crc: number;
  size: number;
  method: 0 | 8;
  data: Uint8Array;
}

/**
 * A template's parts as the zip holds them, deflated once: its parts are the same arrays in every package made from
 * it (a template is read once and never changed). Only arrays `keep` was given are cached: a caller's own arrays
 * (a picture's bytes) may change between conversions.
 */
export class PartCache {
  private readonly entries = new WeakMap<Uint8Array, Entry>();
  private readonly own = new WeakSet<Uint8Array>();

  /** Marks arrays as the template's own (never changed while the template is in use). */
  keep(parts: Iterable<Uint8Array>): void {
    for (const part of parts) this.own.add(part);
  }

  get(part: Uint8Array): Entry | undefined {
    return this.own.has(part) ? this.entries.get(part) : undefined;
  }

  set(part: Uint8Array, entry: Entry): void {
    if (this.own.has(part)) this.entries.set(part, entry);
  }
}

/** Parts stored as they are: they are compressed already. */
const STORED = /\.(png|jpe?g|gif|odttf|ttf)$/i;

/** 2000-01-01 00:00:00 as MS-DOS date and time (APPNOTE 4.4.6): fixed, so the same parts give the same bytes. */
const DOS_DATE = ((2000 - 1980) << 9) | (1 << 5) | 1;
const DOS_TIME = 0;
/** General purpose flag bit 11: the name is UTF-8. */
const UTF8_NAME = 0x0800;
const MAX_16 = 0xffff;
const MAX_32 = 0xffffffff;

function entryOf(path: string, data: Uint8Array, level: number): Entry {
  const crc = crc32(data) >>> 0;
  const deflated = level === 0 || STORED.test(path) ? undefined : deflateRawSync(data, { level });
  // A part deflate does not make smaller (a picture in another format, an embedded binary) is stored as it is.
  return deflated && deflated.length < data.length
    ? { crc, size: data.length, method: 8, data: deflated }
    : { crc, size: data.length, method: 0, data };
}

/**
 * The fields a part's local header and its central directory header share, in the same order (APPNOTE 4.3.7 and
 * 4.3.12, from "version needed to extract" to "extra field length"): 26 bytes from `at`.
 */
function writeHeaderFields(view: DataView, at: number, flags: number, entry: Entry, nameLength: number): void {
  view.setUint16(at, 20, true);
  view.setUint16(at + 2, flags, true);
  view.setUint16(at + 4, entry.method, true);
  view.setUint16(at + 6, DOS_TIME, true);
  view.setUint16(at + 8, DOS_DATE, true);
  view.setUint32(at + 10, entry.crc, true);
  view.setUint32(at + 14, entry.data.length, true);
  view.setUint32(at + 18, entry.size, true);
  view.setUint16(at + 22, nameLength, true);
  view.setUint16(at + 24, 0, true);
}

/**
 * Zips a package, [Content_Types].xml first, with fixed timestamps (same parts, same bytes); images stored as they
 * are. `cache` (for parts given as arrays) must be used with one level only.
 */
export function zipParts(
  parts: ReadonlyMap<string, Uint8Array | string>,
  level: 1 | 6 | 9 = 6,
  cache?: PartCache,
): Uint8Array {
  const ordered = ['[Content_Types].xml', ...[...parts.keys()].filter((p) => p !== '[Content_Types].xml')];
  const files: { name: Uint8Array; flags: number; entry: Entry; offset: number }[] = [];
  let offset = 0;
  let directory = 0;
  for (const path of ordered) {
    const data = parts.get(path);
    if (data === undefined) continue;
    let entry = typeof data === 'string' ? undefined : cache?.get(data);
    if (!entry) {
      entry = entryOf(path, typeof data === 'string' ? encodeUtf8(data) : data, level);
      if (typeof data !== 'string') cache?.set(data, entry);
    }
    const name = encodeUtf8(path);
    // A template's part names come from a zip's 16-bit lengths, but one read as windows-1252 grows as UTF-8 (the
    // template reader refuses those; a name made here never comes near).
    if (name.length > MAX_16) throw new Error(`a part name is too long for a zip (${String(name.length)} bytes)`);
    // UTF-8 is longer than UTF-16 exactly when the name holds a character past ASCII.
    const flags = name.length === path.length ? 0 : UTF8_NAME;
    files.push({ name, flags, entry, offset });
    offset += 30 + name.length + entry.data.length;
    directory += 46 + name.length;
  }
  if (files.length > MAX_16 || offset > MAX_32 || directory > MAX_32)
    throw new Error('the package is too large for a zip without ZIP64');
  const out = new Uint8Array(offset + directory + 22);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const { name, flags, entry } of files) {
    view.setUint32(at, 0x04034b50, true);
    writeHeaderFields(view, at + 4, flags, entry, name.length);
    out.set(name, at + 30);
    out.set(entry.data, at + 30 + name.length);
    at += 30 + name.length + entry.data.length;
  }
  for (const { name, flags, entry, offset: local } of files) {
    view.setUint32(at, 0x02014b50, true);
    view.setUint16(at + 4, 20, true);
    writeHeaderFields(view, at + 6, flags, entry, name.length);
    // Comment, disk number, internal and external attributes: none, 0.
    view.setUint32(at + 42, local, true);
    out.set(name, at + 46);
    at += 46 + name.length;
  }
  view.setUint32(at, 0x06054b50, true);
  view.setUint16(at + 8, files.length, true);
  view.setUint16(at + 10, files.length, true);
  view.setUint32(at + 12, directory, true);
  view.setUint32(at + 16, offset, true);
  return out;
}
