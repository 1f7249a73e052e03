import { AlignmentType, Tab, TextRun, type FileChild } from 'docx';
import type { Code } from 'mdast';
import { CODE_FALLBACK, CODE_SIZE, MONO_FONT, type State } from '../state.ts';
import { docxText } from '../../braces.ts';

/** The run of one code line: a line break before it (but the first), tabs as real tabs, spaces kept. */
function lineRun(line: string, first: boolean): TextRun {
  const children: (string | Tab)[] = [];
  docxText(line)
    .split('\t')
    .forEach((part, i) => {
      if (i > 0) children.push(new Tab());
      if (part) children.push(part);
    });
  return new TextRun({ children, font: MONO_FONT, size: CODE_SIZE, ...(first ? {} : { break: 1 }) });
}

/**
 * A code block: one paragraph whose lines are separated by line breaks, so the mapped style's spacing and
 * justification apply around the block and not between its lines; monospaced at 9 pt whatever the style says.
 */
export function code(state: State, node: Code): FileChild[] {
  const style = state.styles.code_block;
  const lines = node.value.split(/\r\n|\r|\n/);
  const runs = node.value.length > 0 ? lines.map((line, i) => lineRun(line, i === 0)) : [];
  // Left-aligned whatever the style says: Word stretches a justified line that ends in a line break.
  return [state.paragraph('code', runs, { ...(style ? { style } : CODE_FALLBACK), alignment: AlignmentType.LEFT })];
}
