import { createRequire } from 'node:module';
import { DOMParser, XMLSerializer, type Element } from '@xmldom/xmldom';
import { IMAGE_LIMITS } from './limits.ts';

type ResvgModule = typeof import('@resvg/resvg-js');
let resvg: ResvgModule | undefined;
/** The renderer's native module, loaded at the first SVG (it costs start-up time no other document should pay). */
function renderer(): ResvgModule {
  resvg ??= createRequire(import.meta.url)('@resvg/resvg-js') as ResvgModule;
  return resvg;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';

/** An SVG made safe to embed and render, with its size in pixels and a PNG of it. */
export interface RenderedSvg {
  svg: Uint8Array;
  width: number;
  height: number;
  png: Uint8Array;
}

function hrefOf(el: Element): string {
  return (el.getAttributeNS(XLINK_NS, 'href') ?? el.getAttribute('href') ?? '').trim();
}

/**
 * Parses an SVG and drops what could reach beyond it (scripts, and images or uses that point at files or URLs
 * rather than inside the SVG), so neither our renderer nor Word loads anything else. Null when it is not an SVG.
 */
export function cleanSvg(bytes: Uint8Array): { svg: string; text: boolean } | null {
  const source = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  // Entity declarations are how XML bombs work; real SVGs have none.
  if (/<!ENTITY/i.test(source)) return null;
  let root: Element | null;
  try {
    const doc = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(source, 'image/svg+xml');
    root = doc.documentElement;
  } catch {
    return null;
  }
  if (!root || root.localName !== 'svg' || root.namespaceURI !== SVG_NS) return null;
  let text = false;
  const stack: Element[] = [root];
  for (let el = stack.pop(); el; el = stack.pop()) {
    const name = el.localName;
    const href = hrefOf(el);
    const external =
      ((name === 'image' || name === 'feImage') && href !== '' && !href.startsWith('data:')) ||
      (name === 'use' && href !== '' && !href.startsWith('#'));
    if (name === 'script' || name === 'foreignObject' || external) {
      el.parentNode?.removeChild(el);
      continue;
    }
    if (name === 'text') text = true;
    for (let child = el.firstChild; child; child = child.nextSibling)
      if (child.nodeType === 1) stack.push(child as Element);
  }
  return { svg: new XMLSerializer().serializeToString(root), text };
}

/** Renders a cleaned SVG into a PNG fallback (Word before 2016 and LibreOffice show it), at most a print width. */
export function renderSvg(bytes: Uint8Array): RenderedSvg | null {
  const cleaned = cleanSvg(bytes);
  if (cleaned === null) return null;
  const { svg, text } = cleaned;
  try {
    const { Resvg } = renderer();
    const probe = new Resvg(svg, { font: { loadSystemFonts: false } });
    const width = probe.width;
    const height = probe.height;
    if (!(width > 0 && height > 0) || width > IMAGE_LIMITS.maxSide || height > IMAGE_LIMITS.maxSide) return null;
    const target = Math.max(1, Math.min(IMAGE_LIMITS.svgFallbackWidth, Math.round(width * 2)));
    // The system's fonts are loaded (tens of milliseconds) only for an SVG that has text to lay out.
    const png = new Resvg(svg, {
      fitTo: { mode: 'width', value: target },
      font: { loadSystemFonts: text },
      logLevel: 'off',
    })
      .render()
      .asPng();
    return { svg: new TextEncoder().encode(svg), width, height, png: new Uint8Array(png) };
  } catch {
    return null;
  }
}
