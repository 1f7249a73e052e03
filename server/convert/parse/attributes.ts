import type { Heading, Image, ImageReference, Link, Node, Parents, PhrasingContent, Root, Text } from 'mdast';

// pandoc's attribute syntax (issue 33, item 3; docs/api-extensions.md): a `{#id .class key=value}` block after a
// heading (here), an image or a bracketed span, and on a fenced div's opening line.

/** An attribute block as pandoc reads it: one identifier, classes, key-value pairs in order. */
export interface Attributes {
  id?: string;
  classes: string[];
  pairs: [string, string][];
}

declare module 'mdast' {
  interface HeadingData {
    /** The heading's `{…}` block, taken out of its text. */
    attributes?: Attributes;
  }
  interface ImageData {
    /** The `{…}` block right after the image (or raw HTML's `width`, `height`, `style`). */
    attributes?: Attributes;
  }
  interface ImageReferenceData {
    attributes?: Attributes;
  }
  interface LinkData {
    /** A `{…}` block right after a link: read, and warned (links take no attributes in Word). */
    attributes?: Attributes;
  }
}

// The tokens of a block (pandoc's Markdown reader): `#id`, `.class`, `key=value` (the value bare, or quoted with
// `"` or `'`), and `-` (short for `.unnumbered`), separated by white space.
const NAME = String.raw`[A-Za-z_][\w:.-]*`;
const TOKEN = new RegExp(
  String.raw`\s*(?:#(${NAME})|\.(${NAME})|(${NAME})=(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\s"'}]+))|(-))\s*`,
  'y',
);

/** The attributes of `text` when it is exactly one `{…}` block of pandoc's tokens (at least one); else undefined. */
export function parseAttributes(text: string): Attributes | undefined {
  if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
  const inner = text.slice(1, -1);
  const attributes: Attributes = { classes: [], pairs: [] };
  let tokens = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < inner.length) {
    const from = TOKEN.lastIndex;
    const match = TOKEN.exec(inner);
    if (!match || TOKEN.lastIndex === from) return undefined;
    tokens += 1;
    const [, id, cls, key, doubled, single, bare, dash] = match;
    if (id !== undefined) attributes.id = id;
    else if (cls !== undefined) attributes.classes.push(cls);
    else if (dash !== undefined) attributes.classes.push('unnumbered');
    else if (key !== undefined) {
      const value = doubled ?? single ?? bare ?? '';
      attributes.pairs.push([key, value.replace(/\\(.)/g, '$1')]);
    }
  }
  return tokens > 0 ? attributes : undefined;
}

/** A `{…}` block at the end of a text value, the white space before it included (`start` is where that begins). */
const TRAILING_BLOCK = /\s*(\{[^{}]*\})$/;

/** The number of backslashes right before `offset` in `source`. */
function backslashesBefore(source: string, offset: number): number {
  let n = 0;
  while (offset - n - 1 >= 0 && source[offset - n - 1] === '\\') n += 1;
  return n;
}

/**
 * The trailing attribute block of a text node, when the source writes it as it reads (no escaped brace, no character
 * reference): its attributes and the text left before it. `source` is the markdown the tree was parsed from.
 */
export function trailingAttributes(node: Text, source: string): { attributes: Attributes; rest: string } | undefined {
  const match = TRAILING_BLOCK.exec(node.value);
  const block = match?.[1];
  const end = node.position?.end.offset;
  if (!match || block === undefined || end === undefined) return undefined;
  const attributes = parseAttributes(block);
  if (!attributes) return undefined;
  const start = end - block.length;
  if (source.slice(start, end) !== block || backslashesBefore(source, start) % 2 === 1) return undefined;
  return { attributes, rest: node.value.slice(0, match.index) };
}

/**
 * pandoc's attribute blocks where the tree has them as text: a `{#id .class key=value}` block ending a heading
 * (header_attributes) or right after an image (link_attributes) is taken out of the text and kept as the node's
 * `data.attributes` (the compiler reads them). An escaped brace (`\{#id}`) stays text. `source` is the markdown the
 * tree was parsed from.
 */
export function attributeBlocks(tree: Root, source: string): void {
  if (!source.includes('{')) return;
  const stack: Parents[] = [tree];
  // A regular expression, not includes(']{'): on Node 26 that search took 1.6 s of a 1.2 MB document after a few
  // conversions (20 ms at 120 KB: it grew as the square of the length); the expression takes 1-2 ms (docs/performance.md).
  const spans = SPAN_CLOSE.test(source);
  for (let parent = stack.pop(); parent; parent = stack.pop()) {
    if (spans && PHRASING_PARENTS.has(parent.type)) bracketedSpans(parent.children as PhrasingContent[], source);
    const children = parent.children as Node[];
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as Node;
      if (child.type === 'heading') takeHeadingAttributes(child as Heading, source);
      else if (child.type === 'image' || child.type === 'imageReference' || child.type === 'link') {
        const next = children[i + 1];
        if (next?.type === 'text' && takeImageAttributes(child as Image | ImageReference | Link, next as Text, source))
          if ((next as Text).value === '') children.splice(i + 1, 1);
      }
      if ('children' in child) stack.push(child as Parents);
    }
  }
}

