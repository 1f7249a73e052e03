import { Type, type Static, type TString } from 'typebox';
import { Check } from 'typebox/schema';
import { ELEMENT_OPTIONS, isElementOption } from './element-options.ts';
import { NAME_PATTERN, nameRule } from './names.ts';
import { findStyle, type StyleType, type TemplateStyle } from './template/styles.ts';

/** Heading levels a mapping may name. */
export const HEADING_LEVELS = ['1', '2', '3', '4', '5', '6'] as const;
export type HeadingLevel = (typeof HEADING_LEVELS)[number];

/** Front matter keys printed as a title block, each in the style its mapping key of the same name gives. */
export const TITLE_KEYS = ['title', 'subtitle', 'author', 'date'] as const;
export type TitleKey = (typeof TITLE_KEYS)[number];

/** Keys naming a character style: the runs of the element get it (w:rStyle). */
export const CHARACTER_KEYS = ['inline_code', 'link', 'strong', 'emphasis'] as const;
export type CharacterKey = (typeof CHARACTER_KEYS)[number];
const MAX_STYLE_NAME = 253;

/** A style name as Word shows it; `strict` adds what only the check asks: not blank, and (`characters`) the name rule. */
function styleName(description: string | undefined, strict?: { characters: boolean }): TString {
  return Type.String({
    minLength: 1,
    maxLength: MAX_STYLE_NAME,
    // Blank (String.prototype.trim's white space) is no name; the name rule (./names.ts) bars control characters.
    ...(strict ? { pattern: strict.characters ? `^(?=.*\\S)${NAME_PATTERN.slice(1)}` : '\\S' } : {}),
    description: description ?? 'A style name as Word shows it',
  });
}

/**
 * The `rules` of a style mapping (SPEC.md): markdown elements → style names of the template; beyond SPEC, character
 * styles for inline elements, the footnote text style, and the options of element-options.ts. One schema for every
 * surface: the REST API validates and documents rules with it, MCP's tools take it, the app's types come from it, and
 * checkRules checks with it (`strict`: the same schema, its style names also not blank and under the name rule).
 */
