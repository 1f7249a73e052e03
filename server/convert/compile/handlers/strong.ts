import type { ParagraphChild } from 'docx';
import type { Strong } from 'mdast';
import type { State } from '../state.ts';

/** Bold, or the mapped `strong` character style. */
export function strong(state: State, node: Strong): ParagraphChild[] {
  return state.withInline({ strong: true }, () => state.inlines(node.children));
}
