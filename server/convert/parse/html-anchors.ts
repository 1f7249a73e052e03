import type { Element } from 'hast';
import { defaultHandlers, type Handle } from 'hast-util-to-mdast';
import type { Node, Nodes } from 'mdast';

/**
 * Explicit anchors in raw HTML (`<a name>`, `<a id>`, issue 15): the parse step turns each into an `anchor` node, which
 * the compile step makes a bookmark (compile/anchors.ts).
 */

/** An explicit anchor from raw HTML (`<a name="x">`, `<a id="x">`): a bookmark where it stands, printing nothing. */
export interface Anchor extends Node {
  type: 'anchor';
  name: string;
}

declare module 'mdast' {
  interface PhrasingContentMap {
    anchor: Anchor;
  }
  interface RootContentMap {
    anchor: Anchor;
  }
}

/** The explicit anchor name of an HTML element (`<a name>`, `<a id>`), if it has one. */
export function htmlAnchorName(node: Element): string | undefined {
  if (node.tagName !== 'a') return undefined;
  const { id, name } = node.properties;
  const value = typeof id === 'string' && id.trim() ? id : typeof name === 'string' && name.trim() ? name : undefined;
  return value?.trim();
}

/** Marks the empty `delete` node an anchor stands as while hast-util-to-mdast runs (it wraps unknown types in paragraphs). */
const ANCHOR_MARK = 'docwrightAnchor';

/** `<a name="x">`/`<a id="x">` in raw HTML: an anchor in front of what the element prints (a link or its text). */
export const htmlAnchor: Handle = (state, node) => {
  const name = htmlAnchorName(node);
  const href = node.properties.href;
  const printed = typeof href === 'string' && href !== '' ? defaultHandlers.a(state, node) : state.all(node);
  if (name === undefined) return printed;
  return [anchorMark(name), ...(Array.isArray(printed) ? printed : [printed])] as never;
};

/** The node an anchor stands as while hast-util-to-mdast runs; restoreAnchors turns it into the anchor. */
export function anchorMark(name: string): Nodes {
  return { type: 'delete', data: { [ANCHOR_MARK]: name }, children: [] } as unknown as Nodes;
}

/** Turns the marked `delete` nodes back into anchors, after the conversion. */
export function restoreAnchors(nodes: readonly Nodes[], skip: ReadonlySet<Nodes>): void {
  const stack = [...nodes];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (skip.has(node)) continue;
    const name = (node.data as Record<string, unknown> | undefined)?.[ANCHOR_MARK];
    if (node.type === 'delete' && typeof name === 'string') {
      const anchor: Anchor = { type: 'anchor', name };
      Object.assign(node, anchor, { data: undefined, children: undefined });
      delete (node as { children?: unknown }).children;
      continue;
    }
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
}
