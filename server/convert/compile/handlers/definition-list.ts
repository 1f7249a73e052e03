import type { FileChild } from 'docx';
import type { BlockContent, DefinitionContent, Parent, PhrasingContent } from 'mdast';
import type { Node } from 'unist';
import type { State } from '../state.ts';

// The nodes of mdast-util-definition-list, declared here: its own declarations add them to mdast's content maps under
// other names, which types every tree walk of ours anew.
/** A definition list: its terms and definitions in the order written. */
export interface DefListNode extends Node {
  type: 'defList';
  children: (DefListTermNode | DefListDescriptionNode)[];
}
/** A term: one line of phrasing. */
export interface DefListTermNode extends Parent {
  type: 'defListTerm';
  children: PhrasingContent[];
}
/** A definition: blocks. */
export interface DefListDescriptionNode extends Parent {
  type: 'defListDescription';
  spread: boolean;
  children: (BlockContent | DefinitionContent)[];
}

/**
 * A definition list (pandoc's dialect): each term a paragraph in the `definition_term` style (bold where none is
 * mapped), each definition's blocks one step in, its paragraphs in the `definition` style.
 */
export function definitionList(state: State, node: DefListNode): FileChild[] {
  return node.children.flatMap((child) =>
    child.type === 'defListTerm' ? definitionTerm(state, child) : definitionDescription(state, child),
  );
}

/** A term: one paragraph. */
function definitionTerm(state: State, node: DefListTermNode): FileChild[] {
  const content = () => state.inlines(node.children);
  const children = state.styles.definitionTerm === undefined ? state.withInline({ bold: true }, content) : content();
  return [state.paragraph('term', children)];
}

/** A definition: its blocks one definition level deeper. */
function definitionDescription(state: State, node: DefListDescriptionNode): FileChild[] {
  const container = state.container;
  state.definitionDepth += 1;
  state.container = 'definition';
  try {
    return state.blocks(node.children);
  } finally {
    state.definitionDepth -= 1;
    state.container = container;
  }
}
