import type { ParagraphChild } from 'docx';
import type { Emphasis } from 'mdast';
import type { State } from '../state.ts';

/** Italic, or the mapped `emphasis` character style. */
export function emphasis(state: State, node: Emphasis): ParagraphChild[] {
  return state.withInline({ emphasis: true }, () => state.inlines(node.children));
}