function takeHeadingAttributes(heading: Heading, source: string): void {
  const last = heading.children.at(-1);
  if (last?.type !== 'text') return;
  const found = trailingAttributes(last, source);
  if (!found) return;
  const rest = found.rest.trimEnd();
  if (rest) last.value = rest;
  else heading.children.pop();
  heading.data = { ...heading.data, attributes: found.attributes };
}

/** Where a bracketed span's attributes open. */
const SPAN_CLOSE = /\]\{/;

/** The nodes whose children are phrasing content (a span's text is there). */
const PHRASING_PARENTS = new Set(['paragraph', 'heading', 'tableCell', 'emphasis', 'strong', 'delete', 'link', 'span']);

/** A `{…}` block opening the text right after an image or a link (no space between, as pandoc asks). */
function takeImageAttributes(image: Image | ImageReference | Link, text: Text, source: string): boolean {
  if (!text.value.startsWith('{')) return false;
  const close = text.value.indexOf('}');
  const start = text.position?.start.offset;
  if (close < 0 || start === undefined || image.position?.end.offset !== start) return false;
  const block = text.value.slice(0, close + 1);
  const attributes = parseAttributes(block);
  // Written as it reads: no escape or character reference inside.
  if (!attributes || source.slice(start, start + block.length) !== block) return false;
  text.value = text.value.slice(block.length);
  image.data = { ...image.data, attributes };
  return true;
}

/** The size of a raw HTML `<img>` as attributes: its `width` and `height`, else its style's (docs/images.md). */
export function htmlImageAttributes(properties: Record<string, unknown>): Attributes | undefined {
  const pairs: [string, string][] = [];
  const style = typeof properties.style === 'string' ? properties.style : '';
  for (const key of ['width', 'height']) {
    const value = properties[key];
    const css = new RegExp(String.raw`(?:^|;)\s*${key}\s*:\s*([^;]+?)\s*(?:!important\s*)?(?:;|$)`, 'i').exec(style);
    if (typeof value === 'number' || (typeof value === 'string' && value.trim()))
      pairs.push([key, String(value).trim()]);
    else if (css?.[1]) pairs.push([key, css[1]]);
  }
  return pairs.length > 0 ? { classes: [], pairs } : undefined;
}

/** A bracketed span, `[text]{custom-style="Name"}`: its phrasing content and attributes. */
export interface Span extends Node {
  type: 'span';
  attributes: Attributes;
  children: PhrasingContent[];
}

declare module 'mdast' {
  interface PhrasingContentMap {
    span: Span;
  }
  interface RootContentMap {
    span: Span;
  }
}

/**
 * pandoc's bracketed spans in a phrasing parent's children: a `[` in a text node, then a `]{…}` in it or a later text
 * node of the same parent, both written as they read (no escape). The nodes between become a `span`.
 */
export function bracketedSpans(children: PhrasingContent[], source: string): void {
  for (let i = 0; i < children.length; i++) {
    const close = children[i];
    if (close?.type !== 'text') continue;
    const at = close.value.indexOf(']{');
    if (at < 0) continue;
    const end = close.value.indexOf('}', at);
    const attributes = end < 0 ? undefined : parseAttributes(close.value.slice(at + 1, end + 1));
    const closeStart = close.position?.start.offset;
    if (!attributes || closeStart === undefined) continue;
    // The source of the whole text node must read as its value up to the block, so offsets are the value's.
    if (source.slice(closeStart, closeStart + end + 1) !== close.value.slice(0, end + 1)) continue;
    for (let j = i; j >= 0; j--) {
      const open = children[j];
      if (open?.type !== 'text') continue;
      const before = j === i ? open.value.slice(0, at) : open.value;
      const from = before.lastIndexOf('[');
      const openStart = open.position?.start.offset;
      if (from < 0 || openStart === undefined) continue;
      if (source.slice(openStart, openStart + from + 1) !== open.value.slice(0, from + 1)) break;
      const inner: PhrasingContent[] =
        j === i
          ? [{ type: 'text', value: close.value.slice(from + 1, at) }]
          : [
              { type: 'text', value: open.value.slice(from + 1) },
              ...children.slice(j + 1, i),
              { type: 'text', value: close.value.slice(0, at) },
            ];
      const span: Span = {
        type: 'span',
        attributes,
        children: inner.filter((c) => c.type !== 'text' || c.value !== ''),
        position: open.position,
      };
      const head: Text = { ...open, value: open.value.slice(0, from) };
      const tail: Text = { ...close, value: close.value.slice(end + 1) };
      if (tail.position?.start.offset !== undefined)
        tail.position = { ...tail.position, start: { ...tail.position.start, offset: closeStart + end + 1 } };
      const replaced = [head, span, tail].filter((c) => c.type !== 'text' || c.value !== '');
      children.splice(j, i - j + 1, ...replaced);
      i = j + replaced.indexOf(span);
      break;
    }
  }
}
