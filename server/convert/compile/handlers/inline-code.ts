import type { ParagraphChild } from 'docx';
import type { InlineCode } from 'mdast';
import type { State } from '../state.ts';

/** Inline code in the monospaced font, keeping the surrounding formatting. */
export function inlineCode(state: State, node: InlineCode): ParagraphChild[] {
  return state.withInline({ code: true }, () => [state.run(node.value)]);
}
