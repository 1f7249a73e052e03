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
  const rotated = info.orientation !== undefined && info.orientation >= 5;
  return { ok: true, type: raster, width: rotated ? height : width, height: rotated ? width : height };
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
