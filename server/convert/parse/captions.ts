import type {
  Code,
  Definition,
  Image,
  ImageReference,
  Node,
  Paragraph,
  Parents,
  PhrasingContent,
  Root,
  Table,
  Text,
} from 'mdast';
import type { Math } from 'mdast-util-math';
import { parseAttributes, trailingAttributes, type Attributes } from './attributes.ts';
import { takeLastRow } from './table-rows.ts';

// What numbered captions read from the tree (issue 34, item 1; docs/captions-references.md): a table's caption
// paragraph (`Table: …` or `: …` right before or after it, pandoc's table_captions), a display formula's `{#eq:…}`,
// and a code fence's attributes (```` ```{#lst:label caption="…"} ````).

/** A table's caption, taken out of the paragraph that wrote it. */
export interface TableCaption {
  children: PhrasingContent[];
  attributes?: Attributes;
}

declare module 'mdast' {
  interface ImageData {
    /** A lone image's caption (its title, else its alt text) as text to read references in (figureCaptions). */
    caption?: TableCaption;
  }
  interface ImageReferenceData {
    /** As ImageData's. */
    caption?: TableCaption;
  }
  interface TableData {
    /** The `Table: …` paragraph next to the table (parse/captions.ts). */
    caption?: TableCaption;
  }
  interface CodeData {
    /** The fence's `{…}` block (```` ```{#lst:x .python caption="…"} ```` or ```` ```python {#lst:x} ````). */
    attributes?: Attributes;
  }
}
declare module 'mdast-util-math' {
  interface MathData {
    /** A `{#eq:label}` paragraph right after the `$$` fence. */
    attributes?: Attributes;
  }
  interface InlineMathData {
    /** A `{#eq:label}` after `$$…$$` in its paragraph. */
    attributes?: Attributes;
  }
}

/** `Table:` (any case) or a lone `:` opening a paragraph, then the caption. */
const CAPTION_START = /^(?:table:|:)[ \t]+/i;

/**
 * Takes the caption syntax out of the tree: table caption paragraphs next to a table, `{#eq:…}` after display math,
 * and a code fence's attribute block. Written as they read in `source` (an escaped `\:` or `\{` stays text).
 * Returns the `Table:` paragraphs no table took, with their lines (they stay text, warned).
 */
export function captionSyntax(tree: Root, source: string): { text: string; line: number }[] {
  const orphans: { text: string; line: number }[] = [];
  const tables = /(?:^|\n)[ \t]*(?:table)?:/i.test(source);
  if (!tables && !source.includes('{')) return orphans;
  const stack: Parents[] = [tree];
  for (let parent = stack.pop(); parent; parent = stack.pop()) {
    const children = parent.children as Node[];
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as Node;
      if (child.type === 'table' && tables) {
        // A `Table:` line right under the table's rows (no blank line between) is a row to GFM: its caption here.
        const lifted = captionRow(child as Table, source);
        if (lifted) children.splice(i + 1, 0, lifted);
        // pandoc reads a caption before the table or after it; after it first, as pandoc's writers print it there.
        for (const at of [i + 1, i - 1]) {
          const caption = tableCaption(children[at], source);
          if (!caption) continue;
          (child as Table).data = { ...(child as Table).data, caption };
          children.splice(at, 1);
          if (at < i) i -= 1;
          break;
        }
      } else if (child.type === 'paragraph') equationInParagraph(child as Paragraph, source);
      else if (child.type === 'math') {
        const next = children[i + 1];
        const attributes = next ? attributeParagraph(next, source) : undefined;
        if (attributes) {
          (child as Math).data = { ...(child as Math).data, attributes };
          children.splice(i + 1, 1);
        }
      } else if (child.type === 'code') codeAttributes(child as Code);
      if ('children' in child) stack.push(child as Parents);
    }
    // A `Table:` paragraph no table took stays text, named (`: …` alone is too common a way to start a line).
    if (tables)
      for (const child of children) {
        if (child.type !== 'paragraph' || !tableCaption(child, source)) continue;
        const first = (child as Paragraph).children[0];
        if (first?.type === 'text' && /^table:/i.test(first.value))
          orphans.push({ text: quoted(first.value.split('\n')[0] ?? ''), line: child.position?.start.line ?? 0 });
      }
  }
  return orphans;
}

