// The native part of SVG rendering (resvg): run in a child process (server/convert-pool/render-child.mjs) that its
// owner can kill and whose memory is bounded (render-child.ts there). Plain JavaScript, so the child starts on bare
// Node without a loader.
import { createRequire } from 'node:module';

/** @type {typeof import('@resvg/resvg-js') | undefined} */
let resvg;

/** The renderer's native module, loaded at the first SVG (it costs start-up time no other document should pay). */
export function loadRenderer() {
  resvg ??= /** @type {typeof import('@resvg/resvg-js')} */ (createRequire(import.meta.url)('@resvg/resvg-js'));
  return resvg;
}

/** The fallback's scale: twice the SVG's size for print, inside the longest side and the pixels allowed. */
function fallbackScale(width, height, limits) {
  return Math.min(2, limits.side / Math.max(width, height), Math.sqrt(limits.pixels / (width * height)));
}

/**
 * Renders a cleaned SVG into a PNG fitted inside the limits (`side`: longest side, `pixels`: most pixels), after
 * checking its own size (`maxSide`); loads the system's fonts only when `text` says the SVG has text to lay out.
 * @param {string} svg
 * @param {{ text: boolean, maxSide: number, side: number, pixels: number }} options
 * @returns {{ ok: true, width: number, height: number, png: Uint8Array } | { ok: false, reason: string }}
 */
export function renderPng(svg, options) {
  const { Resvg } = loadRenderer();
  const probe = new Resvg(svg, { font: { loadSystemFonts: false } });
  const width = probe.width;
  const height = probe.height;
  if (!(width > 0 && height > 0) || width > options.maxSide || height > options.maxSide)
    return { ok: false, reason: 'an SVG that cannot be rendered' };
  const scale = fallbackScale(width, height, options);
  // Fitted on the long side, so a tall SVG is bounded by its height (fitting the width alone let it grow).
  const fitTo =
    width >= height
      ? { mode: /** @type {const} */ ('width'), value: Math.max(1, Math.round(width * scale)) }
      : { mode: /** @type {const} */ ('height'), value: Math.max(1, Math.round(height * scale)) };
  const png = new Resvg(svg, { fitTo, font: { loadSystemFonts: options.text }, logLevel: 'off' }).render().asPng();
  return { ok: true, width, height, png: new Uint8Array(png) };
}
