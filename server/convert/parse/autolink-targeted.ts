import type { Parent, Root, Text } from 'mdast';

type Transform = (tree: Root) => Root | undefined;

/** Text GFM's autolink-literal transform could change: a URL start, `www.`, or an `@` (emails, mailto:, xmpp:). */
const CANDIDATE = /https?:\/\/|www\./i;
const mayLink = (value: string) => value.includes('@') || CANDIDATE.test(value);

/** Nodes the transform does not enter (mdast-util-gfm-autolink-literal's `ignore`). */
const IGNORED = new Set(['link', 'linkReference']);

/**
 * Runs GFM's autolink-literal transform only on the text nodes it could change. Its result for a text node depends
 * on that node's value alone (and on no link above it), so running it on a root holding just that node and putting
 * what it returns in the node's place gives the same tree as the walk over every node, regex by regex.
 */
export function targetedAutolinks(transform: Transform): Transform {
  return (tree) => {
    const found: { parent: Parent; index: number }[] = [];
    const stack: Parent[] = [tree];
    for (let parent = stack.pop(); parent; parent = stack.pop()) {
      for (const [index, child] of parent.children.entries()) {
        if (child.type === 'text') {
          if (mayLink(child.value)) found.push({ parent, index });
        } else if ('children' in child && !IGNORED.has(child.type)) stack.push(child);
      }
    }
    // Last first within a parent, so the indexes of the earlier ones hold when a node becomes several.
    found.sort((a, b) => (a.parent === b.parent ? b.index - a.index : 0));
    for (const { parent, index } of found) {
      const root: Root = { type: 'root', children: [parent.children[index] as Text] };
      transform(root);
      parent.children.splice(index, 1, ...root.children);
    }
  };
}
