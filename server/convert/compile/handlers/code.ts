import { Tab, TextRun, type FileChild } from 'docx';
import type { Code } from 'mdast';
import { CODE_FALLBACK, CODE_SIZE, MONO_FONT, type State } from '../state.ts';
import { stripForbiddenXmlChars } from '../../xml.ts';

/** Runs of one code line: text with tabs as real tab characters, spaces kept. */
function lineRuns(line: string): TextRun {
  const parts = stripForbiddenXmlChars(line).split('\t');
  const children: (string | Tab)[] = [];
  parts.forEach((part, i) => {
    if (i > 0) children.push(new Tab());
    if (part) children.push(part);
  });
  return new TextRun({ children, font: MONO_FONT, size: CODE_SIZE });
}

/** A code block: one paragraph per source line, monospaced at 9 pt whatever the mapped style says. */
export function code(state: State, node: Code): FileChild[] {
  const style = state.styles.code_block;
  const lines = node.value.split(/\r\n|\r|\n/);
  return lines.map((line) =>
    state.paragraph('code', line.length > 0 ? [lineRuns(line)] : [], style ? { style } : { ...CODE_FALLBACK }),
  );
}
