import type { Element, Nodes as HastNodes, Root as HastRoot } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import { defaultHandlers, toMdast, type Handle } from 'hast-util-to-mdast';
import { htmlImageAttributes } from './attributes.ts';
import { toText } from 'hast-util-to-text';
import type { Nodes, Paragraph, Parents, PhrasingContent, Root, RootContent } from 'mdast';
import { directionHandlers, markSpanningDirections } from './html-direction.ts';
import { countInto, type ConversionStats } from './stats.ts';
import { ANCHOR_GROUP, anchorGroupHandler, groupAnchorRuns } from './anchor-runs.ts';
import { htmlAnchor, htmlAnchorName, restoreAnchors } from './html-anchors.ts';
import { cssPageBreaks } from './page-breaks.ts';

/**
 * Raw HTML is read with a real HTML parser (parse5, through hast-util-from-html) and turned into the mdast its
 * markdown counterpart would produce (hast-util-to-mdast), so the node handlers print it: one code path per element.
 * Phrasing HTML that remark splits over several nodes (`<b>`, text, `</b>`) is parsed together with the markdown
 * between its tags, which stands in the HTML as a slot; block HTML split around markdown (`<div>`, blank line,
 * markdown, `</div>`) is parsed node by node, its open and close tags acting as transparent containers.
 */

/** Elements printed like their markdown counterparts, or containers whose content is all that shows. */
const SUPPORTED = new Set([
  'a',
  'b',
  'strong',
  'i',
  'em',
  'code',
  'kbd',
  'samp',
  'tt',
  'var',
  'br',
  'wbr',
  'img',
  'p',
  'div',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'dl',
  'dt',
  'dd',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
  'blockquote',
  'pre',
  'hr',
  'details',
  'summary',
  'sup',
  'sub',
  'del',
  's',
  'strike',
  'picture',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'nav',
  'aside',
  'figure',
  'figcaption',
  'q',
  'listing',
  'plaintext',
  'html',
  'head',
  'body',
]);

/** Elements that carry no text of their own (alternative sources, metadata): dropped without a word. */
const NOTHING_TO_SHOW = new Set([
  'source',
  'track',
  'meta',
  'link',
  'base',
  'param',
  'col',
  'colgroup',
  'area',
  'title',
]);

/** Elements hast-util-to-mdast drops with their content: named in a warning when they hold something to see. */
const DROPPED = new Set([
  'script',
  'style',
  'template',
  'svg',
  'math',
  'applet',
  'embed',
  'caption',
  'dialog',
  'noembed',
  'noframes',
  'frame',
  'frameset',
  'option',
  'optgroup',
  'datalist',
  'menu',
  'menuitem',
  'basefont',
  'bgsound',
  'command',
  'content',
  'element',
  'isindex',
  'keygen',
  'nextid',
  'shadow',
  'spacer',
]);

/** Deeper HTML than this is printed as text (the HTML converters recurse). */
const MAX_HTML_DEPTH = 64;

const SLOT = 'docwright-slot';

/** Stands, in the HTML, for a page break its CSS asked for (page-breaks.ts). */
const PAGE_BREAK = 'docwright-page-break';
/** Marks a `thematicBreak` that stands for a page break during the conversion (restored as `pageBreak`). */
const PAGE_BREAK_MARK = 'docwrightPageBreak';

/** Puts a page break element before and after each element whose CSS asks for one there. */
function markPageBreaks(tree: HastRoot): void {
  const stack: (HastRoot | Element)[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const children: HastRoot['children'] = [];
    for (const child of node.children) {
      if (child.type !== 'element') {
        children.push(child);
        continue;
      }
      const { before, after } = cssPageBreaks(child);
      const mark = (): Element => ({ type: 'element', tagName: PAGE_BREAK, properties: {}, children: [] });
      if (before) children.push(mark());
      children.push(child);
      if (after) children.push(mark());
      stack.push(child);
    }
    if (children.length !== node.children.length) node.children = children;
  }
}

/** Word's most columns in a table: a wider `colspan` is read as this many. */
const MAX_COLUMN_SPAN = 63;

/** What a table cell spans, kept on the mdast cell for the compiler (compile/handlers/table.ts) to merge cells. */
export interface CellSpan {
  columns: number;
  rows: number;
}

