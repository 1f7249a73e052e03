import type { FileChild } from 'docx';
import type { FencedDiv } from '../../parse/fenced-divs.ts';
import { sectionEnd } from '../sections.ts';
import { isLanguageTag, type State } from '../state.ts';

/** The bibliography's paragraphs (handlers/citation.ts), given by compile/index.ts. */
export type BibliographyHandler = (state: State) => FileChild[];

/**
 * A fenced div: its blocks, the paragraphs among them in the template's paragraph style `custom-style` names (by name
 * or id; a missing one is warned `missing_style` and the default style kept). The class `landscape` puts them in a
 * landscape section of their own (landscape()); `::: {#refs}` holds the bibliography, after its own blocks, in a
 * document with citations. Other attributes are warned.
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
  const landscape = node.attributes.classes.includes('landscape');
  for (const name of node.attributes.classes)
    if (name !== 'landscape') state.warn(`attribute_ignored: .${name} on a div`);
  const saved = state.divStyle;
  if (style !== undefined) state.divStyle = style;
  try {
    const blocks = (): FileChild[] => {
      const inner =
        lang === undefined
          ? state.blocks(node.children)
          : state.withInline({ lang }, () => state.blocks(node.children));
      return refs ? [...inner, ...bibliography(state)] : inner;
    };
    return landscape ? inLandscape(state, blocks) : blocks();
  } finally {
    state.divStyle = saved;
  }
}

/**
 * A landscape div's blocks in a section of their own: the section before ends where the div starts, the div's where
 * it ends (sections.ts), its tables and pictures sized to the landscape width. Inside a note (a note has no pages)
 * or a landscape div already, the blocks stay where they are, with `landscape_ignored` in a note.
 */
function inLandscape(state: State, blocks: () => FileChild[]): FileChild[] {
  if (state.inLandscape) return blocks();
  if (state.inFootnote) {
    state.warn('landscape_ignored: a note has no page of its own to turn');
    return blocks();
  }
  const width = state.textWidthTwips;
  // A page break asked for right before: the section's own break starts the new page.
  state.breakBefore = false;
  state.inLandscape = true;
  state.landscapeUsed = true;
  state.textWidthTwips = state.landscapeTextWidthTwips;
  try {
    return [sectionEnd(state, 'portrait'), ...blocks(), sectionEnd(state, 'landscape')];
  } finally {
    state.inLandscape = false;
    state.textWidthTwips = width;
  }
}
