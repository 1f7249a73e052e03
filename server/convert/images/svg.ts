import { DOMParser, XMLSerializer, type Attr, type Element } from '@xmldom/xmldom';
import { describeImage } from './describe.ts';
import { IMAGE_LIMITS } from './limits.ts';
import type { Renderer } from './render.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/** The namespaced attributes kept. resvg reads an attribute by its local name in the SVG, XLink and XML namespaces as
 * well as in none (`xml:href`, `s:filter` with `s` bound to SVG), so any other there would pass every check below. */
const KEPT_NAMESPACED = new Map([
  [XLINK_NS, new Set(['href', 'title'])],
  [XML_NS, new Set(['space', 'lang'])],
]);

/** An SVG made safe to embed and render, with its size in pixels and a PNG of it; or why it stays a placeholder. */
export type RenderedSvg =
  { ok: true; svg: Uint8Array; width: number; height: number; png: Uint8Array } | { ok: false; reason: string };

/** An SVG ready to embed (`svg`) and the copy of it our renderer draws the fallback from (`render`); or why not
 * (`too complex`, `not an SVG`, or what is wrong with an image inside it). */
export type CleanedSvg = { ok: true; svg: string; render: string; text: boolean } | { ok: false; reason: string };

/** Animations that could point a link at something outside the SVG. */
const ANIMATIONS = new Set(['animate', 'set', 'animateMotion', 'animateTransform', 'animateColor']);
/** Elements dropped whole: code, HTML, and style sheets (which can @import or url() anything). */
const DROPPED = new Set(['script', 'foreignObject', 'style']);

/** The element's link as readers take it (after dropUnread: only `xlink:href` and `href` are left). */
function hrefOf(el: Element): string {
  return (el.getAttributeNS(XLINK_NS, 'href') ?? el.getAttribute('href') ?? '').trim();
}

/** The element's attributes. */
function attributesOf(el: Element): Attr[] {
  const attributes: Attr[] = [];
  for (let i = 0; i < el.attributes.length; i++) {
    const attr = el.attributes.item(i);
    if (attr) attributes.push(attr);
  }
  return attributes;
}

/** Whether an attribute is a link in any namespace and letter case (`href`, `xlink:href`, `xml:href`, `o:HREF`...). */
function isHref(attr: Attr): boolean {
  return (attr.localName ?? attr.nodeName).toLowerCase() === 'href';
}

/**
 * Drops the attributes only resvg would read, or no reader would: in the SVG or XML namespace (but `xml:space` and
 * `xml:lang`), in XLink (but `xlink:href` and `xlink:title`), and links other than `href` and `xlink:href`. Browsers
 * and the SVG specification ignore them all; left in, they would reach the renderer past the checks by name.
 */
function dropUnread(el: Element): void {
  for (const attr of attributesOf(el)) {
    const ns = attr.namespaceURI;
    if (ns === XMLNS_NS) continue;
    const local = attr.localName ?? attr.nodeName;
    const kept =
      ns === SVG_NS || ns === XML_NS || ns === XLINK_NS
        ? (KEPT_NAMESPACED.get(ns)?.has(local) ?? false)
        : !isHref(attr) || (ns === null && local === 'href');
    if (!kept) el.removeAttributeNode(attr);
  }
}

