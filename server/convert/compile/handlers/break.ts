import { TextRun, type ParagraphChild } from 'docx';
import type { State } from '../state.ts';

/** A hard line break. */
export function hardBreak(_state: State): ParagraphChild[] {
  return [new TextRun({ break: 1 })];
}
