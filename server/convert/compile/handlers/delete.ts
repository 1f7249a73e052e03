import type { Xml } from '../ooxml.ts';
import type { Delete } from 'mdast';
import type { State } from '../state.ts';

/** Strikethrough (GFM `~~x~~`). */
export function strikethrough(state: State, node: Delete): Xml[] {
  return state.withInline({ strike: true }, () => state.inlines(node.children));
}
