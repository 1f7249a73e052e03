import type { FileChild } from 'docx';
import type { Blockquote } from 'mdast';
import type { State } from '../state.ts';

/** A blockquote: its blocks one quote level deeper. */
export function blockquote(state: State, node: Blockquote): FileChild[] {
  const container = state.container;
  state.quoteDepth += 1;
  state.container = 'quote';
  try {
    return state.blocks(node.children);
  } finally {
    state.quoteDepth -= 1;
    state.container = container;
  }
}
