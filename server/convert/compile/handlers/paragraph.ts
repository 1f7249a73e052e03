import type { FileChild } from 'docx';
import type { Paragraph as MdParagraph } from 'mdast';
import type { State } from '../state.ts';
import { listMarker } from '../caption-index.ts';
import { captionParagraph, listOf, numberedEquation } from '../captions.ts';
import { numberedFormula } from '../equations.ts';

/**
 * A paragraph: a table of contents marker (toc.ts), an anchor-only paragraph (its bookmarks go to the next
 * paragraph), or a paragraph in the mapped paragraph style (or quote style inside a blockquote, definition style
 * inside a definition list's definition).
 */
export function paragraph(state: State, node: MdParagraph): FileChild[] {
  if (state.toc.markers.has(node)) return state.toc.marker(state);
  const list = listMarker(node);
  if (list) return listOf(state, list);
  const numbered = state.captions.of(node);
  if (numbered?.kind === 'equation') {
    const formula = node.children.find((child) => child.type === 'inlineMath');
    if (formula) return [numberedEquation(state, numbered, numberedFormula(state, formula.value))];
  }
  if (numbered?.kind === 'figure') {
    // The figure's caption, numbered, right after it (and kept with it on its page).
    state.inFigure = true;
    let runs;
    try {
      runs = state.inlines(node.children);
    } finally {
      state.inFigure = false;
    }
    // Its caption's text as parsed (references and citations in it: parse/captions.ts figureCaptions).
    const nodes = numbered.nodes;
    const text = numbered.text;
    state.after.push(() =>
      captionParagraph(state, numbered, nodes ? state.inlines(nodes) : text ? [state.run(text)] : []),
    );
    return [state.paragraph(state.container === 'quote' ? 'quote' : 'paragraph', runs, { keepNext: true })];
  }
  if (
    node.children.length > 0 &&
    node.children.some((c) => c.type === 'anchor') &&
    node.children.every((c) => c.type === 'anchor' || (c.type === 'text' && c.value.trim() === ''))
  ) {
    for (const child of node.children) if (child.type === 'anchor') state.anchors.defer(child);
    return [];
  }
  const role = state.container === 'quote' ? 'quote' : state.container === 'definition' ? 'definition' : 'paragraph';
  return [state.paragraph(role, state.inlines(node.children))];
}
