import type { ParagraphChild } from 'docx';
import type { Emphasis } from 'mdast';
import type { State } from '../state.ts';

/** Italic. */
export function emphasis(state: State, node: Emphasis): ParagraphChild[] {
  return state.withInline({ italics: true }, () => state.inlines(node.children));
}
