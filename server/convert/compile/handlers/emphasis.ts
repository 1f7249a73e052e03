import type { Xml } from '../ooxml.ts';
import type { Emphasis } from 'mdast';
import type { State } from '../state.ts';

/** Italic. */
export function emphasis(state: State, node: Emphasis): Xml[] {
  return state.withInline({ italics: true }, () => state.inlines(node.children));
}
