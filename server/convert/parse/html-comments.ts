// HTML comments kept as Word comments (`comments: "word"`, element-options.ts). remark gives a comment on its own
// (inline, or a block of its own lines) as an html node holding just it; such a node becomes an `htmlComment`, which
// the raw HTML step leaves alone and the compiler anchors where it stood. Comments inside other HTML go with it.
import type { Data, Literal, Nodes, Root } from 'mdast';

/** An HTML comment's text, to print as a Word comment (handlers/html-comment.ts). */
export interface HtmlComment extends Literal {
  type: 'htmlComment';
  data?: Data;
}

/** An html node that is one comment and nothing else, its text in group 1. */
const ONE_COMMENT = /^\s*<!--([\s\S]*?)-->\s*$/;

/** Turns the html nodes that are each one comment into `htmlComment` nodes (empty ones dropped), in place. */
export function htmlComments(tree: Root, markdown: string): void {
  if (!markdown.includes('<!--')) return;
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (!('children' in node)) continue;
    const children = node.children as Nodes[];
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i] as Nodes;
      const comment = child.type === 'html' ? ONE_COMMENT.exec(child.value) : null;
      const text = comment?.[1]?.trim();
      if (comment && !text) children.splice(i, 1);
      else if (text && !text.includes('<!--')) {
        const kept: HtmlComment = {
          type: 'htmlComment',
          value: text,
          ...(child.position ? { position: child.position } : {}),
        };
        children.splice(i, 1, kept as never);
      } else stack.push(child);
    }
  }
}
