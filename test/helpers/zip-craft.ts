// Builds zip files byte by byte, including the hostile ones no zip library writes: sizes that lie, entries that
// share one compressed body (an overlapping zip bomb), unsafe names. Used by the hostile-input tests.
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

export interface CraftEntry {
  name: string;
  /** The bytes as they go into the zip (already compressed when method is 8). */
  body: Uint8Array;
  method: 0 | 8;
  /** Uncompressed size to declare (default: the real one, for stored bodies). */
  size: number;
  crc: number;
}

/** An entry from plain bytes: deflated (method 8) or stored. */
export function entry(name: string, data: Uint8Array | string, method: 0 | 8 = 8): CraftEntry {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return { name, body: method === 8 ? deflateRawSync(bytes) : bytes, method, size: bytes.length, crc: crc32(bytes) };
}

/** A deflate stream of `size` zero bytes, streamed through zlib at level 9 (about 1 KB per MB). */
export async function deflateZeros(size: number): Promise<Uint8Array> {
  const deflater = createDeflateRaw({ level: 9, memLevel: 9 });
  const chunks: Buffer[] = [];
  deflater.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    deflater.on('end', resolve);
    deflater.on('error', reject);
  });
  const block = Buffer.alloc(1 << 20);
  for (let left = size; left > 0; left -= block.length) {
    const piece = left >= block.length ? block : block.subarray(0, left);
    if (!deflater.write(piece)) await new Promise((r) => deflater.once('drain', r));
  }
  deflater.end();
  await done;
  return Buffer.concat(chunks);
}

/** CRC-32 of `size` zero bytes. */
export function zerosCrc(size: number): number {
  const block = Buffer.alloc(1 << 20);
  let crc = 0;
  for (let left = size; left > 0; left -= block.length)
    crc = crc32(left >= block.length ? block : block.subarray(0, left), crc);
  return crc;
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

function localHeader(e: CraftEntry, name: Buffer): Buffer {
  return Buffer.concat([
    u32(0x04034b50),
    u16(20),
    u16(0x800),
    u16(e.method),
    u16(0),
    u16(0x21),
    u32(e.crc),
    u32(e.body.length),
    u32(e.size),
    u16(name.length),
    u16(0),
    name,
  ]);
}

function centralHeader(e: CraftEntry, name: Buffer, offset: number): Buffer {
  return Buffer.concat([
    u32(0x02014b50),
    u16(20),
    u16(20),
    u16(0x800),
    u16(e.method),
    u16(0),
    u16(0x21),
    u32(e.crc),
    u32(e.body.length),
    u32(e.size),
    u16(name.length),
    u16(0),
    u16(0),
    u16(0),
    u16(0),
    u32(0),
    u32(offset),
    name,
  ]);
}

function endOfDirectory(count: number, size: number, offset: number): Buffer {
  return Buffer.concat([u32(0x06054b50), u16(0), u16(0), u16(count), u16(count), u32(size), u32(offset), u16(0)]);
}

/** A zip of the entries, each with its own local header and body. */
export function craftZip(entries: CraftEntry[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.concat([localHeader(e, name), e.body]);
    centrals.push(centralHeader(e, name, offset));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  return Buffer.concat([...locals, directory, endOfDirectory(entries.length, directory.length, offset)]);
}

/**
 * An overlapping zip bomb (after Fifield's construction, simplified): the normal entries, then `copies` central
 * directory entries, each with its own name, that all point at one local header and its compressed body.
 */
export function craftOverlappingZip(normal: CraftEntry[], kernel: CraftEntry, copies: number): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of normal) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.concat([localHeader(e, name), e.body]);
    centrals.push(centralHeader(e, name, offset));
    locals.push(local);
    offset += local.length;
  }
  const kernelName = Buffer.from(`${kernel.name}0`, 'utf8');
  const kernelOffset = offset;
  const kernelLocal = Buffer.concat([localHeader(kernel, kernelName), kernel.body]);
  locals.push(kernelLocal);
  offset += kernelLocal.length;
  for (let i = 0; i < copies; i++)
    centrals.push(centralHeader(kernel, Buffer.from(`${kernel.name}${i}`, 'utf8'), kernelOffset));
  const directory = Buffer.concat(centrals);
  return Buffer.concat([...locals, directory, endOfDirectory(normal.length + copies, directory.length, offset)]);
}
