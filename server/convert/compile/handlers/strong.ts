import type { ParagraphChild } from 'docx';
import type { Strong } from 'mdast';
import type { State } from '../state.ts';

/** Bold. */
export function strong(state: State, node: Strong): ParagraphChild[] {
  return state.withInline({ bold: true }, () => state.inlines(node.children));
}
