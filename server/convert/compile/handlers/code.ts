import { AlignmentType, PageNumber, Tab, TextRun, type FileChild } from 'docx';
import type { Code } from 'mdast';
import { CODE_FALLBACK, CODE_SIZE, MONO_FONT, type State } from '../state.ts';
import { docxText } from '../../braces.ts';
import { listingCaptionParagraph } from '../captions.ts';

/** The texts docx writes as a field when a run's child string is one of them (PageNumber: CURRENT, SECTION, …). */
const FIELD_NAMES: ReadonlySet<string> = new Set(Object.values(PageNumber));

/**
 * A run of code: tabs as real tabs, spaces kept, a line break before it when it starts a line but the first; in code's
 * font and size, given directly unless its token style is ours, which has them (a token run's XML is half as long).
 * Text without a tab is the run's `text`, which docx writes as it is; between tabs, a piece that docx would read as a
 * page-number field's name is given as two strings (two w:t, the same text).
 */
function codeRun(text: string, lineBreak: boolean, style?: { id: string; own: boolean }): TextRun {
  const escaped = docxText(text);
  const content: { text?: string; children?: (string | Tab)[] } = {};
  if (escaped.includes('\t')) {
    const children: (string | Tab)[] = [];
    escaped.split('\t').forEach((part, i) => {
      if (i > 0) children.push(new Tab());
      if (FIELD_NAMES.has(part)) children.push(part.slice(0, -1), part.slice(-1));
      else if (part) children.push(part);
    });
    content.children = children;
  } else if (escaped !== '') content.text = escaped;
  return new TextRun({
    ...content,
    ...(style === undefined ? {} : { style: style.id }),
    ...(style === undefined || style.own ? { font: MONO_FONT, size: CODE_SIZE } : {}),
    ...(lineBreak ? { break: 1 } : {}),
  });
}

/**
 * A code block: one paragraph whose lines are separated by line breaks, so the mapped style's spacing and
 * justification apply around the block and not between its lines; monospaced at 9 pt whatever the style says. Code
 * in a language highlighted is a run per token, each in its kind's character style (`KeywordTok`, … as pandoc).
 */
export function code(state: State, node: Code): FileChild[] {
  const style = state.styles.code_block;
  const highlighted = node.value.length > 0 ? state.highlightCode(node.value, node.lang) : undefined;
  const runs = highlighted
    ? highlighted.flatMap((line, i) =>
        line.length === 0
          ? [codeRun('', i > 0)]
          : line.map((token, k) => codeRun(token.text, i > 0 && k === 0, token.style)),
      )
    : node.value.length > 0
      ? node.value.split(/\r\n|\r|\n/).map((line, i) => codeRun(line, i > 0))
      : [];
  // Left-aligned whatever the style says: Word stretches a justified line that ends in a line break.
  // A listing's numbered caption goes above its code (captions.ts).
  const caption = listingCaptionParagraph(state, node);
  return [
    ...caption,
    state.paragraph('code', runs, { ...(style ? { style } : CODE_FALLBACK), alignment: AlignmentType.LEFT }),
  ];
}
