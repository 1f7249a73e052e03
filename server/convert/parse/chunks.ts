// Chunked parsing of long documents: micromark's cost grows faster than the document (a 1.2 MB document parses about
// twice as fast in 270 pieces as whole), so a long document is cut at top-level block boundaries that no construct
// can span, each piece is parsed on its own, and the trees are joined with their positions shifted. The joined tree
// is the whole-document tree: test/convert/parse-chunks.test.ts proves it on the CommonMark and GFM spec examples.
import type { Nodes, Root, RootContent } from 'mdast';

/** A piece of the document: its text, where it starts (UTF-16 offset and 1-based line). */
export interface Chunk {
  text: string;
  offset: number;
  line: number;
}

type Parse = (markdown: string) => Root;

/**
 * Code fences, and math's `$$` fences, which may hold blank lines too (a line with another `$` is no fence: `$$x$$` is
 * a paragraph's display math; with math off a `$$` line is text, and cutting less is never wrong).
 */
const FENCE = /^(`{3,}|~{3,}|\${2,}(?!.*\$))/;
/** The starts of HTML blocks 1–5 of CommonMark (they may hold blank lines) with their end conditions. */
const HTML_RAW = /^<(script|pre|style|textarea)(?=[\s>]|$)/i;
const HTML_ENDS: readonly [RegExp, RegExp][] = [
  [HTML_RAW, /<\/(script|pre|style|textarea)>/i],
  [/^<!--/, /-->/],
  [/^<\?/, /\?>/],
  [/^<![A-Za-z]/, />/],
  [/^<!\[CDATA\[/, /\]\]>/],
];
const ATX = /^#{1,6}(?:[ \t\r]|$)/;
/**
 * List markers, quote markers and a footnote definition's label, as many as open the line, at any indentation (a
 * nested or wide item's line may be indented four columns or more, or by a tab).
 */
const CONTAINERS = /^(?:[ \t]*(?:[-+*]|\d{1,9}[.)])(?=[ \t\r]|$)[ \t]*|[ \t]*>[ \t]?|[ \t]*\[\^[^\]]*\]:[ \t]*)+/;
const BLANK = /^[ \t\r]*$/;

type State =
  | { kind: 'none' }
  | { kind: 'fence'; char: string; length: number }
  | { kind: 'html'; end: RegExp }
  /** A block that ends at a blank line whose inner lines we cannot classify (HTML 6/7 or a paragraph). */
  | { kind: 'untilBlank' };

/** Leading spaces of a line; -1 when its indentation holds a tab (columns we do not work out). */
function indentOf(line: string): number {
  let n = 0;
  while (line.charCodeAt(n) === 32) n += 1;
  return line.charCodeAt(n) === 9 ? -1 : n;
}

/** A line that could open a fence or an HTML block, or continue one in a way we cannot see. */
function startsConstruct(rest: string): boolean {
  return FENCE.test(rest) || rest.startsWith('<');
}

/** A fence or an HTML block of kinds 1–5: the openers whose block may hold blank lines. */
function spansBlankLines(rest: string): boolean {
  return FENCE.test(rest) || HTML_ENDS.some(([open]) => open.test(rest));
}

/**
 * The offsets where the document can be cut: the start of an ATX heading at column 1, after a blank line, outside
 * every fence and HTML block. Containers (lists, block quotes, footnote definitions) close at such a line, and
 * anything that could hide a fence or an HTML block from this line scan (an indented or tab-led fence, a fence line
 * inside a block we cannot classify) ends the cutting for the rest of the document.
 */
export function cutPoints(markdown: string): number[] {
  const cuts: number[] = [];
  let state: State = { kind: 'none' };
  let start = 0;
  let previousBlank = true;
  /** Whether a list item, a block quote or a footnote definition may be open (see below). */
  let inContainer = false;
  // Front matter (only at the very start) is left to the first piece whole: cutting starts after its closing line.
  if (/^\uFEFF?---[ \t\r]*(\n|$)/.test(markdown)) {
    const close = /\n(---|\.\.\.)[ \t\r]*(\n|$)/.exec(markdown);
    if (!close) return [];
    start = close.index + 1;
    previousBlank = false;
  }
  while (start < markdown.length) {
    let end = markdown.indexOf('\n', start);
    if (end < 0) end = markdown.length;
    const line = markdown.slice(start, end);
    const blank = BLANK.test(line);
    if (state.kind === 'fence') {
      const rest = line.trimStart();
      const close = FENCE.exec(rest);
      const indent = indentOf(line);
      if (
        close?.[1] &&
        indent >= 0 &&
        indent <= 3 &&
        close[1][0] === state.char &&
        close[1].length >= state.length &&
        BLANK.test(rest.slice(close[1].length))
      )
        state = { kind: 'none' };
    } else if (state.kind === 'html') {
      if (state.end.test(line)) state = { kind: 'none' };
    } else if (blank) {
      state = { kind: 'none' };
    } else {
      const indent = indentOf(line);
      const rest = line.slice(Math.max(indent, 0));
      if (state.kind === 'none' && indent === 0 && previousBlank && ATX.test(line)) cuts.push(start);
      // A fence or an HTML block of kinds 1-5 (those that hold blank lines) opened inside a list item, a quote or a
      // note: where it ends is the container's business (a fence left open in an item keeps blank lines at the end
      // of a piece that it loses before a heading), so the cutting ends there. Kinds 6 and 7 end at a blank line.
      // Once an item, a quote or a note has opened (until a heading at column 0, which closes them all), a line
      // indented four columns or more (or by a tab) may be inside it too (`-   a`, then a fence four columns in).
      const inner = line.replace(CONTAINERS, '');
      if (indent === 0 && ATX.test(line)) inContainer = false;
      // The line opens an item, a quote or a note: a container's marker within three spaces.
      if (inner !== line && indent >= 0 && indent <= 3) inContainer = true;
      if ((inner !== line || (inContainer && indent !== 0)) && spansBlankLines(inner.trimStart())) return cuts;
      if (indent >= 0 && indent <= 3 && startsConstruct(rest)) {
        // Indented, it may be a list item's; inside a block we cannot classify, it may or may not open a block.
        if (indent !== 0 || (state.kind === 'untilBlank' && spansBlankLines(rest))) return cuts;
        const fence = FENCE.exec(rest);
        const html = HTML_ENDS.find(([open]) => open.test(rest));
        if (fence?.[1]) {
          const char = fence[1][0] ?? '`';
          // A backtick fence's info string holds no backtick; a line with one is a paragraph we cannot place.
          if (char === '`' && rest.slice(fence[1].length).includes('`')) return cuts;
          state = { kind: 'fence', char, length: fence[1].length };
        } else if (html) {
          const opener = html[0].exec(rest)?.[0].length ?? rest.length;
          // Ended on its own line only when the end follows the opener; an overlap (`<!-->`) we do not guess at.
          if (html[1].test(rest.slice(opener))) state = { kind: 'none' };
          else if (html[1].test(rest)) return cuts;
          else state = { kind: 'html', end: html[1] };
        } else if (state.kind === 'none') state = { kind: 'untilBlank' };
      } else if (indent < 0 && startsConstruct(line.trimStart())) return cuts;
    }
    previousBlank = blank;
    start = end + 1;
  }
  return cuts;
}

