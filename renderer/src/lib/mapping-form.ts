// The mapping editor's model: one entry per mapping key, each a style of the template of the right type.
import type { Rules, TemplateStyle } from './api.ts';

export type StyleKind = 'paragraph' | 'character' | 'table';

export interface RuleField {
  /** Path in the rules object, e.g. `heading.1`, `paragraph`, `table.style`. */
  key: string;
  label: string;
  kind: StyleKind;
}

/** Every style a mapping can set, in the order the editor shows them. */
export const RULE_FIELDS: readonly RuleField[] = [
  ...(['1', '2', '3', '4', '5', '6'] as const).map((level) => ({
    key: `heading.${level}`,
    label: `Heading ${level}`,
    kind: 'paragraph' as const,
  })),
  { key: 'paragraph', label: 'Paragraph', kind: 'paragraph' },
  { key: 'list_bullet', label: 'Bulleted list', kind: 'paragraph' },
  { key: 'list_ordered', label: 'Numbered list', kind: 'paragraph' },
  { key: 'code_block', label: 'Code block', kind: 'paragraph' },
  { key: 'blockquote', label: 'Block quote', kind: 'paragraph' },
  { key: 'table.style', label: 'Table', kind: 'table' },
  { key: 'footnote_text', label: 'Footnote text', kind: 'paragraph' },
  // Each entry of the bibliography a document's citations make (docs/citations.md).
  { key: 'bibliography', label: 'Bibliography entry', kind: 'paragraph' },
  // An image's title printed under it (docs/images.md).
  { key: 'caption', label: 'Image caption', kind: 'paragraph' },
  // A definition list's terms and definitions (pandoc's markdown).
  { key: 'definition_term', label: 'Definition term', kind: 'paragraph' },
  { key: 'definition', label: 'Definition', kind: 'paragraph' },
  // The title block: front matter printed at the top (docs/rtl-and-title.md).
  { key: 'title', label: 'Title', kind: 'paragraph' },
  { key: 'subtitle', label: 'Subtitle', kind: 'paragraph' },
  { key: 'author', label: 'Author', kind: 'paragraph' },
  { key: 'date', label: 'Date', kind: 'paragraph' },
  // The front matter abstract and keywords, after the title block (docs/elements.md).
  { key: 'abstract', label: 'Abstract and keywords', kind: 'paragraph' },
  // Character styles: the runs of the element get them.
  { key: 'inline_code', label: 'Inline code', kind: 'character' },
  { key: 'link', label: 'Link', kind: 'character' },
  { key: 'strong', label: 'Strong (bold)', kind: 'character' },
  { key: 'emphasis', label: 'Emphasis (italic)', kind: 'character' },
];

/** An option where SPEC fixes one behaviour (server/convert/element-options.ts): SPEC's choice comes first. */
export interface OptionField {
  key: 'thematic_break' | 'task_list' | 'code_highlighting' | 'math' | 'comments';
  label: string;
  choices: readonly { value: string; label: string }[];
}

/** The mapping's options, in the order the editor shows them; the first choice of each is the default. */
export const OPTION_FIELDS: readonly OptionField[] = [
  {
    key: 'thematic_break',
    label: 'Horizontal rule (---)',
    choices: [
      { value: 'page_break', label: 'Page break' },
      { value: 'rule', label: 'Line across the page' },
      { value: 'none', label: 'Nothing' },
    ],
  },
  {
    key: 'task_list',
    label: 'Task list (- [ ] / - [x])',
    choices: [
      { value: 'plain', label: 'Ordinary list items' },
      { value: 'checkbox', label: 'Items with ☐ / ☒ boxes' },
    ],
  },
  {
    key: 'code_highlighting',
    label: 'Code in a language (```python)',
    choices: [
      { value: 'on', label: 'Highlighted (KeywordTok, … styles)' },
      { value: 'off', label: 'Plain' },
    ],
  },
  {
    key: 'math',
    label: 'TeX math ($…$, $$…$$)',
    choices: [
      { value: 'dollars', label: 'Word equations' },
      { value: 'dollars_and_fences', label: 'Word equations, ```math fences too' },
      { value: 'none', label: 'Text, as written' },
    ],
  },
  {
    key: 'comments',
    label: 'HTML comments (<!-- … -->)',
    choices: [
      { value: 'drop', label: 'Left out' },
      { value: 'word', label: 'Word comments' },
    ],
  },
];

/** The form's values: style names by field key ('' = not mapped: Word's default formatting) and the header row. */
export interface MappingForm {
  values: Record<string, string>;
  headerRow: boolean;
  /** The options by key, each one of its field's choices. */
  options: Record<OptionField['key'], string>;
}

/** A style of another type than a key needs, under the name it maps (a paragraph style named for a character key). */
export function otherKind(styles: readonly TemplateStyle[], name: string, kind: StyleKind): StyleKind | undefined {
  if (name === '' || matchStyle(styles, name, kind)) return undefined;
  return (['paragraph', 'character', 'table'] as const).find((k) => k !== kind && matchStyle(styles, name, k));
}

