import { TextRun, type FileChild } from 'docx';
import type { RootContent, Yaml } from 'mdast';
import { escapeBraces } from '../braces.ts';
export { abstractText, MAX_ABSTRACT } from '../parse/abstract.ts';
import { stripForbiddenXmlChars } from '../xml.ts';
import { printedText } from './captions.ts';
import type { State } from './state.ts';

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
    // Parsed with the document (parse/abstract.ts), its warnings given there with its lines in the front matter.
    const parsed = abstract === undefined ? undefined : node.data?.abstract;
    if (parsed) {
      // A `---` block opening the abstract reads as front matter of its own: not the document's, kept as a code block.
      const nodes = parsed.tree.children.map((child): RootContent =>
        child.type === 'yaml' ? { type: 'code', value: `---\n${child.value}\n---` } : child,
      );
      blocks.push(...state.blocks(nodes));
      // As it reads: citations and references formatted, not their markdown.
      plain = nodes.map((child) => printedText(state, child)).join('\n');
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
