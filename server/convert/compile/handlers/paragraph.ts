import type { Xml } from '../ooxml.ts';
import type { Paragraph as MdParagraph } from 'mdast';
import type { State } from '../state.ts';

/** A paragraph in the mapped paragraph style (or quote style inside a blockquote). */
export function paragraph(state: State, node: MdParagraph): Xml[] {
  return [state.paragraph(state.container === 'quote' ? 'quote' : 'paragraph', state.inlines(node.children))];
}
