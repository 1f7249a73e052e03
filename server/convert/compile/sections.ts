import { BookmarkEnd, BookmarkStart, Paragraph, type ParagraphChild } from 'docx';
import type { State } from './state.ts';

// A `::: {.landscape}` div's own section (issue 33, item 3): the compiler writes a marker paragraph where a section
// ends, and the packaging step (package/sections.ts) writes a section break there with the template's last section's
// properties, portrait for the section before the div, turned landscape for the div's.

/** The bookmark names that mark the end of a section (never a heading's: those start with a letter). */
export const SECTION_MARKERS = {
  /** The section before a landscape div ends here: the template's last section's properties. */
  portrait: '_DocwrightSectionPortrait',
  /** The landscape div's section ends here: the same properties turned landscape. */
  landscape: '_DocwrightSectionLandscape',
} as const;

export type SectionKind = keyof typeof SECTION_MARKERS;

/** The marker paragraph of a section's end. */
export function sectionEnd(state: State, kind: SectionKind): Paragraph {
  const id = state.anchors.newId();
  const children = [new BookmarkStart(SECTION_MARKERS[kind], id), new BookmarkEnd(id)] as unknown as ParagraphChild[];
  return new Paragraph({ children });
}
