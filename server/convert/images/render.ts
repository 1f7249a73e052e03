import { IMAGE_LIMITS } from './limits.ts';
import { renderPng } from './render-core.mjs';

/** A cleaned SVG to render (the copy without unbounded effects), and whether it has text to lay out. */
export interface RenderRequest {
  svg: string;
  text: boolean;
}

/** Why an SVG stays a placeholder. */
export type RenderFailure = 'too complex' | 'an SVG that cannot be rendered';

/** The PNG fallback of an SVG and the SVG's own size in pixels; or why there is none. */
export type RenderResult =
  { ok: true; width: number; height: number; png: Uint8Array } | { ok: false; reason: RenderFailure };

/**
 * Runs one render: the engine's only way to the native renderer. The engine starts no process: whoever runs it passes
 * one that renders somewhere it can be killed (a conversion worker: through its pool, server/convert-pool/).
 */
export type Renderer = (request: RenderRequest) => RenderResult;

/** What the renderer needs to know besides the SVG: IMAGE_LIMITS' bounds. */
export function renderOptions(request: RenderRequest): {
  text: boolean;
  maxSide: number;
  side: number;
  pixels: number;
} {
  return {
    text: request.text,
    maxSide: IMAGE_LIMITS.maxSide,
    side: IMAGE_LIMITS.svgFallbackSide,
    pixels: IMAGE_LIMITS.svgFallbackPixels,
  };
}

/**
 * Renders in this thread, with no time or memory bound of its own: what convert() does when it is given no renderer
 * (the tests and the bench), and the installed desktop app, where no child can be started.
 */
export function renderHere(request: RenderRequest): RenderResult {
  try {
    const result = renderPng(request.svg, renderOptions(request));
    return result.ok ? result : { ok: false, reason: 'an SVG that cannot be rendered' };
  } catch {
    return { ok: false, reason: 'an SVG that cannot be rendered' };
  }
}