/** Whether a CSS or attribute value has a url() that points outside the SVG (anything but `#id`). */
function urlOutside(value: string): boolean {
  for (const match of value.matchAll(/url\(\s*['"]?\s*([^)'"]*)/gi)) if (!(match[1] ?? '').startsWith('#')) return true;
  return false;
}

/** A style attribute without the declarations that match `drop` (CSS escapes could hide a url(, so they go too). */
function styleWithout(style: string, drop: (declaration: string) => boolean): string {
  return style
    .split(';')
    .filter((d) => !d.includes('\\') && !drop(d))
    .join(';');
}

/** Drops what an element's attributes could reach outside the SVG: links, and url() other than `#id`. */
function cleanAttributes(el: Element, keepData: boolean): void {
  const attributes = el.attributes;
  for (let i = attributes.length - 1; i >= 0; i--) {
    const attr = attributes.item(i);
    if (!attr) continue;
    const value = attr.value;
    if (isHref(attr)) {
      const target = value.trim();
      if (!target.startsWith('#') && !(keepData && target.startsWith('data:'))) el.removeAttributeNode(attr);
    } else if (attr.localName === 'style' && attr.namespaceURI === null) {
      if (!urlOutside(value) && !value.includes('\\')) continue;
      const kept = styleWithout(value, urlOutside);
      if (kept.trim() === '') el.removeAttributeNode(attr);
      else el.setAttribute('style', kept);
    } else if (urlOutside(value)) el.removeAttributeNode(attr);
  }
}

/** A data: URI's bytes (base64 or percent-encoded) and its declared type, or null when it is not one. */
function dataUri(href: string): { type: string; bytes: Uint8Array } | null {
  const comma = href.indexOf(',');
  if (!href.startsWith('data:') || comma < 0) return null;
  const meta = href.slice(5, comma).toLowerCase();
  const payload = href.slice(comma + 1);
  try {
    const bytes = /;\s*base64\s*$/.test(meta)
      ? Buffer.from(payload.replace(/\s+/g, ''), 'base64')
      : new TextEncoder().encode(decodeURIComponent(payload));
    return { type: meta.split(';')[0]?.trim() ?? '', bytes };
  } catch {
    return null;
  }
}

/**
 * An image inside an SVG (a data: URI): PNG, JPEG or GIF within the bitmap limits, written back as the bytes checked
 * (so the renderer and Word decode exactly those); or why the SVG is refused. An SVG inside an SVG is refused
 * whole: its filters, masks and images would escape every bound set here.
 */
function nestedImage(href: string): { ok: true; href: string; pixels: number } | { ok: false; reason: string } {
  const data = dataUri(href);
  if (!data) return { ok: false, reason: 'an image inside it that cannot be read' };
  const described = data.type.includes('svg') ? ({ ok: true, type: 'svg' } as const) : describeImage(data.bytes);
  if (described.ok && described.type === 'svg') return { ok: false, reason: 'an SVG image inside it' };
  if (!described.ok) return { ok: false, reason: `an image inside it: ${described.detected}` };
  const mime = described.type === 'jpg' ? 'jpeg' : described.type;
  return {
    ok: true,
    href: `data:image/${mime};base64,${Buffer.from(data.bytes).toString('base64')}`,
    pixels: described.width * described.height,
  };
}

/** Number of elements in an element's subtree, itself included. */
function subtreeSize(el: Element): number {
  return el.getElementsByTagName('*').length + 1;
}

/**
 * Whether the SVG's <use>s make rendering unbounded work: too many of them, one copying an element that holds
 * <use>s itself (each level multiplies), or all together copying more elements than the limit.
 */
function tooComplex(elements: number, uses: Element[], ids: Map<string, Element[]>): boolean {
  if (uses.length > IMAGE_LIMITS.svgUses) return true;
  let total = elements;
  const sizes = new Map<string, number>();
  // Each of a <use>'s links counts (readers differ in which one they take).
  const targets = uses.flatMap((use) => attributesOf(use).filter(isHref)).map((attr) => attr.value.trim().slice(1));
  for (const id of targets) {
    let size = sizes.get(id);
    if (size === undefined) {
      size = 0;
      for (const target of ids.get(id) ?? []) {
        if (target.localName === 'use' || target.getElementsByTagNameNS('*', 'use').length > 0) return true;
        size = Math.max(size, subtreeSize(target));
      }
      sizes.set(id, size);
    }
    total += size;
    if (total > IMAGE_LIMITS.svgElements) return true;
  }
  return false;
}

/** What the renderer's copy lacks: filters (a dilate radius or a blur over a tall page has no bound), and masks and
 * patterns (nested in each other, each level multiplies the work). */
const UNBOUNDED = new Set(['filter', 'mask', 'pattern']);
/** Clip paths and markers are kept, but not nested (each level multiplies the work too). */
const NESTING = new Set(['clip-path', 'marker', 'marker-start', 'marker-mid', 'marker-end']);

/** A property name of one style declaration, lower case. */
function property(declaration: string): string {
  return declaration.split(':')[0]?.trim().toLowerCase() ?? '';
}

/** The copy our renderer draws: without the effects whose cost has no bound. */
function renderable(root: Element): string {
  const copy = root.cloneNode(true) as Element;
  const stack: [Element, boolean][] = [[copy, false]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [el, inClipOrMarker] = next;
    const name = el.localName ?? '';
    const inside = inClipOrMarker || name === 'clipPath' || name === 'marker';
    if (UNBOUNDED.has(name) || (inside && name === 'use')) {
      el.parentNode?.removeChild(el);
      continue;
    }
    const drop = (p: string) => UNBOUNDED.has(p) || (inside && NESTING.has(p));
    // By local name, whatever the namespace: the renderer reads `s:filter` as `filter`.
    for (const attr of attributesOf(el)) {
      const local = attr.localName ?? attr.nodeName;
      if (drop(local)) el.removeAttributeNode(attr);
      else if (local === 'style' && /filter|mask|pattern|clip|marker/i.test(attr.value))
        el.setAttributeNS(
          attr.namespaceURI,
          attr.nodeName,
          styleWithout(attr.value, (d) => drop(property(d))),
        );
    }
    for (let child = el.firstChild; child; child = child.nextSibling)
      if (child.nodeType === 1) stack.push([child as Element, inside]);
  }
  return new XMLSerializer().serializeToString(copy);
}

/**
 * Parses an SVG and drops what could reach beyond it (scripts, style sheets, links, and images, uses or url()s
 * that point at files or URLs rather than inside the SVG), so neither our renderer nor Word loads anything else.
 * Refuses an SVG whose element count (with what its <use>s copy) makes rendering unbounded work.
 */
export function cleanSvg(bytes: Uint8Array): CleanedSvg {
  const source = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  // Entity declarations are how XML bombs work; real SVGs have none.
  if (/<!ENTITY/i.test(source)) return { ok: false, reason: 'not an SVG' };
  let root: Element | null;
  try {
    const doc = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(source, 'image/svg+xml');
    root = doc.documentElement;
  } catch {
    return { ok: false, reason: 'not an SVG' };
  }
  if (!root || root.localName !== 'svg' || root.namespaceURI !== SVG_NS) return { ok: false, reason: 'not an SVG' };
  let text = false;
  let elements = 0;
  let nestedPixels = 0;
  const uses: Element[] = [];
  const ids = new Map<string, Element[]>();
  const stack: Element[] = [root];
  for (let el = stack.pop(); el; el = stack.pop()) {
    if (++elements > IMAGE_LIMITS.svgElements) return { ok: false, reason: 'too complex' };
    // Elements by local name in any namespace (a superset of what the renderer draws: it draws the SVG namespace's).
    const name = el.localName ?? '';
    const image = name === 'image' || name === 'feImage';
    // Every data: link of an image is checked, those dropUnread drops too: a bad one refuses the SVG by name.
    const checked = new Map<string, ReturnType<typeof nestedImage>>();
    for (const attr of image ? attributesOf(el).filter(isHref) : []) {
      const target = attr.value.trim();
      if (!target.startsWith('data:') || checked.has(target)) continue;
      const nested = nestedImage(target);
      if (!nested.ok) return nested;
      checked.set(target, nested);
    }
    dropUnread(el);
    const href = hrefOf(el);
    const external =
      (image && href !== '' && !href.startsWith('data:')) || (name === 'use' && href !== '' && !href.startsWith('#'));
    const animatesLink =
      ANIMATIONS.has(name) && /^([^:]*:)?href$/i.test((el.getAttribute('attributeName') ?? '').trim());
    if (DROPPED.has(name) || external || animatesLink) {
      el.parentNode?.removeChild(el);
      continue;
    }
    cleanAttributes(el, image);
    if (image && href.startsWith('data:')) {
      const nested = checked.get(href) ?? nestedImage(href);
      if (!nested.ok) return nested;
      nestedPixels += nested.pixels;
      if (nestedPixels > IMAGE_LIMITS.maxPixels)
        return { ok: false, reason: `images inside it over ${String(IMAGE_LIMITS.maxPixels / 1_000_000)} megapixels` };
      // Every href of the element (href and xlink:href) names the checked bytes, whichever the reader prefers.
      for (const attr of attributesOf(el).filter(isHref))
        el.setAttributeNS(attr.namespaceURI, attr.nodeName, nested.href);
    }
    if (name === 'text') text = true;
    if (name === 'use' && href !== '') uses.push(el);
    const id = el.getAttribute('id');
    if (id) ids.set(id, [...(ids.get(id) ?? []), el]);
    for (let child = el.firstChild; child; child = child.nextSibling)
      if (child.nodeType === 1) stack.push(child as Element);
  }
  if (tooComplex(elements, uses, ids)) return { ok: false, reason: 'too complex' };
  return { ok: true, svg: new XMLSerializer().serializeToString(root), render: renderable(root), text };
}

/** Renders a cleaned SVG into a PNG fallback (Word before 2016 and LibreOffice show it), inside a bounded box, through
 * the renderer the conversion was given (a child process killed past the render's time and memory limits: render.ts). */
export function renderSvg(bytes: Uint8Array, render: Renderer): RenderedSvg {
  const cleaned = cleanSvg(bytes);
  if (!cleaned.ok)
    return { ok: false, reason: cleaned.reason === 'not an SVG' ? 'an SVG that cannot be rendered' : cleaned.reason };
  const rendered = render({ svg: cleaned.render, text: cleaned.text });
  if (!rendered.ok) return rendered;
  const { width, height, png } = rendered;
  return { ok: true, svg: new TextEncoder().encode(cleaned.svg), width, height, png };
}
