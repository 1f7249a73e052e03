import type { FileChild } from 'docx';
import type { FencedDiv } from '../../parse/fenced-divs.ts';
import { isLanguageTag, type State } from '../state.ts';

/** The bibliography's paragraphs (handlers/citation.ts), given by compile/index.ts. */
export type BibliographyHandler = (state: State) => FileChild[];

/**
 * A fenced div: its blocks, the paragraphs among them in the template's paragraph style `custom-style` names (by name
 * or id; a missing one is warned `missing_style` and the default style kept). Other attributes are warned. `::: {#refs}` holds the bibliography, after its own blocks, in a document with citations.
 */
export function fencedDiv(state: State, node: FencedDiv, bibliography: BibliographyHandler): FileChild[] {
  let style: string | undefined;
  let lang: string | undefined;
  for (const [key, value] of node.attributes.pairs) {
    if (key === 'lang' && isLanguageTag(value)) lang = value;
    else if (key !== 'custom-style') state.warn(`attribute_ignored: ${key}=${value} on a div`);
    else {
      style = state.templateStyle(value, 'paragraph');
      if (style === undefined) state.warn(`missing_style: ${value}`);
    }
  }
  const refs = node.attributes.id === 'refs' && state.citations !== undefined && !state.bibliographyPlaced;
  if (node.attributes.id !== undefined && !refs) state.warn(`attribute_ignored: #${node.attributes.id} on a div`);
  for (const name of node.attributes.classes) state.warn(`attribute_ignored: .${name} on a div`);
  const saved = state.divStyle;
  if (style !== undefined) state.divStyle = style;
  try {
    const blocks =
      lang === undefined ? state.blocks(node.children) : state.withInline({ lang }, () => state.blocks(node.children));
    return refs ? [...blocks, ...bibliography(state)] : blocks;
  } finally {
    state.divStyle = saved;
  }
}
