import { Inflate } from 'fflate';
import { ConvertInputError } from '../errors.ts';
import { encodeUtf8 } from '../xml.ts';

/** Limits that keep a hostile template (zip bomb, huge part count) from exhausting memory or time. */
export const TEMPLATE_LIMITS = {
  maxEntries: 2000,
  maxTotalBytes: 256 * 1024 * 1024,
  /** Largest uncompressed/compressed ratio of one part (parts under 1 MB are exempt): deflate manages ~1000:1, XML ~10–30:1. */
  maxCompressionRatio: 200,
  /**
   * The same ratio over the whole package once it unpacks to more than this: many parts each under 1 MB (exempt one
   * by one) must not add up to hundreds of MB from a few hundred KB, held in every worker that reads the template.
   */
  packageRatioFrom: 16 * 1024 * 1024,
  /**
   * Past this unpacked size the whole package may be compressed at most `largePackageRatio`:1. A template that large
   * is pictures and fonts (about 1:1; its XML 10–30:1), not hundreds of MB from a few; a bomb padded with
   * incompressible bytes to pass the ratio above must send a tenth of what it unpacks to.
   */
  largePackageFrom: 64 * 1024 * 1024,
  largePackageRatio: 20,
};

/** Compressed bytes fed to the inflater at a time: a part whose header lies about its size is stopped within one slice. */
const SLICE = 16 * 1024;

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** Offset of the local file header. */
  offset: number;
}

function refuse(detail: string): never {
  throw new ConvertInputError('template_invalid', `The template is not a usable .docx file: ${detail}.`);
}

/**
 * Reads a zip package into its parts, checking everything the central directory declares (entry count, total and
 * per-part uncompressed size, compression ratio, overlapping entries, part names) before anything is inflated, then
 * inflating each part against its declared size so that a part which lies about it is stopped, not followed.
 * Part names are only map keys: nothing is ever written to disk from them; unsafe ones are refused.
 */
export function unzipPackage(bytes: Uint8Array): Map<string, Uint8Array> {
  if (bytes.length < 22 || bytes[0] !== 0x50 || bytes[1] !== 0x4b) {
    throw new ConvertInputError(
      'template_invalid',
      'This file is not a Word template (.docx or .dotx). It is not a zip package.',
    );
  }
  const entries = centralDirectory(bytes);
  if (entries.length > TEMPLATE_LIMITS.maxEntries)
    refuse(`it has ${entries.length} parts, more than ${TEMPLATE_LIMITS.maxEntries}`);
  let total = 0;
  let compressed = 0;
  const seen = new Set<string>();
  for (const entry of entries) {
    checkName(entry.name);
    const key = entry.name.toLowerCase();
    if (seen.has(key)) refuse(`it holds the part ${entry.name} twice`);
    seen.add(key);
    if (entry.method !== 0 && entry.method !== 8)
      refuse(`part ${entry.name} uses an unsupported compression method (${entry.method})`);
    if (entry.method === 0 && entry.size !== entry.compressedSize)
      refuse(`part ${entry.name} is stored with inconsistent sizes`);
    total += entry.size;
    if (total > TEMPLATE_LIMITS.maxTotalBytes)
      refuse(`it unpacks to more than ${TEMPLATE_LIMITS.maxTotalBytes / 1024 / 1024} MB`);
    if (entry.size > Math.max(1024 * 1024, entry.compressedSize * TEMPLATE_LIMITS.maxCompressionRatio)) {
      refuse(`part ${entry.name} is compressed suspiciously well (a zip bomb?)`);
    }
    compressed += entry.compressedSize;
  }
  // Each part's data must lie between its own header and the next one: overlapping entries are a zip bomb's trick.
  const located = entries
    .map((entry) => ({ entry, start: dataStart(bytes, entry) }))
    .sort((a, b) => a.entry.offset - b.entry.offset);
  for (let i = 0; i < located.length; i++) {
    const current = located[i];
    if (!current) continue;
    const end = current.start + current.entry.compressedSize;
    const limit = located[i + 1]?.entry.offset ?? bytes.length;
    if (end > limit) refuse(`part ${current.entry.name} overlaps another part or runs past the end of the file`);
  }
  // Parts that do not overlap, compressed that well together: many small bombs (each under the part's ratio check).
  if (
    total > Math.max(TEMPLATE_LIMITS.packageRatioFrom, compressed * TEMPLATE_LIMITS.maxCompressionRatio) ||
    total > Math.max(TEMPLATE_LIMITS.largePackageFrom, compressed * TEMPLATE_LIMITS.largePackageRatio)
  )
    refuse(`its parts are compressed suspiciously well as a whole (a zip bomb?)`);
  const parts = new Map<string, Uint8Array>();
  for (const { entry, start } of located) {
    if (entry.name.endsWith('/')) continue; // a folder entry
    const data = bytes.subarray(start, start + entry.compressedSize);
    parts.set(entry.name, entry.method === 0 ? data.slice() : inflateExactly(data, entry));
  }
  return parts;
}

