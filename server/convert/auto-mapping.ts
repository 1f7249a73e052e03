import { CHARACTER_KEYS, HEADING_LEVELS, type HeadingLevel, type MappingRules } from './mapping.ts';
import { findStyle, type StyleType, type TemplateStyle } from './template/styles.ts';

/** Name of the mapping created for a newly uploaded template. */
export const AUTO_MAPPING_NAME = 'Matched by style name';

// Localised names of "heading N" as some producers (LibreOffice, WPS, older converters) write them instead of Word's
// built-in English name; Word itself writes "heading N" with a localised id, which findStyle matches by name.
const HEADING_WORDS = [
  'Heading',
  'Überschrift',
  'Titre',
  'Título',
  'Titolo',
  'Kop',
  'Nagłówek',
  'Заголовок',
  '标题',
  '見出し',
  '제목',
];

/** Candidate names per element, best first: Word's built-in names, then the usual names of Pandoc, LibreOffice and Docwright. */
const CANDIDATES = {
  paragraph: ['Body Text', 'Text Body', 'Textkörper', 'Corps de texte', 'Normal'],
  list_bullet: ['List Bullet', 'Compact', 'List Paragraph', 'List'],
  list_ordered: ['List Number', 'Compact', 'List Paragraph', 'List'],
  code_block: ['Source Code', 'Code Block', 'Code', 'HTML Preformatted', 'Preformatted Text', 'Plain Text', 'Verbatim'],
  blockquote: ['Quote', 'Block Text', 'Quotations', 'Intense Quote'],
  table: ['Docwright Table', 'Table', 'Table Grid', 'Grid Table 1 Light', 'Plain Table 1', 'Light Grid'],
  footnote_text: ['footnote text'],
  // Character styles.
  inline_code: ['Verbatim Char', 'HTML Code', 'Source Code Char', 'Inline Code', 'Code Char'],
  link: ['Hyperlink', 'Internet Link'],
  strong: ['Strong', 'Strong Emphasis'],
  emphasis: ['Emphasis'],
} as const;

/** The first candidate the template has, of the given type, by the same lookup the engine uses when converting. */
function pick(styles: readonly TemplateStyle[], names: readonly string[], type: StyleType): string | undefined {
  for (const name of names) {
    const style = findStyle(styles, name);
    if (style && style.type === type) return style.name;
  }
  return undefined;
}

/**
 * Mapping rules matched to a template's styles by name. Only styles the template has are named (as the template
 * names them), so the rules resolve without a `missing_style` warning; an element with no match is left out and gets
 * built-in formatting. Used on upload and to pre-fill "New mapping".
 */
export function suggestRules(styles: readonly TemplateStyle[]): MappingRules {
  const rules: MappingRules = {};
  const heading: Partial<Record<HeadingLevel, string>> = {};
  for (const level of HEADING_LEVELS) {
    const name = pick(
      styles,
      HEADING_WORDS.flatMap((word) => [`${word} ${level}`, `${word}${level}`]),
      'paragraph',
    );
    if (name !== undefined) heading[level] = name;
  }
  if (Object.keys(heading).length > 0) rules.heading = heading;
  for (const key of ['paragraph', 'list_bullet', 'list_ordered', 'code_block', 'blockquote'] as const) {
    const name = pick(styles, CANDIDATES[key], 'paragraph');
    if (name !== undefined) rules[key] = name;
  }
  const table = pick(styles, CANDIDATES.table, 'table');
  rules.table = table === undefined ? { header_row: true } : { style: table, header_row: true };
  const footnoteText = pick(styles, CANDIDATES.footnote_text, 'paragraph');
  if (footnoteText !== undefined) rules.footnote_text = footnoteText;
  for (const key of CHARACTER_KEYS) {
    const name = pick(styles, CANDIDATES[key], 'character');
    if (name !== undefined) rules[key] = name;
  }
  return rules;
}

const NAMED_KEYS = [
  'paragraph',
  'list_bullet',
  'list_ordered',
  'code_block',
  'blockquote',
  'footnote_text',
  ...CHARACTER_KEYS,
] as const;

/** How many elements of the rules name a style (headings count one each): "matched 9 of 17". */
export function matchedCount(rules: MappingRules): { matched: number; of: number } {
  const headings = Object.keys(rules.heading ?? {}).length;
  const others = NAMED_KEYS.filter((k) => rules[k] !== undefined).length;
  return {
    matched: headings + others + (rules.table?.style === undefined ? 0 : 1),
    of: HEADING_LEVELS.length + NAMED_KEYS.length + 1,
  };
}