function rulesSchema(strict?: { characters: boolean }) {
  const name = (description?: string) => Type.Optional(styleName(description, strict));
  return Type.Object(
    {
      heading: Type.Optional(
        Type.Object(
          { '1': name(), '2': name(), '3': name(), '4': name(), '5': name(), '6': name() },
          { additionalProperties: false },
        ),
      ),
      paragraph: name(),
      list_bullet: name(),
      list_ordered: name(),
      code_block: name(),
      blockquote: name(),
      caption: name("Paragraph style of an image's title shown as a caption (docs/images.md)"),
      // pandoc's dialect: a definition list's terms and definitions (pandoc's reference.docx names them so).
      definition_term: name('Paragraph style of a definition list’s terms, e.g. "Definition Term"'),
      definition: name('Paragraph style of a definition list’s definitions, e.g. "Definition"'),
      table: Type.Optional(
        Type.Object({ style: name(), header_row: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      ),
      // The title block: front matter title, subtitle, author(s) and date, printed at the top in these styles.
      title: name('Style of the front matter title, printed at the top'),
      subtitle: name('Style of the front matter subtitle'),
      author: name('Style of each front matter author (one paragraph each)'),
      date: name('Style of the front matter date'),
      abstract: name('Style of the front matter abstract and keywords, printed after the title block'),
      // Beyond SPEC: the footnote text paragraph style and character styles for inline elements (w:rStyle on their runs).
      footnote_text: name('Paragraph style of footnote bodies'),
      bibliography: name(
        'Paragraph style of each bibliography entry (default: the template’s "Bibliography", added with a hanging indent where it has none)',
      ),
      inline_code: name('Character style of inline code, e.g. "Verbatim Char"'),
      link: name('Character style of links (default: the template’s "Hyperlink")'),
      strong: name('Character style of **strong** text, e.g. "Strong"'),
      emphasis: name('Character style of *emphasised* text, e.g. "Emphasis"'),
      // Beyond SPEC: options where SPEC fixes one behaviour (SPEC's is the default); the values of ELEMENT_OPTIONS.
      thematic_break: Type.Optional(
        Type.Union([Type.Literal('page_break'), Type.Literal('rule'), Type.Literal('none')], {
          description:
            'A horizontal rule: `page_break` (default, SPEC), `rule` (an empty paragraph with a bottom border) or `none`',
        }),
      ),
      task_list: Type.Optional(
        Type.Union([Type.Literal('plain'), Type.Literal('checkbox')], {
          description: 'A task list item: `plain` (default, SPEC: an ordinary item) or `checkbox` (led by ☐ or ☒)',
        }),
      ),
      math: Type.Optional(
        Type.Union([Type.Literal('dollars'), Type.Literal('dollars_and_fences'), Type.Literal('none')], {
          description:
            'TeX math: `dollars` (default: `$…$`, `$$…$$` and `$$` fences become Word equations), `dollars_and_fences` (```math fences too) or `none` (dollars stay text)',
        }),
      ),
      code_highlighting: Type.Optional(
        Type.Union([Type.Literal('on'), Type.Literal('off')], {
          description:
            'Fenced code in a known language: `on` (default: a character style per token kind, `KeywordTok`, … as pandoc names them) or `off` (plain)',
        }),
      ),
      comments: Type.Optional(
        Type.Union([Type.Literal('drop'), Type.Literal('word')], {
          description:
            'An HTML comment `<!-- … -->`: `drop` (default: not printed, as a rendered markdown shows it) or `word` (a Word comment where it stood)',
        }),
      ),
    },
    { $id: 'Rules', additionalProperties: false },
  );
}

/** Mapping rules, as the REST API takes and shows them (server/schemas/ registers it as `Rules`). */
export const RulesSchema = rulesSchema();
export type MappingRules = Static<typeof RulesSchema>;

const CHECKED = rulesSchema({ characters: true });
const SHAPE_CHECKED = rulesSchema({ characters: false });

export type RulesCheck = { ok: true; rules: MappingRules } | { ok: false; errors: string[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The sentence for a style name its schema refused. */
function nameError(value: unknown, field: string): string {
  if (typeof value !== 'string') return `${field} must be a style name (a string)`;
  if (value.trim().length === 0 || value.length > MAX_STYLE_NAME)
    return `${field} must be a style name of 1 to ${MAX_STYLE_NAME} characters`;
  return nameRule(field);
}

/** The sentences for one key of an object its schema refused, in the order of its keys (heading, table). */
function keyErrors(
  schema: { properties: Record<string, unknown> },
  value: Record<string, unknown>,
  field: string,
  unknown: (key: string) => string,
): string[] {
  return Object.keys(value).flatMap((key) => {
    const property = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (property === undefined) return [unknown(key)];
    return Check(property as Parameters<typeof Check>[0], value[key])
      ? []
      : [key === 'header_row' ? `${field}.${key} must be true or false` : nameError(value[key], `${field}.${key}`)];
  });
}

/**
 * Checks mapping rules against their schema; each error names the offending field (`rules.heading.7`, …), in the
 * order of the keys. `characters: false` checks the shape only (mappings stored before the name rule still load).
 */
export function checkRules(
  value: unknown,
  prefix = 'rules',
  { characters = true }: { characters?: boolean } = {},
): RulesCheck {
  const schema = characters ? CHECKED : SHAPE_CHECKED;
  if (Check(schema, value)) return { ok: true, rules: structuredClone(value) };
  if (!isRecord(value)) return { ok: false, errors: [`${prefix} must be an object`] };
  const { heading, table } = schema.properties;
  const errors = Object.keys(value).flatMap((key): string[] => {
    const field = `${prefix}.${key}`;
    const v = value[key];
    const property = Object.hasOwn(schema.properties, key)
      ? schema.properties[key as keyof typeof schema.properties]
      : undefined;
    if (property === undefined)
      return [
        `${field} is not a known key; use heading, paragraph, list_bullet, list_ordered, code_block, blockquote, table, footnote_text, bibliography, caption, definition_term, definition, title, subtitle, author, date, abstract, inline_code, link, strong, emphasis, thematic_break, task_list, math, code_highlighting`,
      ];
    if (Check(property, v)) return [];
    if (key === 'heading')
      return isRecord(v)
        ? keyErrors(heading, v, field, (level) => `${field}.${level} is not a heading level; use "1" to "6"`)
        : [`${field} must be an object keyed by heading level ("1" to "6")`];
    if (key === 'table')
      return isRecord(v)
        ? keyErrors(table, v, field, (k) => `${field}.${k} is not a known key; use "style" and "header_row"`)
        : [`${field} must be an object with "style" and "header_row"`];
    if (isElementOption(key))
      return [`${field} must be one of ${ELEMENT_OPTIONS[key].map((option) => `"${option}"`).join(', ')}`];
    return [nameError(v, field)];
  });
  return { ok: false, errors };
}

/** Style ids to use for each element (undefined: none mapped or missing, so built-in formatting applies). */
export interface ResolvedStyles {
  heading: Partial<Record<HeadingLevel, string>>;
  paragraph?: string;
  list_bullet?: string;
  list_ordered?: string;
  code_block?: string;
  blockquote?: string;
  table?: string;
  tableHeaderRow: boolean;
  /** Character styles of inline elements (`link` falls back to the template's "Hyperlink"). */
  inlineCode?: string;
  strong?: string;
  emphasis?: string;
  caption?: string;
  /** A definition list's terms and definitions (pandoc's dialect). */
  definitionTerm?: string;
  definition?: string;
  hyperlink?: string;
  /** The mapped footnote text style, else the template's "footnote text". */
  footnoteText?: string;
  /** Each bibliography entry's style: the mapped one, else the support style "Bibliography" (package/styles.ts). */
  bibliography: string;
  /** Supporting style used when the template has it (found by Word's name). */
  footnoteReference?: string;
  /** Title block (title-block.ts): the style of each key the mapping names, undefined when the template lacks it. */
  titleBlock: Partial<Record<TitleKey, string | undefined>>;
  /** The abstract and keywords (abstract.ts): absent when the mapping names no style, undefined when the template lacks it. */
  abstract?: { style: string | undefined };
}

/**
 * Resolves style names to the template's style ids. A name the template lacks, or a style of the wrong type, gives
 * one warning `missing_style: <name>` and leaves the element to built-in formatting.
 */
export function resolveStyles(
  rules: MappingRules,
  styles: readonly TemplateStyle[],
): { styles: ResolvedStyles; warnings: string[] } {
  const warnings: string[] = [];
  const lookup = (name: string | undefined, type: StyleType): string | undefined => {
    if (name === undefined) return undefined;
    const style = findStyle(styles, name);
    if (!style || style.type !== type) {
      const warning = `missing_style: ${name}`;
      if (!warnings.includes(warning)) warnings.push(warning);
      return undefined;
    }
    return style.id;
  };
  const heading: Partial<Record<HeadingLevel, string>> = {};
  for (const level of HEADING_LEVELS) {
    const id = lookup(rules.heading?.[level], 'paragraph');
    if (id !== undefined) heading[level] = id;
  }
  const support = (name: string, type: StyleType) => {
    const style = findStyle(styles, name);
    return style && style.type === type ? style.id : undefined;
  };
  const resolved: ResolvedStyles = {
    heading,
    paragraph: lookup(rules.paragraph, 'paragraph'),
    list_bullet: lookup(rules.list_bullet, 'paragraph'),
    list_ordered: lookup(rules.list_ordered, 'paragraph'),
    code_block: lookup(rules.code_block, 'paragraph'),
    blockquote: lookup(rules.blockquote, 'paragraph'),
    table: lookup(rules.table?.style, 'table'),
    tableHeaderRow: rules.table?.header_row ?? true,
    caption: lookup(rules.caption, 'paragraph'),
    definitionTerm: lookup(rules.definition_term, 'paragraph'),
    definition: lookup(rules.definition, 'paragraph'),
    inlineCode: lookup(rules.inline_code, 'character'),
    strong: lookup(rules.strong, 'character'),
    emphasis: lookup(rules.emphasis, 'character'),
    hyperlink: lookup(rules.link, 'character') ?? support('Hyperlink', 'character'),
    footnoteText: lookup(rules.footnote_text, 'paragraph') ?? support('footnote text', 'paragraph'),
    footnoteReference: support('footnote reference', 'character'),
    bibliography: lookup(rules.bibliography, 'paragraph') ?? 'Bibliography',
    titleBlock: Object.fromEntries(
      TITLE_KEYS.filter((key) => rules[key] !== undefined).map((key) => [key, lookup(rules[key], 'paragraph')]),
    ),
    ...(rules.abstract !== undefined ? { abstract: { style: lookup(rules.abstract, 'paragraph') } } : {}),
  };
  return { styles: resolved, warnings };
}
