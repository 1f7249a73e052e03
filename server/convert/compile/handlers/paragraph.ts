import type { FileChild } from 'docx';
import type { Paragraph as MdParagraph } from 'mdast';
import type { State } from '../state.ts';

/** A paragraph in the mapped paragraph style (or quote style inside a blockquote). */
export function paragraph(state: State, node: MdParagraph): FileChild[] {
  return [state.paragraph(state.container === 'quote' ? 'quote' : 'paragraph', state.inlines(node.children))];
}
