/** Renders a cleaned SVG into a PNG fitted inside the limits (render-core.mjs). */
export function renderPng(
  svg: string,
  options: { text: boolean; maxSide: number; side: number; pixels: number },
): { ok: true; width: number; height: number; png: Uint8Array } | { ok: false; reason: string };

/** The renderer's native module, loaded once. */
export function loadRenderer(): typeof import('@resvg/resvg-js');
