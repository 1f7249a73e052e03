// pandoc's line blocks (pandoc's dialect only): a paragraph whose lines start with `| ` keeps its lines. GFM reads
// such lines as one paragraph (a table needs a delimiter row, so a table is never one); here the bars go and each
// line starts after a line break, its leading spaces kept. A line that does not start with a bar continues the line
// before it (pandoc asks it to start with a space), joined with a space as any soft line break.
import type { Break, Nodes, Paragraph, PhrasingContent, Root, Text } from 'mdast';

/** A source line that starts a line of a line block: a bar after the container's marks (`>`) and indentation. */
const BAR_LINE = /^[ \t>]*\|(?: |$)/;

/** Turns the paragraphs written as line blocks into paragraphs of lines (hard breaks between them), in place. */
export function lineBlocks(tree: Root, source: string): void {
  if (!source.includes('|')) return;
  const lines = source.split('\n').map((line) => line.replace(/\r$/, ''));
  const startsLine = (line: number): boolean => BAR_LINE.test(lines[line - 1] ?? '');
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'paragraph') {
      if (isLineBlock(node, source, startsLine)) node.children = linesOf(node.children, startsLine);
      continue;
    }
    if ('children' in node && node.type !== 'heading' && node.type !== 'table')
      for (const child of node.children) stack.push(child);
  }
}

/** A paragraph that starts with a bar as written (not an escaped one: `\|` is text). */
function isLineBlock(node: Paragraph, source: string, startsLine: (line: number) => boolean): boolean {
  const first = node.children[0];
  const start = node.position?.start;
  return (
    first?.type === 'text' &&
    start?.offset !== undefined &&
    source[start.offset] === '|' &&
    startsLine(start.line) &&
    /^\|(?: |\n|$)/.test(first.value)
  );
}

/** Drops a line's bar and the one space after it. */
const unbarred = (text: string): string => text.replace(/^\|(?: )?/, '');

/** The paragraph's content with each bar line after a line break and without its bar. */
function linesOf(children: readonly PhrasingContent[], startsLine: (line: number) => boolean): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  const lineBreak = (): Break => ({ type: 'break' });
  // At the paragraph's start, or right after a hard break at the end of a line, the next text starts a line.
  let atLineStart = true;
  for (const child of children) {
    if (child.type !== 'text' || child.position === undefined) {
      out.push(child);
      atLineStart = child.type === 'break';
      continue;
    }
    const pieces = child.value.split('\n');
    let value = '';
    pieces.forEach((piece, k) => {
      const line = (child.position?.start.line ?? 0) + k;
      const starts = (k > 0 || atLineStart) && piece.startsWith('|') && startsLine(line);
      if (!starts) {
        value += k > 0 ? `\n${piece}` : piece;
        return;
      }
      if (k > 0) {
        if (value) out.push(textLike(child, value));
        out.push(lineBreak());
      }
      value = unbarred(piece);
    });
    if (value) out.push(textLike(child, value));
    atLineStart = false;
  }
  return out;
}

/** A text node with `value` where `node` stood (its position kept, for the warnings' lines). */
function textLike(node: Text, value: string): Text {
  return { type: 'text', value, ...(node.position ? { position: node.position } : {}) };
}
