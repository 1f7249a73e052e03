import { imageSize } from 'image-size';
import { IMAGE_LIMITS } from './limits.ts';

/** The raster formats Word shows and docx writes. */
export type RasterType = 'png' | 'jpg' | 'gif';

export type Described =
  | { ok: true; type: RasterType; width: number; height: number }
  | { ok: true; type: 'svg' }
  | { ok: false; detected: string };

const RASTER: Record<string, RasterType> = { png: 'png', jpg: 'jpg', gif: 'gif' };

/** Reads an image's format and size from its header only (never decoding pixels); EXIF rotation swaps the sides. */
export function describeImage(bytes: Uint8Array): Described {
  let info: ReturnType<typeof imageSize>;
  try {
    info = imageSize(bytes);
  } catch {
    return { ok: false, detected: 'unknown' };
  }
  const type = info.type ?? 'unknown';
  if (type === 'svg') return { ok: true, type: 'svg' };
  const raster = RASTER[type];
  const { width, height } = info;
  if (!raster || !(width > 0 && height > 0)) return { ok: false, detected: type };
  if (width > IMAGE_LIMITS.maxSide || height > IMAGE_LIMITS.maxSide || width * height > IMAGE_LIMITS.maxPixels)
    return { ok: false, detected: `${type} ${width}×${height}` };
  if (!complete(bytes, raster)) return { ok: false, detected: `${type}, cut short` };
  if (raster === 'gif') {
    const frames = gifFrames(bytes);
    if (frames === null) return { ok: false, detected: 'gif, cut short' };
    const outside = frames.find((f) => f.left + f.width > width || f.top + f.height > height);
    if (outside)
      return { ok: false, detected: `gif ${width}×${height} with a ${outside.width}×${outside.height} frame` };
  }
  const rotated = info.orientation !== undefined && info.orientation >= 5;
  return { ok: true, type: raster, width: rotated ? height : width, height: rotated ? width : height };
}

/** A GIF frame's place and size on the logical screen. */
interface GifFrame {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * Every frame of a GIF, read from its image descriptors (decoders size their buffers by them, not by the screen);
 * null when the blocks run past the end. Each step moves forward, so the walk is bounded by the file's length.
 */
function gifFrames(bytes: Uint8Array): GifFrame[] | null {
  const n = bytes.byteLength;
  const byte = (i: number): number => bytes[i] ?? 0;
  const word = (i: number): number => byte(i) | (byte(i + 1) << 8);
  /** The offset after a run of data sub-blocks starting at `i` (each a length byte, then that many bytes; 0 ends). */
  const skipSubBlocks = (start: number): number => {
    let i = start;
    while (i < n && byte(i) !== 0) i += byte(i) + 1;
    return i + 1;
  };
  const colourTable = (flags: number): number => (flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);
  const frames: GifFrame[] = [];
  let i = 13 + colourTable(byte(10));
  while (i < n) {
    const block = byte(i);
    if (block === 0x3b) return frames;
    if (block === 0x21) i = skipSubBlocks(i + 2);
    else if (block === 0x2c) {
      if (i + 10 > n) return null;
      frames.push({ left: word(i + 1), top: word(i + 3), width: word(i + 5), height: word(i + 7) });
      i = skipSubBlocks(i + 10 + colourTable(byte(i + 9)) + 1);
    } else return null;
  }
  return null;
}

/** True when a file ends as its format does (a cut-short file would show as a broken picture in Word). */
function complete(bytes: Uint8Array, type: RasterType): boolean {
  const n = bytes.byteLength;
  if (type === 'gif') return bytes[n - 1] === 0x3b;
  if (type === 'png') {
    // The last chunk is IEND: length 0, then the type.
    const tail = new TextDecoder('latin1').decode(bytes.subarray(n - 8, n - 4));
    return n >= 12 && tail === 'IEND';
  }
  // JPEG: an end-of-image marker near the end (cameras may append a little after it).
  for (let i = n - 2; i >= Math.max(0, n - 4096); i--) if (bytes[i] === 0xff && bytes[i + 1] === 0xd9) return true;
  return false;
}

/** Whether a path names a file of a format Docwright embeds, by its extension (a first look; the bytes decide). */
export function isImagePath(path: string): boolean {
  return /\.(png|jpe?g|gif|svg)$/i.test(path);
}