declare module 'mdast' {
  interface TableCellData {
    /** The cells an HTML table cell spans (markdown's tables have no spans). */
    span?: CellSpan;
  }
  interface TableData {
    /** An HTML table with no header row (no `<th>` in its first rows, no `<thead>`). */
    headless?: boolean;
    /** An HTML table's header rows, where its `<thead>` has more than one (markdown's tables have one). */
    headerRows?: number;
  }
}

/**
 * A table: hast-util-to-mdast gives an HTML table without a header an empty first row (markdown's tables always have
 * one), which would print as an empty header row repeated on every page: taken out, and the table marked headless.
 */
const table: Handle = (state, node: Element) => {
  const result = defaultHandlers.table(state, node);
  if (result.type !== 'table') return result;
  const first = result.children[0];
  if (result.children.length > 1 && first && first.position === undefined && first.children.every(isEmptyCell)) {
    result.children.shift();
    result.data = { ...result.data, headless: true };
  }
  // Every row of the head is a header row (repeated on each page, the header look), not only its first.
  const head = node.children.find((child): child is Element => child.type === 'element' && child.tagName === 'thead');
  const headRows = head?.children.filter((row) => row.type === 'element' && row.tagName === 'tr').length ?? 0;
  if (headRows > 1 && result.data?.headless !== true)
    result.data = { ...result.data, headerRows: Math.min(headRows, result.children.length) };
  return result;
};

function isEmptyCell(cell: Nodes): boolean {
  return cell.type === 'tableCell' && cell.children.length === 0 && cell.data === undefined;
}

/**
 * A table cell, with its `colspan` and `rowspan` kept as `data.span`: hast-util-to-mdast puts empty cells where a
 * span reaches (so the cells after it keep their columns) and forgets the span itself.
 */
const tableCell: Handle = (state, node: Element) => {
  const span = (value: unknown, max: number): number => {
    const n = typeof value === 'number' ? value : typeof value === 'string' ? Number.parseInt(value, 10) : NaN;
    return Number.isInteger(n) && n > 1 ? Math.min(n, max) : 1;
  };
  const columns = span(node.properties.colSpan, MAX_COLUMN_SPAN);
  if (node.properties.colSpan !== undefined) node.properties.colSpan = columns;
  const rows = span(node.properties.rowSpan, Number.MAX_SAFE_INTEGER);
  const cell = defaultHandlers.td(state, node);
  if (columns > 1 || rows > 1) cell.data = { ...cell.data, span: { columns, rows } };
  return cell;
};

const PHRASING_PARENTS = new Set([
  'paragraph',
  'heading',
  'tableCell',
  'emphasis',
  'strong',
  'delete',
  'link',
  'linkReference',
  'superscript',
  'subscript',
]);
const PHRASING = new Set([
  'anchor',
  // An HTML comment kept for a Word comment (html-comments.ts).
  'htmlComment',
  'text',
  'emphasis',
  'strong',
  'delete',
  'inlineCode',
  'break',
  'link',
  'linkReference',
  'image',
  'imageReference',
  'footnoteReference',
  'html',
  'superscript',
  'subscript',
]);

function isPhrasing(node: Nodes): node is PhrasingContent {
  return PHRASING.has(node.type);
}

/** Marks a `delete` node that stands for `<sup>` or `<sub>` during the conversion (hast-util-to-mdast wraps unknown types). */
const SCRIPT_MARK = 'docwrightScript';

/** Superscript and subscript (`<sup>`, `<sub>`), which markdown itself lacks: phrasing, restored after the conversion. */
const script: Handle = (state, node) => ({
  type: 'delete',
  data: { [SCRIPT_MARK]: node.tagName === 'sup' ? 'superscript' : 'subscript' },
  children: state.all(node) as PhrasingContent[],
});

/**
 * Turns the nodes marked during the conversion back into what they stand for: `delete` nodes into superscript and
 * subscript, thematic breaks into page breaks.
 */