/** The document in pieces of at least `minLength` characters, cut only where `cutPoints` allows. */
export function splitChunks(markdown: string, minLength: number): Chunk[] {
  const chunks: Chunk[] = [];
  let from = 0;
  let line = 1;
  for (const cut of cutPoints(markdown)) {
    if (cut - from < minLength || cut === 0) continue;
    const text = markdown.slice(from, cut);
    chunks.push({ text, offset: from, line });
    line += lines(text);
    from = cut;
  }
  chunks.push({ text: markdown.slice(from), offset: from, line });
  return chunks;
}

function lines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n += 1;
  return n;
}

interface Labels {
  links: Map<string, string>;
  notes: Map<string, string>;
}

/** The link and footnote definitions of a tree, anywhere in it: identifier → label as written. */
function definitionsOf(tree: Root): Labels {
  const labels: Labels = { links: new Map(), notes: new Map() };
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'definition' && node.label != null) labels.links.set(node.identifier, node.label);
    else if (node.type === 'footnoteDefinition' && node.label != null) labels.notes.set(node.identifier, node.label);
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
  return labels;
}

/** Text for a loose "could it refer to this label" test: no whitespace or `>` (labels span lines and quotes). */
const squeeze = (text: string): string =>
  text
    .replace(/[\s>]+/g, '')
    .toLowerCase()
    .toUpperCase();

/**
 * What stands between a `[` or `^` and the next `]`, with no `[` or `^` between: for a key without those characters,
 * the same answer as looking for `[key]` or `^key]` in the text, in one pass instead of one per label.
 */
function bracketKeys(squeezed: string): Set<string> {
  const keys = new Set<string>();
  let open = -1;
  for (let i = 0; i < squeezed.length; i++) {
    const c = squeezed.charCodeAt(i);
    if (c === 91 || c === 94) open = i;
    else if (c === 93) {
      if (open >= 0) keys.add(squeezed.slice(open + 1, i));
      open = -1;
    }
  }
  return keys;
}

