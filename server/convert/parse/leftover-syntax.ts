import type { Node, Parents, Root, Text, Yaml } from 'mdast';
import { parseAttributes } from './attributes.ts';
import { heldCaption } from './captions.ts';

// Nothing printed as literal syntax silently (issue 33, item 8): what the passes before did not read as pandoc's
// syntax and left in the text as written is named in a warning with its line, `syntax_as_text: <it> (<why>)`. One
// table of patterns serves every construct; code is not text and is not looked at, and an escaped construct
// (`\{#id}`, `\^[`, `\\newpage`) is the text its writer meant.

/** A construct of pandoc's markdown that may be left in the text. */
interface Leftover {
  /** Its occurrences in a text node's value (global; `m` for those that must start a line). */
  pattern: RegExp;
  /** What the markdown holds wherever the construct can occur (a document without it is not walked for it). */
  needs: RegExp;
  /** Why it stayed text, for the warning. */
  reason: string;
  /** True when it must start a line of the source (white space, quote and list markers aside). */
  lineStart?: boolean;
  /** A further check of an occurrence (an attribute block must read as one). */
  accept?: (text: string) => boolean;
  /** Attribute blocks: one whose span (`\[`) or fence (`\:::`) was escaped is the text its writer meant. */
  escapedBefore?: boolean;
  /** Only when TeX math is read (with math off, dollars are text as asked). */
  math?: boolean;
}

const ATTRIBUTES_OR_FENCE = "not read as pandoc's attributes or a fenced div";

/** The constructs, in the order their warnings are looked for within a text. */
const LEFTOVERS: readonly Leftover[] = [
  {
    pattern: /^[ \t]*:{3,}.*$/gm,
    needs: /:::/,
    reason: ATTRIBUTES_OR_FENCE,
    lineStart: true,
  },
  {
    pattern: /\{[^{}\n]*\}/g,
    needs: /\{/,
    reason: ATTRIBUTES_OR_FENCE,
    accept: (text) => parseAttributes(text) !== undefined,
    escapedBefore: true,
  },
  // pandoc's rule (parse/math.ts): no white space inside the dollars, no digit after the closing one.
  {
    pattern: /\$\$[^$]+\$\$|\$[^\s$](?:[^$\n]*[^\s$\\])?\$(?!\d)/g,
    needs: /\$/,
    reason: 'not read as TeX math',
    math: true,
  },
  {
    pattern: /\\(?:newpage|pagebreak)(?![A-Za-z])/g,
    needs: /\\(?:newpage|pagebreak)/,
    reason: 'a page break only as a paragraph of nothing else',
  },
  {
    pattern: /\^\[[^\]\n]{0,38}\]?/g,
    needs: /\^\[/,
    reason: 'not an inline note: unclosed, empty, or more than 8 inside one another',
  },
  { pattern: /\^[^\s^[\]]+\^/g, needs: /\^/, reason: 'not superscript here' },
  { pattern: /(?<!~)~[^\s~]+~(?!~)/g, needs: /~/, reason: 'not subscript here' },
  {
    pattern: /^:[ \t]+\S.*$/gm,
    needs: /^[ \t>]*:[ \t]/m,
    reason: "definition lists are read in pandoc's dialect (markdown: pandoc), and only as a list's own lines",
    lineStart: true,
  },
  {
    pattern: /^Table:[ \t].*$/gm,
    needs: /Table:/,
    reason: 'a table caption stands right before or after its table',
    lineStart: true,
  },
  {
    pattern: /^\|(?:[ \t].*)?$/gm,
    needs: /^[ \t>]*\|/m,
    reason: "line blocks are read in pandoc's dialect (markdown: pandoc)",
    lineStart: true,
  },
  {
    // Innermost brackets only, the words before the key without an `@`: each `[` scans to the next bracket, so the
    // scan is linear (one allowing `[` inside took minutes for `[[[… @a @a…`: cubic backtracking).
    pattern: /\[(?:[^[\]\n@]*[\s;])?-?@[\p{L}\d_][^[\]\n]*\]/gu,
    needs: /@/,
    reason: 'citations are formatted only with a bibliography (front matter bibliography:, or sent with the request)',
  },
  { pattern: /(?<![\w@])@(?:fig|tbl|eq|sec|lst):[\w:-]+/g, needs: /@/, reason: 'not a cross-reference here' },
];

/** What a source line may hold before a construct that starts a line: indentation, quote and list markers. */
const LINE_LEAD = /^(?:[ \t]*(?:>|[-*+]|\d{1,9}[.)])?)*[ \t]*$/;

