import type { FileChild } from 'docx';
import type { List, ListItem } from 'mdast';
import type { PendingItem, State } from '../state.ts';
import { MAX_LIST_LEVELS } from '../../word-limits.ts';

/** The list item handler (handlers/list-item.ts), given by compile/index.ts: each item with its list's numbering. */
export type ItemHandler = (state: State, node: ListItem, item: PendingItem) => FileChild[];

/** A list: one numbering instance of its own, so numbering restarts; an ordered list keeps its start number. */
export function list(state: State, node: List, listItem: ItemHandler): FileChild[] {
  const ordered = node.ordered === true;
  const start =
    ordered && typeof node.start === 'number' && Number.isSafeInteger(node.start) ? Math.max(0, node.start) : 1;
  const { reference, instance } = state.newList(ordered, start);
  const out: FileChild[] = state.flushPendingItem();
  const container = state.container;
  state.listDepth += 1;
  state.container = 'list';
  try {
    const level = Math.min(state.listDepth, MAX_LIST_LEVELS) - 1;
    for (const item of node.children) out.push(...listItem(state, item, { reference, instance, level }));
    return out;
  } finally {
    state.listDepth -= 1;
    state.container = container;
  }
}