/**
 * Parses the document in pieces and joins the trees. A piece that may refer to a definition made in another piece
 * is parsed again with those definitions written after it (or before it, for the last piece, which may end open),
 * and the definitions' nodes taken out again. Returns undefined when that cannot be done exactly.
 */
export function parseInChunks(markdown: string, parse: Parse, minLength: number): Root | undefined {
  const chunks = splitChunks(markdown, minLength);
  if (chunks.length < 2) return undefined;
  const trees = chunks.map((chunk) => parse(chunk.text));
  const defined = trees.map(definitionsOf);
  const all: Labels = { links: new Map(), notes: new Map() };
  for (const labels of defined)
    for (const kind of ['links', 'notes'] as const)
      for (const [id, label] of labels[kind]) if (!all[kind].has(id)) all[kind].set(id, label);
  const squeezedLabels = new Map<string, string>();
  for (const kind of ['links', 'notes'] as const)
    for (const label of all[kind].values()) squeezedLabels.set(label, squeeze(label));
  const children: RootContent[] = [];
  for (const [index, chunk] of chunks.entries()) {
    const own = defined[index] ?? { links: new Map(), notes: new Map() };
    const last = index === chunks.length - 1;
    let tree = trees[index];
    if (!tree) return undefined;
    // micromark drops a leading byte order mark and counts offsets without it.
    const bom = index > 0 && markdown.charCodeAt(0) === 0xfeff ? 1 : 0;
    let shift = { offset: chunk.offset - bom, line: chunk.line - 1 };
    const extra = foreignDefinitions(chunk.text, own, all, squeezedLabels);
    if (extra.length > 0) {
      const block = extra.map((d) => `${d.source}\n\n`).join('');
      tree = parse(last ? `${block}${chunk.text}` : `${chunk.text}\n\n${block}`);
      const taken = last ? tree.children.splice(0, extra.length) : tree.children.splice(-extra.length);
      if (!sameDefinitions(taken, extra)) return undefined;
      if (last) shift = { offset: shift.offset - block.length, line: shift.line - lines(block) };
    }
    shiftPositions(tree, shift);
    children.push(...tree.children);
    if (last) {
      const end = tree.position?.end;
      return {
        type: 'root',
        children,
        position: end ? { start: { line: 1, column: 1, offset: 0 }, end } : undefined,
      };
    }
  }
  return undefined;
}

interface Foreign {
  type: 'definition' | 'footnoteDefinition';
  identifier: string;
  source: string;
}

/** The definitions of other pieces this piece may refer to, as markdown that defines them again. */
function foreignDefinitions(
  text: string,
  own: Labels,
  all: Labels,
  squeezedLabels: ReadonlyMap<string, string>,
): Foreign[] {
  const out: Foreign[] = [];
  if (!text.includes(']')) return out;
  const squeezed = squeeze(text);
  const keys = bracketKeys(squeezed);
  for (const [kind, type, open] of [
    ['links', 'definition', '['],
    ['notes', 'footnoteDefinition', '[^'],
  ] as const) {
    for (const [identifier, label] of all[kind]) {
      if (own[kind].has(identifier)) continue;
      const key = squeezedLabels.get(label) ?? squeeze(label);
      const mentioned = /[[\]^]/.test(key)
        ? squeezed.includes(`[${key}]`) || squeezed.includes(`^${key}]`)
        : keys.has(key);
      if (!mentioned) continue;
      out.push({ type, identifier, source: `${open}${label.replace(/[\r\n]+/g, ' ')}]: x` });
    }
  }
  return out;
}

/** True when the nodes taken out are exactly the definitions written in. */
function sameDefinitions(taken: readonly RootContent[], written: readonly Foreign[]): boolean {
  return (
    taken.length === written.length &&
    taken.every((node, i) => {
      const want = written[i];
      return (
        want !== undefined &&
        (node.type === 'definition' || node.type === 'footnoteDefinition') &&
        node.type === want.type &&
        node.identifier === want.identifier
      );
    })
  );
}

/** Moves every position of a piece's tree to where the piece stands in the document. */
function shiftPositions(tree: Root, shift: { offset: number; line: number }): void {
  const stack: Nodes[] = [...tree.children];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const position = node.position;
    if (position) {
      position.start.line += shift.line;
      position.end.line += shift.line;
      if (position.start.offset !== undefined) position.start.offset += shift.offset;
      if (position.end.offset !== undefined) position.end.offset += shift.offset;
    }
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
  const end = tree.position?.end;
  if (end) {
    end.line += shift.line;
    if (end.offset !== undefined) end.offset += shift.offset;
  }
}
