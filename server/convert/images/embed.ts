import { ImageRun, type IImageOptions, type ParagraphChild } from 'docx';
import { docxText } from '../braces.ts';
import { describeImage, type RasterType } from './describe.ts';
import { IMAGE_LIMITS } from './limits.ts';
import { imageTarget } from './path.ts';
import type { ImageSource, ReadFailure } from './source.ts';
import type { Renderer } from './render.ts';
import { renderSvg } from './svg.ts';

/** Twentieths of a point per pixel at 96 pixels to the inch (docx sizes images in such pixels). */
export const TWIPS_PER_PX = 15;

/** A file read and understood once per conversion, however often the document shows it. */
type Loaded =
  | { ok: true; type: RasterType; data: Uint8Array; width: number; height: number }
  | { ok: true; type: 'svg'; data: Uint8Array; fallback: Uint8Array; width: number; height: number }
  | { ok: false; warning: string };

/** What the document shows for an image: the picture, or a placeholder with the warning that says why. */
export type Embedded = { ok: true; runs: ParagraphChild[] } | { ok: false; warning: string };

export interface ImageRequest {
  url: string;
  alt: string;
  title: string | null | undefined;
  /** Width available at the image's place, in twips (the text width less list and quote indentation). */
  widthTwips: number;
  /** The size the markdown asks for (attributes), in pixels; the other side follows the aspect ratio. */
  size?: ImageSize;
}

/** A size asked for, in pixels (96 to the inch). */
export interface ImageSize {
  width?: number;
  height?: number;
}

const FAILURE: Record<ReadFailure, string> = {
  missing: 'image_missing',
  outside: 'image_outside_folder',
  not_file: 'image_missing',
  too_large: 'image_too_large',
};

/** Embeds the images of one conversion from one source, within the per-image, total and count limits. */
export class ImageEmbedder {
  private readonly loaded = new Map<string, Loaded>();
  private totalBytes = 0;

  constructor(
    private readonly source: ImageSource,
    private readonly renderer: Renderer,
  ) {}

  /** The picture for an image reference, or why it stays a placeholder. */
  embed(request: ImageRequest): Embedded {
    const target = imageTarget(request.url);
    if (target.kind === 'remote') return { ok: false, warning: `remote_image: ${request.url}` };
    if (target.kind === 'outside') return { ok: false, warning: `image_outside_folder: ${request.url}` };
    if (target.kind === 'invalid') return { ok: false, warning: `image_missing: ${request.url}` };
    const image = this.load(target.path);
    if (!image.ok) return image;
    const available = Math.max(1, Math.floor(request.widthTwips / TWIPS_PER_PX));
    const { width, height } = fitted(image, request.size ?? {}, available);
    const name = target.path.slice(target.path.lastIndexOf('/') + 1);
    const common = {
      transformation: { width: Math.max(1, Math.round(width)), height },
      // The user's text as in runs (braces.ts).
      altText: {
        name: docxText(name),
        description: docxText(request.alt),
        ...(request.title ? { title: docxText(request.title) } : {}),
      },
    };
    const options: IImageOptions =
      image.type === 'svg'
        ? { type: 'svg', data: image.data, fallback: { type: 'png', data: image.fallback }, ...common }
        : { type: image.type, data: image.data, ...common };
    return { ok: true, runs: [new ImageRun(options)] };
  }

  private load(path: string): Loaded {
    const known = this.loaded.get(path);
    if (known) return known;
    const result = this.read(path);
    this.loaded.set(path, result);
    return result;
  }

  private read(path: string): Loaded {
    if (this.loaded.size >= IMAGE_LIMITS.count)
      return { ok: false, warning: `image_limit_exceeded: ${path} (more than ${IMAGE_LIMITS.count} images)` };
    const remaining = IMAGE_LIMITS.totalBytes - this.totalBytes;
    const read = this.source.read(path, Math.min(IMAGE_LIMITS.perImageBytes, remaining));
    if (!read.ok) {
      if (read.reason === 'too_large' && (read.size ?? 0) <= IMAGE_LIMITS.perImageBytes)
        return {
          ok: false,
          warning: `image_limit_exceeded: ${path} (all images together over ${mib(IMAGE_LIMITS.totalBytes)})`,
        };
      if (read.reason === 'too_large')
        return { ok: false, warning: `image_too_large: ${path} (over ${mib(IMAGE_LIMITS.perImageBytes)})` };
      return { ok: false, warning: `${FAILURE[read.reason]}: ${path}` };
    }
    const described = describeImage(read.bytes);
    if (!described.ok) return { ok: false, warning: `image_unsupported: ${path} (${described.detected})` };
    this.totalBytes += read.bytes.byteLength;
    if (described.type !== 'svg')
      return { ok: true, type: described.type, width: described.width, height: described.height, data: read.bytes };
    if (read.bytes.byteLength > IMAGE_LIMITS.svgBytes)
      return { ok: false, warning: `image_too_large: ${path} (an SVG over ${mib(IMAGE_LIMITS.svgBytes)})` };
    const svg = renderSvg(read.bytes, this.renderer);
    if (!svg.ok) return { ok: false, warning: `image_unsupported: ${path} (${svg.reason})` };
    return { ok: true, type: 'svg', data: svg.svg, fallback: svg.png, width: svg.width, height: svg.height };
  }
}

/**
 * The size of a picture: the one asked for (the missing side from the aspect ratio), else its own; never wider than
 * `available` (both sides scaled alike).
 */
function fitted(
  image: { width: number; height: number },
  size: ImageSize,
  available: number,
): { width: number; height: number } {
  let width = size.width ?? (size.height === undefined ? image.width : (size.height * image.width) / image.height);
  let height = size.height ?? (width * image.height) / image.width;
  if (width > available) {
    height = (height * available) / width;
    width = available;
  }
  return { width: Math.max(1, Math.round(width)), height: Math.max(1, Math.round(height)) };
}

function mib(bytes: number): string {
  return `${bytes / (1024 * 1024)} MiB`;
}
