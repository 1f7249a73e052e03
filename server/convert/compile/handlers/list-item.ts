import type { FileChild } from 'docx';
import type { ListItem, Paragraph } from 'mdast';
import type { PendingItem, State } from '../state.ts';

/** Word's ballot box glyphs, empty and crossed, for `task_list: checkbox`. */
export const CHECKBOX = { open: '\u2610', done: '\u2612' } as const;

/** A task item's blocks with the box leading its first paragraph (a paragraph of its own when it starts otherwise). */
function withCheckbox(node: ListItem): ListItem['children'] {
  const box = { type: 'text' as const, value: `${node.checked ? CHECKBOX.done : CHECKBOX.open} ` };
  const [first, ...rest] = node.children;
  if (first?.type === 'paragraph') {
    const led: Paragraph = { ...first, children: [box, ...first.children] };
    return [led, ...rest];
  }
  return [{ type: 'paragraph', children: [box] }, ...node.children];
}

/**
 * A list item. Handed by its list (handlers/list.ts) with the list's numbering: its first paragraph carries the number
 * or bullet, the rest of its blocks stay indented inside it. Outside a list (which cannot occur in mdast from
 * markdown) its blocks are kept.
 */
export function listItem(state: State, node: ListItem, item?: PendingItem): FileChild[] {
  if (!item) return state.blocks(node.children);
  state.pendingItem = item;
  const task = typeof node.checked === 'boolean' && state.options.task_list === 'checkbox';
  const out = state.blocks(task ? withCheckbox(node) : node.children);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- state.blocks() takes it with the first paragraph
  if (state.pendingItem) {
    // An empty item, or one that holds no paragraph, still shows its number.
    out.unshift(state.paragraph('list', []));
  }
  return out;
}
