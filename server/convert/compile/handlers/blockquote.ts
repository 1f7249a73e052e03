import type { FileChild } from 'docx';
import type { Blockquote } from 'mdast';
import type { State } from '../state.ts';

/** A blockquote: its blocks one quote level deeper. */
export function blockquote(state: State, node: Blockquote): FileChild[] {
  state.quoteDepth += 1;
  try {
    return state.blocks(node.children);
  } finally {
    state.quoteDepth -= 1;
  }
}
