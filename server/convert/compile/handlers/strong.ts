import type { Xml } from '../ooxml.ts';
import type { Strong } from 'mdast';
import type { State } from '../state.ts';

/** Bold. */
export function strong(state: State, node: Strong): Xml[] {
  return state.withInline({ bold: true }, () => state.inlines(node.children));
}