const fold = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/** The template's style a mapped name refers to, matched like Word does (name, ignoring case and spaces, or id). */
export function matchStyle(styles: readonly TemplateStyle[], name: string, kind: StyleKind): TemplateStyle | undefined {
  const wanted = fold(name);
  const found =
    styles.find((s) => s.name === name) ??
    styles.find((s) => fold(s.name) === wanted) ??
    styles.find((s) => s.id === name || fold(s.id) === wanted);
  return found && found.type === kind ? found : undefined;
}

/** The form for existing rules: names that match a style are shown as the style's own name. */
export function formOf(rules: Rules | undefined, styles: readonly TemplateStyle[]): MappingForm {
  const values: Record<string, string> = {};
  for (const field of RULE_FIELDS) {
    const raw = read(rules ?? {}, field.key) ?? '';
    values[field.key] = raw === '' ? '' : (matchStyle(styles, raw, field.kind)?.name ?? raw);
  }
  const options = Object.fromEntries(
    OPTION_FIELDS.map((f) => [f.key, rules?.[f.key] ?? f.choices[0]?.value ?? '']),
  ) as MappingForm['options'];
  return { values, headerRow: rules?.table?.header_row ?? true, options };
}

/** The rules to send for a form (unmapped keys are left out). */
export function rulesOf(form: MappingForm): Rules {
  const rules: Rules = {};
  const heading: NonNullable<Rules['heading']> = {};
  for (const field of RULE_FIELDS) {
    const value = form.values[field.key]?.trim() ?? '';
    if (field.key.startsWith('heading.')) {
      if (value) heading[field.key.slice('heading.'.length) as keyof typeof heading] = value;
    } else if (field.key === 'table.style') {
      rules.table = { ...(value ? { style: value } : {}), header_row: form.headerRow };
    } else if (value) {
      (rules as Record<string, string>)[field.key] = value;
    }
  }
  if (Object.keys(heading).length > 0) rules.heading = heading;
  // SPEC's behaviour is the default: only another choice is stored.
  for (const field of OPTION_FIELDS) {
    const value = form.options[field.key];
    if (value !== field.choices[0]?.value) Object.assign(rules, { [field.key]: value });
  }
  return rules;
}

function read(rules: Rules, key: string): string | undefined {
  if (key.startsWith('heading.'))
    return rules.heading?.[key.slice('heading.'.length) as keyof NonNullable<Rules['heading']>];
  if (key === 'table.style') return rules.table?.style;
  const value = (rules as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

// Word stores its built-in styles under lower-case names ("heading 1", "footnote text") and shows them capitalised.
const UPPER_WORDS = new Set(['toc', 'html']);
const WORD_LOWER_CASE =
  /^(heading [1-9]|toc [1-9]|index [1-9]|caption|header|footer|footnote (text|reference)|endnote (text|reference)|annotation (text|reference|subject)|page number|line number|table of figures|table of authorities|toa heading|index heading|envelope (address|return)|macro|html [a-z ]+)$/;

/** A style's name as Word shows it: built-in lower-case names capitalised ("heading 1" → "Heading 1", "toc 1" → "TOC 1"). */
export function displayName(name: string): string {
  // Only Word's own lower-case names; a user's style named in lower case ("red") is shown as written.
  if (!WORD_LOWER_CASE.test(name)) return name;
  return name.replace(/[^\s]+/g, (word) =>
    UPPER_WORDS.has(word) ? word.toUpperCase() : word.charAt(0).toUpperCase() + word.slice(1),
  );
}

// The styles people map most, in the order they come to mind; the rest follow A–Z.
const COMMON = [
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `heading ${n}`),
  'title',
  'subtitle',
  'normal',
  'body text',
  'first paragraph',
  'compact',
  'list paragraph',
  'list bullet',
  'list number',
  'list',
  'source code',
  'code block',
  'code',
  'html preformatted',
  'plain text',
  'quote',
  'block text',
  'intense quote',
  'docwright table',
  'table',
  'table grid',
  'normal table',
  'footnote text',
  'verbatim char',
  'html code',
  'hyperlink',
  'strong',
  'emphasis',
];

/** Whether a style is one of the common ones shown first. */
export function isCommon(style: TemplateStyle): boolean {
  return COMMON.includes(fold(style.name));
}

/** Styles of one kind for a style list: the common ones first in their usual order, then the rest A–Z by shown name. */
export function stylesOfKind(styles: readonly TemplateStyle[], kind: StyleKind): TemplateStyle[] {
  const rank = (s: TemplateStyle) => {
    const i = COMMON.indexOf(fold(s.name));
    return i < 0 ? COMMON.length : i;
  };
  return styles
    .filter((s) => s.type === kind)
    .sort((a, b) => rank(a) - rank(b) || displayName(a.name).localeCompare(displayName(b.name)));
}

/** How many of a mapping's rules name a style the template lacks (or of the wrong type). */
export function missingCount(rules: Rules, styles: readonly TemplateStyle[]): number {
  return RULE_FIELDS.filter((f) => {
    const value = read(rules, f.key);
    return value !== undefined && value !== '' && !matchStyle(styles, value, f.kind);
  }).length;
}
