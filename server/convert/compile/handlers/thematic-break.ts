import { PAGE_BREAK_PARAGRAPH, type Xml } from '../ooxml.ts';
import type { State } from '../state.ts';

/** A horizontal rule becomes a page break. */
export function thematicBreak(_state: State): Xml[] {
  return [PAGE_BREAK_PARAGRAPH];
}
