// pandoc's `~` definition marker, which micromark-extension-definition-list does not read (it knows `:` only): the
// lines stay their paragraph's text, as in GFM, and are warned, so nothing is printed as syntax silently.
import type { Nodes, Root } from 'mdast';

/** A source line that starts with pandoc's other definition marker, `~` and a space or tab, after containers' marks. */
const TILDE_DEFINITION = /^[ \t>]*~[ \t]/;

/**
 * The lines of paragraphs (after their first) that start a definition with pandoc's `~`: the definition list
 * extension reads `:` only, so these stay the paragraph's text, warned with their lines (docs/elements.md).
 */
export function tildeDefinitions(tree: Root, source: string): number[] {
  if (!source.includes('~')) return [];
  const lines = source.split('\n');
  const found: number[] = [];
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'paragraph') {
      const { start, end } = node.position ?? {};
      if (start && end)
        for (let line = start.line + 1; line <= end.line; line++)
          if (TILDE_DEFINITION.test(lines[line - 1] ?? '')) found.push(line);
      continue;
    }
    if ('children' in node && node.type !== 'heading' && node.type !== 'table')
      for (const child of node.children) stack.push(child);
  }
  return found.sort((a, b) => a - b);
}
