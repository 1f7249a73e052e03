import type { Xml } from '../ooxml.ts';
import type { Root } from 'mdast';
import type { State } from '../state.ts';

/** The document: its blocks in order. */
export function root(state: State, node: Root): Xml[] {
  return state.blocks(node.children);
}
