import { BookmarkEnd, BookmarkStart, ImportedXmlComponent, TextRun, type ParagraphChild } from 'docx';
import { docxText } from '../braces.ts';

// Word's complex fields (w:fldChar begin / w:instrText / separate / result / end), as Word writes SEQ, REF and TOC
// fields: the result pre-filled, so the document reads right before its fields are updated.

/** A run holding one w:fldChar (`hidden`: the run hidden, w:vanish). */
export function fieldChar(type: 'begin' | 'separate' | 'end', hidden = false): TextRun {
  const char = new ImportedXmlComponent('w:fldChar', { 'w:fldCharType': type });
  return new TextRun({ ...(hidden ? { vanish: true } : {}), children: [char] });
}

/** A run holding a field's instruction (` SEQ Figure \* ARABIC `; `hidden`: the run hidden). */
export function fieldInstruction(instruction: string, hidden = false): TextRun {
  const text = new ImportedXmlComponent('w:instrText', { 'xml:space': 'preserve' });
  text.push(docxText(instruction));
  return new TextRun({ ...(hidden ? { vanish: true } : {}), children: [text] });
}

/** A whole field: its instruction and its pre-filled result runs. */
export function field(instruction: string, result: ParagraphChild[]): ParagraphChild[] {
  return [fieldChar('begin'), fieldInstruction(instruction), fieldChar('separate'), ...result, fieldChar('end')];
}

/** Runs wrapped in a bookmark of `name` (a REF field's target). */
export function bookmarked(name: string, id: number, runs: ParagraphChild[]): ParagraphChild[] {
  const start = new BookmarkStart(name, id) as unknown as ParagraphChild;
  const end = new BookmarkEnd(id) as unknown as ParagraphChild;
  return [start, ...runs, end];
}

/**
 * A field that shows nothing (its runs hidden, no result): `SEQ Figure \r 0 \h` at a chapter's heading starts the
 * sequence again. Word's `\s 1` does that already, but LibreOffice ignores `\s` when it recomputes the numbers, and
 * prints an `\h` field's value unless its runs are hidden.
 */
export function hiddenField(instruction: string): ParagraphChild[] {
  return [
    fieldChar('begin', true),
    fieldInstruction(instruction, true),
    fieldChar('separate', true),
    fieldChar('end', true),
  ];
}