/**
 * A table's last row when it is a caption line (`Table: …` or `: …`, one cell, as GFM reads a line under the rows with
 * no pipe): taken off the table and given back as the paragraph it is (its cell's text, with its positions).
 */
function captionRow(table: Table, source: string): Paragraph | undefined {
  if (table.children.at(-1)?.children.length !== 1) return undefined;
  const cell = takeLastRow(table, source, (line) => CAPTION_START.test(line.trimStart()))?.children[0];
  return cell && { type: 'paragraph', children: cell.children, ...(cell.position ? { position: cell.position } : {}) };
}

/** The start of a line a warning quotes: at most 40 characters, `…` where it was cut. */
function quoted(line: string): string {
  const chars = Array.from(line.trim());
  return chars.length > 40 ? `${chars.slice(0, 40).join('')}…` : chars.join('');
}

/** The caption a paragraph writes for a table next to it, when it opens with `Table:` or `:` as written. */
function tableCaption(node: Node | undefined, source: string): TableCaption | undefined {
  if (node?.type !== 'paragraph') return undefined;
  const paragraph = node as Paragraph;
  const first = paragraph.children[0];
  const start = first?.position?.start.offset;
  if (first?.type !== 'text' || start === undefined) return undefined;
  const match = CAPTION_START.exec(first.value);
  if (!match || source.slice(start, start + match[0].length) !== match[0]) return undefined;
  const children = [...paragraph.children];
  const rest = first.value.slice(match[0].length);
  children[0] = { ...first, value: rest };
  const last = children.at(-1);
  let attributes: Attributes | undefined;
  if (last?.type === 'text') {
    // The block of the original node (its offsets are the source's); the first node's value is cut above.
    const found = trailingAttributes(last === children[0] ? first : last, source);
    if (found) {
      attributes = found.attributes;
      const kept = (last === children[0] ? found.rest.slice(match[0].length) : found.rest).trimEnd();
      children[children.length - 1] = { ...last, value: kept };
    }
  }
  return {
    children: children.filter((c) => c.type !== 'text' || c.value !== ''),
    ...(attributes ? { attributes } : {}),
  };
}

/** A paragraph that is nothing but one `{…}` attribute block, written as it reads: its attributes. */
function attributeParagraph(node: Node, source: string): Attributes | undefined {
  if (node.type !== 'paragraph') return undefined;
  const children = (node as Paragraph).children;
  const only = children[0];
  if (children.length !== 1 || only?.type !== 'text') return undefined;
  const found = trailingAttributes(only, source);
  return found && found.rest.trim() === '' ? found.attributes : undefined;
}

/** `$$…$$ {#eq:label}` in a paragraph: the block goes onto the formula (display math in text, math.ts). */
function equationInParagraph(paragraph: Paragraph, source: string): void {
  const children = paragraph.children;
  const last = children.at(-1);
  const before = children.at(-2);
  if (last?.type !== 'text' || before?.type !== 'inlineMath' || before.data?.display !== true) return;
  const found = trailingAttributes(last, source);
  if (!found || found.rest.trim() !== '') return;
  before.data = { ...before.data, attributes: found.attributes };
  children.pop();
}

/** A fence's info string that is, or ends in, an attribute block: the block's attributes, the language its first class. */
function codeAttributes(code: Code): void {
  const info = `${code.lang ?? ''}${code.meta ? ` ${code.meta}` : ''}`.trim();
  if (!info.endsWith('}')) return;
  const open = info.startsWith('{') ? 0 : info.indexOf(' {');
  if (open < 0) return;
  const attributes = parseAttributes(info.slice(open).trim());
  if (!attributes) return;
  const lang = open === 0 ? (attributes.classes[0] ?? null) : info.slice(0, open);
  code.lang = lang;
  code.meta = null;
  code.data = { ...code.data, attributes };
}

/** Whether a text node is only white space (around an image alone in its paragraph). */
export function isBlank(node: Node): boolean {
  return node.type === 'text' && (node as Text).value.trim() === '';
}

