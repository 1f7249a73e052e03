import type { FileChild } from 'docx';
import type { Root } from 'mdast';
import type { State } from '../state.ts';

/** The document: its blocks in order. */
export function root(state: State, node: Root): FileChild[] {
  return state.blocks(node.children);
}
