import type { ParagraphChild } from 'docx';
import type { Text } from 'mdast';
import { bidiSegments } from '../../bidi.ts';
import type { State } from '../state.ts';

/**
 * Text in the current inline formatting; soft line breaks become spaces, as a word processor shows them. In a
 * right-to-left paragraph the right-to-left pieces are marked so (`w:rtl`), Latin words and numbers are not.
 */
export function text(state: State, node: Text): ParagraphChild[] {
  const value = node.value.replace(/[ \t]*\r?\n[ \t]*/g, ' ');
  if (!value) return [];
  if (!state.rtl) return [state.run(value)];
  return bidiSegments(value).map((segment) => state.run(segment.text, segment.rtl));
}