/** The caption a node holds in its data (a table's `Table:` paragraph, a lone image's title or alt text), if any. */
export function heldCaption(node: Node): TableCaption | undefined {
  if (node.type === 'table') return (node as Table).data?.caption;
  if (node.type === 'image' || node.type === 'imageReference') return (node as Image | ImageReference).data?.caption;
  return undefined;
}

/**
 * Gives each image alone in its paragraph that has a title or alt text its caption as a text node (`data.caption`),
 * placed where it was written in `source`, so that the passes after (cross-references, citations, the warnings of
 * syntax left as text) read it as any paragraph's text. `labelledOnly`: only images labelled `{#fig:…}` are figures
 * (no images embedded: SPEC.md's placeholders, compile/caption-index.ts).
 */
export function figureCaptions(tree: Root, source: string, labelledOnly: boolean): void {
  if (!source.includes('![')) return;
  const definitions = new Map<string, Definition>();
  const paragraphs: Paragraph[] = [];
  const stack: Node[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'definition') {
      const id = (node as Definition).identifier.toLowerCase();
      if (!definitions.has(id)) definitions.set(id, node as Definition);
    } else if (node.type === 'paragraph') paragraphs.push(node as Paragraph);
    else if ('children' in node) for (const child of (node as Parents).children) stack.push(child);
  }
  for (const paragraph of paragraphs) {
    const content = paragraph.children.filter((child) => !isBlank(child));
    const image = content[0];
    if (content.length !== 1 || (image?.type !== 'image' && image?.type !== 'imageReference')) continue;
    if (labelledOnly && !image.data?.attributes?.id?.startsWith('fig:')) continue;
    const definition = image.type === 'imageReference' ? definitions.get(image.identifier.toLowerCase()) : undefined;
    const title = image.type === 'image' ? image.title : definition?.title;
    // As caption-index.ts reads it: the title, else the alt text.
    const text = title?.trim() || image.alt?.trim();
    if (!text) continue;
    const span = title?.trim()
      ? titleSpan(image.type === 'image' ? image : definition, source, image.type === 'image')
      : altSpan(image, source);
    const node: Text = { type: 'text', value: text, ...(span ? { position: span } : {}) };
    image.data = { ...image.data, caption: { children: [node] } };
  }
}

type Span = NonNullable<Node['position']>;

/** The position of `source[from, to)`, its lines counted from `at` (a node's start). */
function spanOf(source: string, at: NonNullable<Node['position']>['start'], from: number, to: number): Span {
  const point = (offset: number) => {
    const before = source.slice(at.offset ?? 0, offset).split('\n');
    const last = before.at(-1) ?? '';
    return {
      line: at.line + before.length - 1,
      column: before.length === 1 ? at.column + last.length : last.length + 1,
      offset,
    };
  };
  return { start: point(from), end: point(to) };
}

/** Where an image's alt text is written: between `![` and its matching `]` (escaped brackets aside). */
function altSpan(image: Image | ImageReference, source: string): Span | undefined {
  const start = image.position?.start;
  if (start?.offset === undefined) return undefined;
  let depth = 0;
  for (let i = start.offset + 2; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i += 1;
    else if (c === '[') depth += 1;
    else if (c === ']') {
      if (depth === 0) return spanOf(source, start, start.offset + 2, i);
      depth -= 1;
    }
  }
  return undefined;
}

/** Where a title is written: the last `"…"`, `'…'` or `(…)` of an image (before its `)`) or of a definition. */
function titleSpan(node: Image | Definition | undefined, source: string, inline: boolean): Span | undefined {
  const start = node?.position?.start;
  const end = node?.position?.end.offset;
  if (start?.offset === undefined || end === undefined) return undefined;
  let close = end - 1;
  if (inline && source[close] === ')') close -= 1;
  while (close > start.offset && /\s/.test(source[close] ?? '')) close -= 1;
  const opener = { '"': '"', "'": "'", ')': '(' }[source[close] ?? ''];
  if (opener === undefined) return undefined;
  for (let i = close - 1; i > start.offset; i--)
    if (source[i] === opener && source[i - 1] !== '\\') return spanOf(source, start, i + 1, close);
  return undefined;
}
