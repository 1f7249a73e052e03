import type { ParagraphChild } from 'docx';
import type { Text } from 'mdast';
import type { State } from '../state.ts';

/** Text in the current inline formatting; soft line breaks become spaces, as a word processor shows them. */
export function text(state: State, node: Text): ParagraphChild[] {
  const value = node.value.replace(/[ \t]*\r?\n[ \t]*/g, ' ');
  return value ? [state.run(value)] : [];
}