function restoreMarked(nodes: readonly Nodes[], skip: ReadonlySet<Nodes>): void {
  const stack = [...nodes];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (skip.has(node)) continue;
    const mark = (node.data as Record<string, unknown> | undefined)?.[SCRIPT_MARK];
    if (node.type === 'delete' && (mark === 'superscript' || mark === 'subscript')) {
      const restored: Nodes = { type: mark, children: node.children };
      Object.assign(node, restored, { data: undefined });
    } else if (node.type === 'thematicBreak' && (node.data as Record<string, unknown> | undefined)?.[PAGE_BREAK_MARK])
      Object.assign(node, { type: 'pageBreak', data: undefined });
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
}

/**
 * GFM's tag filter (spec section 6.11): these elements switch an HTML parser to reading raw text, so an unclosed one
 * swallows the markup after it (and that markup would leak into the document as literal tags).
 */
const TAG_FILTER = new Set([
  'title',
  'textarea',
  'style',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'script',
  'plaintext',
]);

/** True when a tag-filtered element has no end tag: the parser's text then runs to the end of the HTML. */
function unclosedRawText(node: Element): boolean {
  const last = node.children.at(-1);
  const end = node.position?.end.offset;
  return (
    TAG_FILTER.has(node.tagName) &&
    node.children.every((c) => c.type === 'text') &&
    last !== undefined &&
    end !== undefined &&
    last.position?.end.offset === end
  );
}

/**
 * Applies the tag filter: an unclosed tag-filtered element is dropped and the text it swallowed is parsed as HTML in
 * its place, so neither its tag nor the swallowed tags show as text. At most MAX_HTML_DEPTH such re-parses (each
 * reads the rest of the HTML again); beyond them the swallowed text stays as the parser read it.
 */
function filterTags(tree: HastRoot): void {
  let budget = MAX_HTML_DEPTH;
  const stack: (HastRoot | Element)[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    for (let i = 0; i < node.children.length; i++) {
      const child = node.children[i];
      if (child?.type !== 'element') continue;
      if (budget > 0 && unclosedRawText(child)) {
        budget--;
        const swallowed = child.children.map((c) => (c.type === 'text' ? c.value : '')).join('');
        node.children.splice(i, 1, ...(fromHtml(swallowed, { fragment: true }).children as Element[]));
        i--;
      } else stack.push(child);
    }
  }
}

/** Parses HTML into hast, or undefined when it is too deep to convert safely. */
function parse(html: string): HastRoot | undefined {
  let tree: HastRoot;
  try {
    tree = fromHtml(html, { fragment: true });
    filterTags(tree);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  const stack: [HastNodes, number][] = [[tree, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, depth] = entry;
    if (depth > MAX_HTML_DEPTH) return undefined;
    if ('children' in node) for (const child of node.children) stack.push([child, depth + 1]);
  }
  return tree;
}

/** Elements that mean something when empty: void elements, table and list structure, embedded media, slots. */
const MEANINGFUL_EMPTY = new Set([
  'br',
  'wbr',
  'img',
  'image',
  'hr',
  'input',
  'td',
  'th',
  'tr',
  'li',
  'dt',
  'dd',
  'iframe',
  'video',
  'audio',
  'object',
  'textarea',
  'select',
  SLOT,
  PAGE_BREAK,
]);

/**
 * Removes empty elements that print nothing (`<span></span>`, `<a name=x></a>`): they print nothing anyway, and long
 * runs of them make whitespace minifying (inside hast-util-to-mdast) quadratic.
 */
function pruneEmpty(tree: HastRoot): void {
  const parents: (HastRoot | Element)[] = [];
  const stack: (HastRoot | Element)[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    parents.push(node);
    for (const child of node.children) if (child.type === 'element') stack.push(child);
  }
  const removed = new Set<HastNodes>();
  // Children come after their parents in `parents`: walked backwards, a parent sees its children already pruned.
  for (let i = parents.length - 1; i >= 0; i--) {
    const node = parents[i] as HastRoot | Element;
    if (node.children.some((child) => removed.has(child)))
      node.children = node.children.filter((child) => !removed.has(child));
    // An empty `<a name="x">` is an anchor a link may jump to: kept.
    if (
      node.type === 'element' &&
      node.children.length === 0 &&
      !MEANINGFUL_EMPTY.has(node.tagName) &&
      htmlAnchorName(node) === undefined
    )
      removed.add(node);
  }
}

/** Names in warnings what of the HTML is not printed as its markdown counterpart. */
function report(tree: HastRoot, warn: (warning: string, fragmentLine?: number) => void): void {
  const stack: HastNodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'element') {
      const tag = node.tagName;
      if (DROPPED.has(tag)) {
        if (tag === 'svg' || tag === 'math' || tag === 'embed' || tag === 'applet' || toText(node).trim() !== '')
          warn(`dropped_html: ${tag}`, node.position?.start.line);
        continue;
      }
      if (tag !== SLOT && !SUPPORTED.has(tag) && !NOTHING_TO_SHOW.has(tag))
        warn(`unsupported_html: ${tag}`, node.position?.start.line);
    }
    // Pushed last child first, so the warnings come in document order.
    if ('children' in node)
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as HastNodes);
  }
}

