import { FootnoteReferenceRun, Paragraph, type ParagraphChild } from 'docx';
import type { FootnoteReference } from 'mdast';
import type { State } from '../state.ts';

/** A GFM footnote reference: a real Word footnote holding the definition's content. */
export function footnoteReference(state: State, node: FootnoteReference): ParagraphChild[] {
  const definition = state.footnoteDefinitions.get(node.identifier.toLowerCase());
  // Word has no footnotes inside footnotes; a reference there keeps its label as text.
  if (!definition || state.inFootnote) return [state.run(`[^${node.label ?? node.identifier}]`)];
  const id = state.nextFootnoteId();
  state.isolated({ inFootnote: true }, () => {
    const paragraphs = state.blocks(definition.children).filter((b): b is Paragraph => b instanceof Paragraph);
    state.footnotes[id] = { children: paragraphs.length > 0 ? paragraphs : [state.paragraph('footnote', [])] };
  });
  return [new FootnoteReferenceRun(id)];
}
