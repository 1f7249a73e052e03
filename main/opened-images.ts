// The images a markdown file opened through the native dialog names, read from its folder with the engine's own
// confinement (server/convert/images/): the renderer sends them with the markdown, so the app embeds them as the
// command line does (docs/images.md).
import { dirname } from 'node:path';
import { folderSource } from '../server/confined/image-folder.ts';
import { isImagePath } from '../server/convert/images/describe.ts';
import { IMAGE_LIMITS } from '../server/convert/images/limits.ts';
import { imageTarget } from '../server/convert/images/path.ts';

export interface OpenedImage {
  /** Path relative to the markdown file, as the markdown names it (normalised). */
  path: string;
  bytes: Uint8Array;
}

/** Link targets of markdown images, reference definitions and `<img src>`: the candidates, not a parse. */
function candidates(text: string): string[] {
  const found = new Set<string>();
  // Bounded, and stopping at the next `[` or `<`: hostile text (`![![![…`) is scanned in linear time, not quadratic.
  for (const match of text.matchAll(/!\[[^[\]\n]{0,1000}\]\(\s*<?([^)\s>]{1,2000})/g))
    if (match[1]) found.add(match[1]);
  for (const match of text.matchAll(/^ {0,3}\[[^\]\n]{1,1000}\]:\s*<?([^\s>]{1,2000})/gm))
    if (match[1]) found.add(match[1]);
  for (const match of text.matchAll(/<img\b[^<>]{0,2000}?\bsrc\s*=\s*["']?([^"'\s>]{1,2000})/gi))
    if (match[1]) found.add(match[1]);
  return [...found];
}

/** The image files beside `markdownPath` that its text names, within the per-image, total and count limits. */
export function openedImages(markdownPath: string, text: string): OpenedImage[] {
  const source = folderSource(dirname(markdownPath));
  const out: OpenedImage[] = [];
  let total = 0;
  for (const url of candidates(text)) {
    const target = imageTarget(url);
    if (target.kind !== 'local' || !isImagePath(target.path) || out.some((i) => i.path === target.path)) continue;
    if (out.length >= IMAGE_LIMITS.count) break;
    const read = source.read(target.path, Math.min(IMAGE_LIMITS.perImageBytes, IMAGE_LIMITS.totalBytes - total));
    if (!read.ok) continue;
    total += read.bytes.byteLength;
    out.push({ path: target.path, bytes: read.bytes });
  }
  return out;
}
