import { PageBreak, Paragraph, type FileChild } from 'docx';
import type { State } from '../state.ts';

/** A horizontal rule becomes a page break. */
export function thematicBreak(_state: State): FileChild[] {
  return [new Paragraph({ children: [new PageBreak()] })];
}
