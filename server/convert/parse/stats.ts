import type { Nodes, Root } from 'mdast';

/** The counts of a conversion (SPEC.md), by name: what a reader of someone else's counts (the daemon's answer) checks. */
export const STAT_KEYS = ['headings', 'paragraphs', 'lists', 'tables', 'code_blocks', 'images'] as const;

/** Counts of a conversion (SPEC.md): mdast nodes anywhere in the tree. */
export type ConversionStats = Record<(typeof STAT_KEYS)[number], number>;

const COUNTED: Record<string, keyof ConversionStats> = {
  heading: 'headings',
  paragraph: 'paragraphs',
  list: 'lists',
  table: 'tables',
  code: 'code_blocks',
  image: 'images',
  imageReference: 'images',
};

/** Counts nodes and measures the deepest list nesting, without recursion (trees can be 10,000 levels deep). */
export function measure(tree: Root): { stats: ConversionStats; maxListDepth: number } {
  const stats: ConversionStats = { headings: 0, paragraphs: 0, lists: 0, tables: 0, code_blocks: 0, images: 0 };
  let maxListDepth = 0;
  const stack: [Nodes, number][] = [[tree, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, listDepth] = entry;
    const key = COUNTED[node.type];
    if (key) stats[key] += 1;
    const depth = node.type === 'list' ? listDepth + 1 : listDepth;
    if (depth > maxListDepth) maxListDepth = depth;
    if ('children' in node) for (const child of node.children) stack.push([child, depth]);
  }
  return { stats, maxListDepth };
}

/** Adds the counted nodes of `nodes` to `stats`, without descending into the nodes of `skip`. */
export function countInto(stats: ConversionStats, nodes: readonly Nodes[], skip: ReadonlySet<Nodes>): void {
  const stack = [...nodes];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (skip.has(node)) continue;
    const key = COUNTED[node.type];
    if (key) stats[key] += 1;
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
}