/** Phrasing content of flow content, for places that hold only phrasing (a heading, a table cell). */
function phrasingOf(nodes: readonly Nodes[]): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  for (const node of nodes) {
    if (isPhrasing(node)) out.push(node);
    else if (node.type === 'code') out.push({ type: 'inlineCode', value: node.value });
    else if ('children' in node) {
      if (out.length > 0) out.push({ type: 'text', value: ' ' });
      for (const child of phrasingOf(node.children)) out.push(child);
    }
  }
  return out;
}

/** Flow content with runs of phrasing content gathered into paragraphs. */
function flowOf(nodes: readonly RootContent[]): RootContent[] {
  const out: RootContent[] = [];
  let run: Paragraph | undefined;
  for (const node of nodes) {
    if (isPhrasing(node)) {
      if (!run) {
        run = { type: 'paragraph', children: [] };
        out.push(run);
      }
      run.children.push(node);
    } else {
      run = undefined;
      out.push(node);
    }
  }
  // A paragraph of nothing but whitespace and line breaks prints as an empty line: dropped.
  return out.filter(
    (node) =>
      node.type !== 'paragraph' ||
      node.children.some((c) => c.type !== 'break' && !(c.type === 'text' && c.value.trim() === '')),
  );
}

/** Converts the HTML; `slots` are the mdast nodes that `<docwright-slot data-i=n>` elements stand for. */
function convert(
  html: string,
  slots: readonly Nodes[],
  warn: (warning: string) => void,
  line?: number,
  warnAt: (warning: string, line: number) => void = warn,
): RootContent[] | undefined {
  const tree = parse(html);
  if (!tree) {
    warn('html_too_deep: printed as text');
    return undefined;
  }
  // A block of HTML starting on `line`: each warning on the line of its element.
  report(tree, (warning, fragmentLine) =>
    line !== undefined && fragmentLine !== undefined ? warnAt(warning, line + fragmentLine - 1) : warn(warning),
  );
  markPageBreaks(tree);
  pruneEmpty(tree);
  const groups = groupAnchorRuns(tree);
  const slot: Handle = (_state, node: Element) => slots[Number(node.properties.dataI)];
  // Comments are not visible text: dropped (hast-util-to-mdast would keep them as raw HTML).
  const mdast = toMdast(tree, {
    handlers: {
      ...directionHandlers,
      [SLOT]: slot,
      [ANCHOR_GROUP]: anchorGroupHandler(groups),
      sup: script,
      sub: script,
      a: htmlAnchor,
      table,
      td: tableCell,
      th: tableCell,
      img: htmlImage,
      [PAGE_BREAK]: () => ({ type: 'thematicBreak', data: { [PAGE_BREAK_MARK]: true } }),
    },
    nodeHandlers: { comment: () => undefined },
  });
  const result = mdast.type === 'root' ? mdast.children : [mdast];
  restoreMarked(result, new Set(slots));
  restoreAnchors(result, new Set(slots));
  placeLines(result, new Set(slots), line);
  return result;
}

/** An `<img>` as hast-util-to-mdast reads it, its width and height kept as the node's attributes (attributes.ts). */
const htmlImage: Handle = (state, node: Element) => {
  const image = defaultHandlers.img(state, node);
  const attributes = htmlImageAttributes(node.properties);
  if (attributes) image.data = { ...image.data, attributes };
  return image;
};

