import type { FileChild } from 'docx';
import type { ListItem } from 'mdast';
import type { PendingItem, State } from '../state.ts';

/** An item: its first paragraph carries the number or bullet; the rest of its blocks stay indented inside it. */
export function listItemWith(state: State, node: ListItem, item: PendingItem): FileChild[] {
  state.pendingItem = item;
  const out = state.blocks(node.children);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- state.blocks() takes it with the first paragraph
  if (state.pendingItem) {
    // An empty item, or one that holds no paragraph, still shows its number.
    out.unshift(state.paragraph('list', []));
  }
  return out;
}

/** A list item outside a list cannot occur in mdast from markdown; its blocks are kept. */
export function listItem(state: State, node: ListItem): FileChild[] {
  return state.blocks(node.children);
}
