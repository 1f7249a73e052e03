import type { FileChild } from 'docx';
import type { List } from 'mdast';
import type { State } from '../state.ts';
import { listItemWith } from './list-item.ts';

/** Word's nine list levels (ilvl 0–8); deeper items render at the last one with a warning. */
export const MAX_LIST_LEVELS = 9;

/** A list: one numbering instance of its own, so numbering restarts; an ordered list keeps its start number. */
export function list(state: State, node: List): FileChild[] {
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
    for (const item of node.children) out.push(...listItemWith(state, item, { reference, instance, level }));
    return out;
  } finally {
    state.listDepth -= 1;
    state.container = container;
  }
}