/** The plain text of an mdast node (text and code values, image alt text), without recursion. */
function textOf(node: Nodes): string {
  const out: string[] = [];
  const stack: Nodes[] = [node];
  for (let current = stack.pop(); current; current = stack.pop()) {
    if ('value' in current && typeof current.value === 'string' && current.type !== 'html') out.push(current.value);
    else if (current.type === 'image' || current.type === 'imageReference') out.push(current.alt ?? '');
    if ('children' in current)
      for (let i = current.children.length - 1; i >= 0; i--) stack.push(current.children[i] as Nodes);
  }
  return out.join('');
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
}

/**
 * Positions of nodes made from HTML count from the HTML fragment: moved to the markdown's lines when the HTML is one
 * node starting on `line`, else removed (the compiler then uses the line of the markdown node around them).
 */
function placeLines(nodes: readonly Nodes[], skip: ReadonlySet<Nodes>, line: number | undefined): void {
  const stack = [...nodes];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (skip.has(node)) continue;
    const position = node.position;
    if (position && line !== undefined) {
      node.position = {
        start: { ...position.start, line: position.start.line + line - 1, offset: undefined },
        end: { ...position.end, line: position.end.line + line - 1, offset: undefined },
      };
    } else delete node.position;
    if ('children' in node) stack.push(...node.children);
  }
}

/** Replaces the phrasing children of a parent holding raw HTML, parsed together with the markdown between its tags. */
function phrasingParent(parent: Parents, warn: (warning: string, line?: number) => void): RootContent[] | undefined {
  const slots: Nodes[] = [];
  const line =
    parent.children.find((child) => child.type === 'html')?.position?.start.line ?? parent.position?.start.line;
  const html = parent.children
    .map((child) => {
      if (child.type === 'html') return child.value;
      slots.push(child);
      // The slot holds the node's text: `<code>` takes its value from the text, and runs of empty elements would make
      // whitespace minifying quadratic.
      return `<${SLOT} data-i="${slots.length - 1}">${escapeHtml(textOf(child))}</${SLOT}>`;
    })
    .join('');
  return convert(html, slots, (warning) => warn(warning, line));
}

/**
 * Turns every raw HTML node of the tree into mdast, in place. Returns what the HTML added to the stats; warnings go to
 * `warn`. HTML that cannot be converted safely stays as `html` nodes, which the html handlers print as text.
 */
export function rawHtmlToMdast(tree: Root, warn: (warning: string, line?: number) => void): ConversionStats {
  const stats: ConversionStats = { headings: 0, paragraphs: 0, lists: 0, tables: 0, code_blocks: 0, images: 0 };
  markSpanningDirections(tree);
  // Parents holding HTML, found without recursion; converted deepest first so a parent's slots are already converted.
  const parents: { parent: Parents; grand: Parents | undefined }[] = [];
  const stack: { node: Parents; grand: Parents | undefined }[] = [{ node: tree, grand: undefined }];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const { node, grand } = entry;
    if (node.children.some((child) => child.type === 'html')) parents.push({ parent: node, grand });
    for (const child of node.children) if ('children' in child) stack.push({ node: child, grand: node });
  }
  for (const { parent, grand } of parents.reverse()) {
    const originals = new Set<Nodes>(parent.children.filter((c) => c.type !== 'html'));
    if (PHRASING_PARENTS.has(parent.type)) {
      const result = phrasingParent(parent, warn);
      if (!result) continue;
      countInto(stats, result, originals);
      if (result.every(isPhrasing)) parent.children = result;
      else if (parent.type === 'paragraph' && grand && !PHRASING_PARENTS.has(grand.type)) {
        // Block HTML inside a paragraph (`text <div>…</div>`): the paragraph becomes the blocks.
        const index = grand.children.findIndex((child) => child === parent);
        if (index >= 0) grand.children.splice(index, 1, ...(flowOf(result) as never[]));
      } else parent.children = phrasingOf(result);
      continue;
    }
    const children: RootContent[] = [];
    for (const child of parent.children) {
      if (child.type !== 'html') {
        children.push(child);
        continue;
      }
      const line = child.position?.start.line;
      const result = convert(child.value, [], (warning) => warn(warning, line), line, warn);
      if (!result) {
        children.push(child);
        continue;
      }
      const flow = flowOf(result);
      countInto(stats, flow, originals);
      for (const node of flow) children.push(node);
    }
    parent.children = children;
  }
  return stats;
}
