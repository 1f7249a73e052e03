import type { ParagraphChild } from 'docx';
import type { Parent, PhrasingContent } from 'mdast';
import type { State } from '../state.ts';

declare module 'mdast' {
  /** Superscript text, from raw HTML's `<sup>` (markdown has none). */
  interface Superscript extends Parent {
    type: 'superscript';
    children: PhrasingContent[];
  }
  /** Subscript text, from raw HTML's `<sub>`. */
  interface Subscript extends Parent {
    type: 'subscript';
    children: PhrasingContent[];
  }
  interface PhrasingContentMap {
    superscript: Superscript;
    subscript: Subscript;
  }
  interface RootContentMap {
    superscript: Superscript;
    subscript: Subscript;
  }
}

/** Superscript (`<sup>`). */
export function superscript(state: State, node: Parent & { children: PhrasingContent[] }): ParagraphChild[] {
  return state.withInline({ superScript: true }, () => state.inlines(node.children));
}

/** Subscript (`<sub>`). */
export function subscript(state: State, node: Parent & { children: PhrasingContent[] }): ParagraphChild[] {
  return state.withInline({ subScript: true }, () => state.inlines(node.children));
}