/** The number of backslashes right before `offset` in `text`. */
function backslashesBefore(text: string, offset: number): number {
  let n = 0;
  while (offset - n - 1 >= 0 && text[offset - n - 1] === '\\') n += 1;
  return n;
}

/** One construct left as text: its first 40 characters, its line, and why it stayed text. */
export interface LeftoverSyntax {
  text: string;
  line: number;
  reason: string;
}

/**
 * The constructs of LEFTOVERS left in the tree's text as written (unescaped in `source`, the markdown the tree was
 * parsed from), in document order, each with its line. `math`: whether TeX math was read.
 */
export function leftoverSyntax(tree: Root, source: string, math: boolean): LeftoverSyntax[] {
  const found: LeftoverSyntax[] = [];
  const active = LEFTOVERS.filter((l) => (math || !l.math) && l.needs.test(source));
  if (active.length === 0) return found;
  const stack: Node[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    // The front matter's abstract (parse/abstract.ts) in its own source; its lines are the file's already.
    const abstract = node.type === 'yaml' ? (node as Yaml).data?.abstract : undefined;
    if (abstract) found.push(...leftoverSyntax(abstract.tree, abstract.source, math));
    if (node.type === 'text') inText(node as Text, source, active, found);
    else if ('children' in node) {
      const list = (node as Parents).children;
      for (let k = list.length - 1; k >= 0; k--) stack.push(list[k] as Node);
    }
    // A table's or a figure's caption, held in its data, is shown text too (before the table, after the picture).
    const caption = heldCaption(node);
    if (caption) for (let k = caption.children.length - 1; k >= 0; k--) stack.push(caption.children[k] as Node);
  }
  return found;
}

function inText(text: Text, source: string, active: readonly Leftover[], found: LeftoverSyntax[]): void {
  const from = text.position?.start.offset;
  const to = text.position?.end.offset;
  const first = text.position?.start.line;
  if (first === undefined) return;
  // A text with a line but no offsets is one a pass wrote (references.ts: the citations of a group mixing them with
  // cross-references, `[@doe2020]`): no escape is in it, it is read as it is, and it starts no line.
  const placed = from !== undefined && to !== undefined;
  let written: string | undefined;
  for (const leftover of active) {
    // Most texts hold none: a test first, so matchAll's copy of the pattern and its iterator are made for those that do.
    leftover.pattern.lastIndex = 0;
    if (!leftover.pattern.test(text.value)) continue;
    leftover.pattern.lastIndex = 0;
    if (!placed && (leftover.lineStart || leftover.escapedBefore)) continue;
    written ??= placed ? source.slice(from, to) : text.value;
    let cursor = 0;
    for (const match of text.value.matchAll(leftover.pattern)) {
      const seen = match[0].trim();
      if (seen === '' || (leftover.accept && !leftover.accept(seen))) continue;
      const lineOfValue = text.value.slice(0, match.index).split('\n').length - 1;
      // Where the writer wrote it: not found as it reads, it was written with an escape or a character reference.
      const at = written.indexOf(seen, cursor);
      if (at < 0 || backslashesBefore(written, at) % 2 === 1) continue;
      cursor = at + seen.length;
      if (placed) {
        const lineStart = source.lastIndexOf('\n', from + at - 1) + 1;
        const before = source.slice(lineStart, from + at);
        if (leftover.lineStart && !LINE_LEAD.test(before)) continue;
        if (leftover.escapedBefore && (/\\\[/.test(before) || /^\s*\\:/.test(before))) continue;
      }
      found.push({ text: seen.slice(0, 40), line: first + lineOfValue, reason: leftover.reason });
    }
  }
}
