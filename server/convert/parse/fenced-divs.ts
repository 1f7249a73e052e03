import type {
  BlockContent,
  Blockquote,
  List,
  Node,
  Paragraph,
  Parents,
  PhrasingContent,
  Root,
  Table,
  Text,
} from 'mdast';
import { parseAttributes, type Attributes } from './attributes.ts';
import { takeLastRow } from './table-rows.ts';

// pandoc's fenced divs (issue 33, item 3; docs/api-extensions.md): `::: {custom-style="Note"}` or `::: Name` opens a
// div, `:::` closes it. micromark reads the fence lines as paragraph text (joined with the content when no blank line
// separates them), so they are found here, in the paragraphs' text, line by line.

/** A fenced div: its blocks and the attributes of its opening line (`::: Name` is the class `Name`). */
export interface FencedDiv extends Node {
  type: 'fencedDiv';
  attributes: Attributes;
  children: BlockContent[];
}

declare module 'mdast' {
  interface RootContentMap {
    fencedDiv: FencedDiv;
  }
  interface BlockContentMap {
    fencedDiv: FencedDiv;
  }
}

const OPENING = /^:{3,}\s*(?:(\{[^{}]*\})|([^\s{}:]+))\s*:*$/;
const CLOSING = /^:{3,}$/;

/** A fence line found in a paragraph: an opening one with its attributes, or a closing one. */
interface Fence {
  type: 'fence';
  attributes: Attributes | undefined;
  line: number;
}

/** Divs nested deeper than this are not opened (their content goes to the div around): compiling recurses. */
export const MAX_DIV_NESTING = 32;

/** The lines of fences that could not be kept as written. */
export interface FenceReport {
  unclosed: number[];
  unmatched: number[];
  tooDeep: number[];
}

/** The nodes whose children may be blocks. */
const CONTAINERS = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition', 'fencedDiv']);

/**
 * Turns fenced divs into `fencedDiv` nodes, in every block container (a div opened in a quote closes in it). A fence
 * line written with an escape (`\:::`) stays text. An unclosed div takes the rest of its container (its line
 * returned, for a warning), as does pandoc's; a closing fence with no div open stays text (its line returned).
 */
export function fencedDivs(tree: Root, source: string): FenceReport {
  const result: FenceReport = { unclosed: [], unmatched: [], tooDeep: [] };
  if (!source.includes(':::')) return result;
  const stack: Parents[] = [tree];
  for (let parent = stack.pop(); parent; parent = stack.pop()) {
    if (parent.children.some((c) => c.type === 'paragraph'))
      parent.children = nest(parent.children as BlockContent[], source, result);
    for (const child of parent.children) if (CONTAINERS.has(child.type)) stack.push(child as Parents);
  }
  return result;
}

function nest(blocks: BlockContent[], source: string, result: FenceReport): BlockContent[] {
  const top: BlockContent[] = [];
  const open: { div: FencedDiv; line: number }[] = [];
  const target = (): BlockContent[] => open.at(-1)?.div.children ?? top;
  // Openings past MAX_DIV_NESTING: their closing fences close nothing.
  let skipped = 0;
  for (const block of blocks) {
    const pieces = block.type === 'paragraph' ? splitAtFences(block, source) : [block];
    // A `:::` right after a list or a quote is read as its last paragraph's lazy continuation line.
    if (open.length > 0 && (block.type === 'list' || block.type === 'blockquote')) {
      const fence = liftClosingFence(block, source);
      if (fence) pieces.push(fence);
    }
    // And right after a table's last row, as a row of its own (GFM reads a line without a blank one before it so).
    if (open.length > 0 && block.type === 'table') {
      const fence = liftTableFence(block, source);
      if (fence) pieces.push(fence);
    }
    for (const piece of pieces) {
      if (piece.type !== 'fence') target().push(piece);
      else if (piece.attributes) {
        const div: FencedDiv = { type: 'fencedDiv', attributes: piece.attributes, children: [] };
        div.position = { start: { line: piece.line, column: 1 }, end: { line: piece.line, column: 1 } };
        if (open.length >= MAX_DIV_NESTING) {
          result.tooDeep.push(piece.line);
          skipped += 1;
        } else {
          target().push(div);
          open.push({ div, line: piece.line });
        }
      } else if (skipped > 0) skipped -= 1;
      else if (open.length > 0) open.pop();
      else {
        result.unmatched.push(piece.line);
        target().push(textParagraph(':::', piece.line));
      }
    }
  }
  for (const { line } of open) result.unclosed.push(line);
  return top;
}

/** Takes a closing fence off the end of a list's or quote's last paragraph (a lazy line), if it ends with one. */
function liftClosingFence(block: List | Blockquote, source: string): Fence | undefined {
  let parent: Parents = block;
  let last = block.children.at(-1);
  while (last && (last.type === 'listItem' || last.type === 'list' || last.type === 'blockquote')) {
    parent = last;
    last = last.children.at(-1);
  }
  if (last?.type !== 'paragraph') return undefined;
  const pieces = splitAtFences(last, source);
  const fence = pieces.at(-1);
  if (fence?.type !== 'fence' || fence.attributes || pieces.slice(0, -1).some((p) => p.type === 'fence'))
    return undefined;
  parent.children.splice(parent.children.length - 1, 1, ...(pieces.slice(0, -1) as Paragraph[]));
  return fence;
}

/** Takes a closing fence off the end of a table (its last body row, when that row's line is the fence alone). */
function liftTableFence(table: Table, source: string): Fence | undefined {
  const row = takeLastRow(table, source, (line) => CLOSING.test(line.trim()));
  return row && { type: 'fence', attributes: undefined, line: row.position?.start.line ?? 0 };
}