/** Inflates one part into a buffer of its declared size; more or fewer bytes than declared refuse the package. */
function inflateExactly(data: Uint8Array, entry: Entry): Uint8Array {
  const out = new Uint8Array(entry.size);
  let written = 0;
  let ended = false as boolean; // set in the inflater's callback, which TypeScript does not follow
  const inflater = new Inflate((chunk, final) => {
    if (written + chunk.length > entry.size)
      refuse(`part ${entry.name} unpacks to more than its declared ${entry.size} bytes (a zip bomb?)`);
    out.set(chunk, written);
    written += chunk.length;
    if (final) ended = true;
  });
  try {
    for (let at = 0; at < data.length || at === 0; at += SLICE) {
      const end = Math.min(at + SLICE, data.length);
      inflater.push(data.subarray(at, end), end >= data.length);
      if (end >= data.length) break;
    }
  } catch (error) {
    if (error instanceof ConvertInputError) throw error;
    refuse(`part ${entry.name} is damaged (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!ended || written !== entry.size)
    refuse(`part ${entry.name} is damaged (${written} bytes instead of ${entry.size})`);
  return out;
}

/** OPC part names: relative, forward slashes, no empty, `.` or `..` segments, no drive letters or control characters. */
function checkName(name: string): void {
  const shown = JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
  if (
    name === '' ||
    name.startsWith('/') ||
    name.includes('\\') ||
    /^[a-zA-Z]:/.test(name) ||
    /[\u0000-\u001f\u007f]/.test(name)
  ) {
    refuse(`it holds an unsafe part path ${shown}`);
  }
  const segments = (name.endsWith('/') ? name.slice(0, -1) : name).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) refuse(`it holds an unsafe part path ${shown}`);
}

function u16(bytes: Uint8Array, at: number): number {
  if (at < 0 || at + 2 > bytes.length) refuse('its zip structure is damaged');
  return (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8);
}

function u32(bytes: Uint8Array, at: number): number {
  if (at < 0 || at + 4 > bytes.length) refuse('its zip structure is damaged');
  return (
    ((bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8) | ((bytes[at + 2] ?? 0) << 16)) + (bytes[at + 3] ?? 0) * 0x1000000
  );
}

function u64(bytes: Uint8Array, at: number): number {
  const value = u32(bytes, at) + u32(bytes, at + 4) * 0x100000000;
  if (!Number.isSafeInteger(value)) refuse('its zip structure is damaged');
  return value;
}

const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The entries the central directory lists (what Word reads), with zip64 sizes and offsets. */
function centralDirectory(bytes: Uint8Array): Entry[] {
  let eocd = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (u32(bytes, at) === 0x06054b50) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0)
    throw new ConvertInputError(
      'template_invalid',
      'This file is not a Word template (.docx or .dotx). It is damaged: not a zip package with a central directory.',
    );
  let count = u16(bytes, eocd + 10);
  let offset = u32(bytes, eocd + 16);
  if (eocd >= 20 && u32(bytes, eocd - 20) === 0x07064b50) {
    const zip64 = u64(bytes, eocd - 12);
    if (u32(bytes, zip64) !== 0x06064b50) refuse('its zip64 directory is damaged');
    count = u64(bytes, zip64 + 32);
    offset = u64(bytes, zip64 + 48);
  }
  if (count > TEMPLATE_LIMITS.maxEntries) refuse(`it has ${count} parts, more than ${TEMPLATE_LIMITS.maxEntries}`);
  const entries: Entry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (u32(bytes, at) !== 0x02014b50) refuse('its central directory is damaged');
    const flags = u16(bytes, at + 8);
    if (flags & 1) refuse('it is encrypted');
    const method = u16(bytes, at + 10);
    let compressedSize = u32(bytes, at + 20);
    let size = u32(bytes, at + 24);
    const nameLength = u16(bytes, at + 28);
    const extraLength = u16(bytes, at + 30);
    const commentLength = u16(bytes, at + 32);
    let local = u32(bytes, at + 42);
    const nameEnd = at + 46 + nameLength;
    if (nameEnd > bytes.length) refuse('its central directory is damaged');
    const rawName = bytes.subarray(at + 46, nameEnd);
    let name: string;
    try {
      name = flags & 0x800 ? utf8.decode(rawName) : latin1.decode(rawName);
    } catch {
      refuse('it holds a part name that is not valid UTF-8');
    }
    // A name read as windows-1252 may grow as UTF-8 (up to three times) past what a zip's 16-bit length can write.
    if (rawName.length > 0xffff / 3 && encodeUtf8(name).length > 0xffff)
      refuse('it holds a part name too long to be written into a document');
    // Zip64 extra field: the 64-bit values of the fields that hold 0xFFFFFFFF, in this order.
    for (let x = nameEnd; x + 4 <= nameEnd + extraLength;) {
      const id = u16(bytes, x);
      const length = u16(bytes, x + 2);
      if (id === 0x0001) {
        let y = x + 4;
        if (size === 0xffffffff) {
          size = u64(bytes, y);
          y += 8;
        }
        if (compressedSize === 0xffffffff) {
          compressedSize = u64(bytes, y);
          y += 8;
        }
        if (local === 0xffffffff) local = u64(bytes, y);
      }
      x += 4 + length;
    }
    entries.push({ name, method, compressedSize, size, offset: local });
    at = nameEnd + extraLength + commentLength;
  }
  return entries;
}

/** Where an entry's data starts: after its local header, whose own name and extra field lengths may differ. */
function dataStart(bytes: Uint8Array, entry: Entry): number {
  if (u32(bytes, entry.offset) !== 0x04034b50) refuse(`part ${entry.name} has no local header`);
  return entry.offset + 30 + u16(bytes, entry.offset + 26) + u16(bytes, entry.offset + 28);
}
