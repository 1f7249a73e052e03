import type { Nodes } from 'mdast';
import type { MathOption } from '../element-options.ts';

/**
 * Whether a parsed document holds a formula to convert (a `$…$`, a `$$` block, or a ```` ```math ```` fence when the
 * mapping asks for those): only then does convert() load the converter (math/index.ts, and temml with it).
 */
export function hasMath(tree: Nodes, markdown: string, option: MathOption): boolean {
  // Without a `$` (or, for fences, the word math) there is none: the tree is not walked, as the parse's passes skip
  // a document that lacks what they look for.
  if (option === 'none' || !(markdown.includes('$') || (option === 'dollars_and_fences' && markdown.includes('math'))))
    return false;
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'math' || node.type === 'inlineMath') return true;
    if (node.type === 'code' && node.lang === 'math' && option === 'dollars_and_fences') return true;
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
  return false;
}