function textParagraph(value: string, line: number): Paragraph {
  const position = { start: { line, column: 1 }, end: { line, column: 1 } };
  return { type: 'paragraph', children: [{ type: 'text', value, position }], position };
}

/**
 * A paragraph cut at its fence lines: the paragraphs between them and the fences. The pieces of a text cut at a fence
 * get the positions of their own lines, so the passes after (attributes, captions) read their source right.
 */
function splitAtFences(paragraph: Paragraph, source: string): (BlockContent | Fence)[] {
  if (!paragraph.children.some((c) => c.type === 'text' && c.value.includes(':::'))) return [paragraph];
  const out: (BlockContent | Fence)[] = [];
  let current: PhrasingContent[] = [];
  let cut = false;
  const flush = (): void => {
    const last = current.at(-1);
    if (last?.type === 'text') last.value = last.value.replace(/\n$/, '');
    const kept = current.filter((c) => c.type !== 'text' || c.value !== '');
    const start = kept[0]?.position?.start;
    const end = kept.at(-1)?.position?.end;
    const position = cut && start && end ? { start, end } : paragraph.position;
    if (kept.length > 0) out.push({ type: 'paragraph', children: kept, ...(position ? { position } : {}) });
    current = [];
  };
  const children = paragraph.children;
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (child?.type !== 'text' || !child.value.includes(':::')) {
      if (child) current.push(child);
      continue;
    }
    const lines = child.value.split('\n');
    const sourceLines = sourceOf(child, source)?.split('\n');
    const at = lineStarts(child, sourceLines);
    let text = '';
    let from = 0;
    const piece = (to: number): Text => ({ ...child, value: text, ...positionOf(child, at, from, to) });
    for (let n = 0; n < lines.length; n++) {
      const line = lines[n] ?? '';
      // A fence is a line of its own: at a child's edge, the line must also start or end the paragraph's line.
      const whole = (n > 0 || endsLine(children[i - 1])) && (n < lines.length - 1 || startsLine(children[i + 1]));
      const fence = whole ? fenceOf(line, sourceLines?.[n]) : undefined;
      if (!fence) {
        if (text === '') from = n;
        text += n < lines.length - 1 ? `${line}\n` : line;
        continue;
      }
      cut = true;
      if (text) current.push(piece(n - 1));
      text = '';
      flush();
      out.push({ type: 'fence', attributes: fence.attributes, line: (child.position?.start.line ?? 0) + n });
    }
    if (text) current.push(cut ? piece(lines.length - 1) : { ...child, value: text });
  }
  flush();
  return out;
}

/** Where each line of a text starts in the source: its line's start, and its text's (past a quote's markers). */
interface LineStart {
  line: number;
  offset: number;
  column: number;
}

function lineStarts(child: Text, sourceLines: string[] | undefined): LineStart[] | undefined {
  const start = child.position?.start;
  if (!sourceLines || start?.offset === undefined) return undefined;
  const at: LineStart[] = [];
  let line = start.offset;
  sourceLines.forEach((text, n) => {
    const prefix = n === 0 ? 0 : (/^(?:[ \t]*>)*[ \t]*/.exec(text)?.[0].length ?? 0);
    at.push({ line, offset: line + prefix, column: n === 0 ? start.column : prefix + 1 });
    line += text.length + 1;
  });
  return at;
}

/** The position of lines `from`..`to` of a text (its own where the source's lines are not known). */
function positionOf(child: Text, at: LineStart[] | undefined, from: number, to: number): Pick<Text, 'position'> {
  const line = child.position?.start.line;
  const first = at?.[from];
  const last = at?.[to];
  const next = at?.[to + 1];
  if (!first || !last || line === undefined || !child.position) return { position: child.position };
  // Line `to` ends before the line ending that starts line `to + 1` (the text's own end for its last line).
  const endOffset = next ? next.line - 1 : undefined;
  const end =
    endOffset === undefined
      ? child.position.end
      : { line: line + to, column: (to === 0 ? first.column - 1 : 0) + endOffset - last.line + 1, offset: endOffset };
  return { position: { start: { line: line + from, column: first.column, offset: first.offset }, end } };
}

/** Whether the node before a text ends a line (none does: the paragraph starts; a hard break does). */
function endsLine(node: PhrasingContent | undefined): boolean {
  return node === undefined || node.type === 'break';
}

function startsLine(node: PhrasingContent | undefined): boolean {
  return node === undefined || node.type === 'break';
}

function sourceOf(node: Text, source: string): string | undefined {
  const from = node.position?.start.offset;
  const to = node.position?.end.offset;
  return from === undefined || to === undefined ? undefined : source.slice(from, to);
}

/**
 * The fence a line is, when its source line reads the same (no escape, no character reference) once a quote's `>`
 * markers, which the text of a quoted paragraph's later lines does not hold, are taken off.
 */
function fenceOf(line: string, sourceLine: string | undefined): { attributes: Attributes | undefined } | undefined {
  const text = line.trim();
  if (sourceLine?.replace(/^(?:[ \t]*>)+/, '').trim() !== text) return undefined;
  if (CLOSING.test(text)) return { attributes: undefined };
  const match = OPENING.exec(text);
  if (!match) return undefined;
  if (match[2] !== undefined) return { attributes: { classes: [match[2]], pairs: [] } };
  const attributes = parseAttributes(match[1] ?? '');
  return attributes ? { attributes } : undefined;
}
