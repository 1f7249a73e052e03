import { BorderStyle, Paragraph, type FileChild } from 'docx';
import type { State } from '../state.ts';

/** A horizontal rule: a page break (SPEC's default), an empty paragraph with a bottom border, or nothing. */
export function thematicBreak(state: State): FileChild[] {
  switch (state.options.thematic_break) {
    case 'none':
      return [];
    case 'rule':
      return [
        new Paragraph({
          border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: 'auto', space: 1 } },
          indent: state.blockIndent('paragraph') > 0 ? { left: state.blockIndent('paragraph') } : undefined,
        }),
      ];
    case 'page_break':
      return state.breakPage();
  }
}

/** A page break the writer asked for (`\newpage`, `\pagebreak`, CSS `page-break-before: always`: parse/page-breaks.ts). */
export function pageBreak(state: State): FileChild[] {
  return state.breakPage();
}
