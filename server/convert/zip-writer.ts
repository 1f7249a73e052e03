import { crc32, deflateRawSync } from 'node:zlib';

/** One file of a package: its path and content (strings are written as UTF-8). */
export interface ZipEntry {
  path: string;
  data: Uint8Array | string;
}

interface Compressed {
  method: 0 | 8;
  crc: number;
  size: number;
  data: Uint8Array;
}

/**
 * Compressed forms of byte arrays that are zipped again and again: a template's parts, which every conversion
 * through that template copies unchanged. Keyed by the array itself, so they go when the template goes.
 */
const cache = new WeakMap<Uint8Array, Compressed>();

/** Fixed timestamp (2000-01-01 00:00, DOS format), so the same parts give the same bytes. */
const DOS_DATE = ((2000 - 1980) << 9) | (1 << 5) | 1;
const DOS_TIME = 0;
/** Parts already compressed (images, fonts) are stored as they are. */
const STORED = /\.(png|jpe?g|gif|odttf|ttf|wdp|emf|wmf)$/i;
const encoder = new TextEncoder();

function compress(path: string, bytes: Uint8Array, level: number): Compressed {
  const crc = crc32(bytes);
  if (STORED.test(path)) return { method: 0, crc, size: bytes.length, data: bytes };
  return { method: 8, crc, size: bytes.length, data: deflateRawSync(bytes, { level }) };
}

/**
 * Zips a package in the order given, with fixed timestamps. Byte-array entries are compressed once and remembered
 * (a template's parts); strings (the parts a conversion writes) are compressed each time.
 */
export function zipEntries(entries: readonly ZipEntry[], level = 6): Uint8Array {
  const files: { name: Uint8Array; utf8: boolean; c: Compressed; offset: number }[] = [];
  let offset = 0;
  for (const { path, data } of entries) {
    let c: Compressed;
    if (typeof data === 'string') c = compress(path, encoder.encode(data), level);
    else {
      const known = cache.get(data);
      c = known ?? compress(path, data, level);
      if (!known) cache.set(data, c);
    }
    const name = encoder.encode(path);
    files.push({ name, utf8: name.length !== path.length, c, offset });
    offset += 30 + name.length + c.data.length;
  }
  const centralSize = files.reduce((sum, f) => sum + 46 + f.name.length, 0);
  const out = new Uint8Array(offset + centralSize + 22);
  const view = new DataView(out.buffer);
  let at = 0;
  const header = (f: (typeof files)[number], central: boolean) => {
    view.setUint32(at, central ? 0x02014b50 : 0x04034b50, true);
    at += 4;
    if (central) {
      view.setUint16(at, 20, true);
      at += 2;
    }
    view.setUint16(at, 20, true);
    view.setUint16(at + 2, f.utf8 ? 0x0800 : 0, true);
    view.setUint16(at + 4, f.c.method, true);
    view.setUint16(at + 6, DOS_TIME, true);
    view.setUint16(at + 8, DOS_DATE, true);
    view.setUint32(at + 10, f.c.crc, true);
    view.setUint32(at + 14, f.c.data.length, true);
    view.setUint32(at + 18, f.c.size, true);
    view.setUint16(at + 22, f.name.length, true);
    view.setUint16(at + 24, 0, true);
    at += 26;
    if (central) {
      // Comment length, disk number, internal and external attributes, offset of the local header.
      view.setUint16(at, 0, true);
      view.setUint16(at + 2, 0, true);
      view.setUint16(at + 4, 0, true);
      view.setUint32(at + 6, 0, true);
      view.setUint32(at + 10, f.offset, true);
      at += 14;
    }
    out.set(f.name, at);
    at += f.name.length;
  };
  for (const f of files) {
    header(f, false);
    out.set(f.c.data, at);
    at += f.c.data.length;
  }
  for (const f of files) header(f, true);
  view.setUint32(at, 0x06054b50, true);
  view.setUint16(at + 4, 0, true);
  view.setUint16(at + 6, 0, true);
  view.setUint16(at + 8, files.length, true);
  view.setUint16(at + 10, files.length, true);
  view.setUint32(at + 12, centralSize, true);
  view.setUint32(at + 16, offset, true);
  view.setUint16(at + 20, 0, true);
  return out;
}
