import type { FileChild, ParagraphChild } from 'docx';
import { TextRun } from 'docx';
import type { Html } from 'mdast';
import type { State } from '../state.ts';

const TAG = /<\/?([A-Za-z][A-Za-z0-9-]*)[^>]*>/g;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Warns once per tag name and returns the text of the HTML without its tags and comments. */
function textOf(state: State, value: string): string {
  const withoutComments = value.replace(/<!--[\s\S]*?(-->|$)/g, '');
  for (const match of withoutComments.matchAll(TAG)) {
    const tag = (match[1] ?? '').toLowerCase();
    if (tag !== 'br') state.warn(`unsupported_html: ${tag}`);
  }
  return decodeEntities(
    withoutComments
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(TAG, '')
      .replace(/<[!?][^>]*>/g, ''),
  );
}

/** Block HTML: its text is kept as paragraphs, its tags are dropped with a warning. */
export function htmlBlock(state: State, node: Html): FileChild[] {
  const text = textOf(state, node.value).trim();
  if (!text) return [];
  return text.split(/\n\s*\n/).map((para) => state.paragraph('paragraph', htmlLines(state, para.trim())));
}

/** Inline HTML: `<br>` is a line break; other tags are dropped with a warning, text between them stays. */
export function htmlInline(state: State, node: Html): ParagraphChild[] {
  return htmlLines(state, textOf(state, node.value));
}

function htmlLines(state: State, text: string): ParagraphChild[] {
  const out: ParagraphChild[] = [];
  text.split('\n').forEach((line, i) => {
    if (i > 0) out.push(new TextRun({ break: 1 }));
    if (line) out.push(state.run(line));
  });
  return out;
}
