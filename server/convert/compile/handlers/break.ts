import { LINE_BREAK, type Xml } from '../ooxml.ts';
import type { State } from '../state.ts';

/** A hard line break. */
export function hardBreak(_state: State): Xml[] {
  return [LINE_BREAK];
}
