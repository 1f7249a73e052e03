// WOFF 1.0 (the @fontsource packages' .woff files) back to the TrueType font it wraps: its tables, inflated, in an
// sfnt container. LibreOffice reads TrueType but not WOFF; the preview test gives it the fonts the app ships.
import { inflateSync } from 'node:zlib';

export function woffToTtf(woff: Buffer): Buffer {
  if (woff.toString('latin1', 0, 4) !== 'wOFF') throw new Error('not a WOFF 1.0 font');
  const flavor = woff.readUInt32BE(4);
  const count = woff.readUInt16BE(12);
  const tables: { tag: string; checksum: number; data: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    const at = 44 + i * 20;
    const offset = woff.readUInt32BE(at + 4);
    const compressed = woff.readUInt32BE(at + 8);
    const original = woff.readUInt32BE(at + 12);
    const raw = woff.subarray(offset, offset + compressed);
    tables.push({
      tag: woff.toString('latin1', at, at + 4),
      checksum: woff.readUInt32BE(at + 16),
      data: compressed < original ? inflateSync(raw) : Buffer.from(raw),
    });
  }
  const power = 2 ** Math.floor(Math.log2(count));
  const head = Buffer.alloc(12 + 16 * count);
  head.writeUInt32BE(flavor, 0);
  head.writeUInt16BE(count, 4);
  head.writeUInt16BE(power * 16, 6);
  head.writeUInt16BE(Math.log2(power), 8);
  head.writeUInt16BE(count * 16 - power * 16, 10);
  const parts: Buffer[] = [head];
  let offset = head.length;
  tables.forEach((table, i) => {
    const at = 12 + i * 16;
    head.write(table.tag, at, 'latin1');
    head.writeUInt32BE(table.checksum, at + 4);
    head.writeUInt32BE(offset, at + 8);
    head.writeUInt32BE(table.data.length, at + 12);
    const padded = Buffer.alloc((table.data.length + 3) & ~3);
    table.data.copy(padded);
    parts.push(padded);
    offset += padded.length;
  });
  return Buffer.concat(parts);
}
