import { TextRun, type FileChild } from 'docx';
import type { Nodes, RootContent, Yaml } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { escapeBraces } from '../braces.ts';
import { parseMarkdown } from '../parse/index.ts';
import { stripForbiddenXmlChars } from '../xml.ts';
import type { State } from './state.ts';

/** Longest abstract read (characters of its markdown): an abstract is a page at most, not a second document. */
export const MAX_ABSTRACT = 20_000;
/** Longest keywords line. */
const MAX_KEYWORDS = 2000;

/**
 * "Keywords:" in the document's language (front matter `lang`, its primary subtag), as journals in it print it;
 * English for any other.
 */
const KEYWORDS_LABEL: Record<string, string> = {
  en: 'Keywords: ',
  de: 'Schlüsselwörter: ',
  fr: 'Mots-clés : ',
  es: 'Palabras clave: ',
  it: 'Parole chiave: ',
  pt: 'Palavras-chave: ',
  nl: 'Trefwoorden: ',
  sv: 'Nyckelord: ',
  da: 'Nøgleord: ',
  nb: 'Nøkkelord: ',
  no: 'Nøkkelord: ',
  pl: 'Słowa kluczowe: ',
  cs: 'Klíčová slova: ',
  ru: 'Ключевые слова: ',
  zh: '关键词：',
  ja: 'キーワード：',
  ko: '주제어: ',
};

/** The label of the keywords line for a language tag (undefined: English). */
export function keywordsLabel(lang: string | undefined): string {
  const primary = lang?.split('-')[0]?.toLowerCase() ?? 'en';
  return KEYWORDS_LABEL[primary] ?? 'Keywords: ';
}

/** The front matter `abstract` as markdown text, if it is one. */
export function abstractText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim().slice(0, MAX_ABSTRACT);
  return text === '' ? undefined : text;
}

/** The front matter `keywords` as one line: a list joined with commas, a text as written. */
export function keywordsText(value: unknown): string | undefined {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  const words = list
    .map((entry) => (typeof entry === 'string' ? entry.trim() : typeof entry === 'number' ? String(entry) : ''))
    .filter((word) => word !== '');
  const text = words.join(', ').slice(0, MAX_KEYWORDS);
  return text === '' ? undefined : text;
}

/**
 * The abstract (its markdown compiled as the document's, its paragraphs in the mapping's `abstract` style) and the
 * keywords line after it, printed after the title block. `plain` is the abstract's text for dc:description. A mapping
 * naming no `abstract` style prints them in the paragraph style, with a `missing_style` warning.
 */
export function abstractBlock(
  state: State,
  node: Yaml,
  abstract: string | undefined,
  keywords: string | undefined,
  lang: string | undefined,
): { blocks: FileChild[]; plain: string | undefined } {
  if (abstract === undefined && keywords === undefined) return { blocks: [], plain: undefined };
  const mapped = state.styles.abstract;
  if (!mapped)
    state.warn(
      'missing_style: Abstract (the mapping names no style for the front matter abstract and keywords: printed in the paragraph style)',
    );
  const style = mapped?.style;
  const blocks: FileChild[] = [];
  let plain: string | undefined;
  const saved = state.divStyle;
  if (style !== undefined) state.divStyle = style;
  try {
    if (abstract !== undefined) {
      const parsed = parseMarkdown(abstract, { math: state.options.math !== 'none' });
      // The abstract's lines are the front matter's: warnings point there.
      const line = node.position?.start.line ?? 1;
      shiftLines(parsed.tree, line);
      for (const detail of parsed.warningDetails)
        state.warningList.add(detail.warning, detail.line === null ? line : detail.line + line);
      // A `---` block opening the abstract reads as front matter of its own: not the document's, kept as a code block.
      const nodes = parsed.tree.children.map((child): RootContent =>
        child.type === 'yaml' ? { type: 'code', value: `---\n${child.value}\n---` } : child,
      );
      blocks.push(...state.blocks(nodes));
      plain = nodes.map((child) => toString(child, { includeImageAlt: false })).join('\n');
    }
    if (keywords !== undefined) {
      // The label as `**Keywords:**` would be (the mapping's strong style, else bold), the words as written.
      const label = state.withInline({ strong: true }, () =>
        state.inlines([{ type: 'text', value: keywordsLabel(lang) }]),
      );
      const words = new TextRun({ text: escapeBraces(stripForbiddenXmlChars(keywords)) });
      blocks.push(state.paragraph('paragraph', [...label, words]));
    }
  } finally {
    state.divStyle = saved;
  }
  return { blocks, plain };
}

/** Moves every position of a tree `by` lines down. */
function shiftLines(tree: Nodes, by: number): void {
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.position) {
      node.position.start.line += by;
      node.position.end.line += by;
    }
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
}
