import type { ParagraphChild } from 'docx';
import type { Delete } from 'mdast';
import type { State } from '../state.ts';

/** Strikethrough (GFM `~~x~~`). */
export function strikethrough(state: State, node: Delete): ParagraphChild[] {
  return state.withInline({ strike: true }, () => state.inlines(node.children));
}
