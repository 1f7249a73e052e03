import { nameProblem } from './names.ts';
import { checkOption, isElementOption, type ElementOptions } from './element-options.ts';
import { findStyle, type StyleType, type TemplateStyle } from './template/styles.ts';

/** Heading levels a mapping may name. */
export const HEADING_LEVELS = ['1', '2', '3', '4', '5', '6'] as const;
export type HeadingLevel = (typeof HEADING_LEVELS)[number];

/** Front matter keys printed as a title block, each in the style its mapping key of the same name gives. */
export const TITLE_KEYS = ['title', 'subtitle', 'author', 'date'] as const;
export type TitleKey = (typeof TITLE_KEYS)[number];

/**
 * The `rules` of a style mapping (SPEC.md): markdown elements → style names of the template; beyond SPEC, character
 * styles for inline elements, the footnote text style, and the options of element-options.ts.
 */
export interface MappingRules extends Partial<ElementOptions> {
  heading?: Partial<Record<HeadingLevel, string>>;
  paragraph?: string;
  list_bullet?: string;
  list_ordered?: string;
  code_block?: string;
  blockquote?: string;
  table?: { style?: string; header_row?: boolean };
  /** Paragraph style of footnote bodies (Word's "footnote text" is a paragraph style). */
  footnote_text?: string;
  /** Paragraph style of an image's caption (its title); none: no caption (docs/images.md). */
  caption?: string;
  inline_code?: string;
  link?: string;
  strong?: string;
  emphasis?: string;
  title?: string;
  subtitle?: string;
  author?: string;
  date?: string;
}

/** Keys naming a paragraph style. */
const STRING_KEYS = [
  'paragraph',
  'list_bullet',
  'list_ordered',
  'code_block',
  'blockquote',
  'footnote_text',
  'caption',
  ...TITLE_KEYS,
] as const;
/** Keys naming a character style: the runs of the element get it (w:rStyle). */
export const CHARACTER_KEYS = ['inline_code', 'link', 'strong', 'emphasis'] as const;
export type CharacterKey = (typeof CHARACTER_KEYS)[number];
const MAX_STYLE_NAME = 253;

export type RulesCheck = { ok: true; rules: MappingRules } | { ok: false; errors: string[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkName(value: unknown, field: string, errors: string[], characters: boolean): string | undefined {
  if (typeof value !== 'string') {
    errors.push(`${field} must be a style name (a string)`);
    return undefined;
  }
  if (value.trim().length === 0 || value.length > MAX_STYLE_NAME) {
    errors.push(`${field} must be a style name of 1 to ${MAX_STYLE_NAME} characters`);
    return undefined;
  }
  // The one rule for names a user gives (./names.ts): no control character, no unpaired surrogate.
  const problem = characters ? nameProblem(field, value) : undefined;
  if (problem) {
    errors.push(problem);
    return undefined;
  }
  return value;
}

/**
 * Checks the shape of mapping rules and the characters of their style names; each error names the offending field
 * (`rules.heading.7`, …). `characters: false` checks the shape only (mappings stored before the name rule still load).
 */
export function checkRules(
  value: unknown,
  prefix = 'rules',
  { characters = true }: { characters?: boolean } = {},
): RulesCheck {
  const errors: string[] = [];
  if (!isRecord(value)) return { ok: false, errors: [`${prefix} must be an object`] };
  const rules: MappingRules = {};
  for (const key of Object.keys(value)) {
    const field = `${prefix}.${key}`;
    const v = value[key];
    if (key === 'heading') {
      if (!isRecord(v)) {
        errors.push(`${field} must be an object keyed by heading level ("1" to "6")`);
        continue;
      }
      const heading: Partial<Record<HeadingLevel, string>> = {};
      for (const level of Object.keys(v)) {
        if (!(HEADING_LEVELS as readonly string[]).includes(level)) {
          errors.push(`${field}.${level} is not a heading level; use "1" to "6"`);
          continue;
        }
        const name = checkName(v[level], `${field}.${level}`, errors, characters);
        if (name !== undefined) heading[level as HeadingLevel] = name;
      }
      rules.heading = heading;
    } else if ((STRING_KEYS as readonly string[]).includes(key)) {
      const name = checkName(v, field, errors, characters);
      if (name !== undefined) rules[key as (typeof STRING_KEYS)[number]] = name;
    } else if ((CHARACTER_KEYS as readonly string[]).includes(key)) {
      const name = checkName(v, field, errors, characters);
      if (name !== undefined) rules[key as CharacterKey] = name;
    } else if (isElementOption(key)) {
      const problem = checkOption(key, v, field);
      if (problem !== undefined) errors.push(problem);
      else Object.assign(rules, { [key]: v });
    } else if (key === 'table') {
      if (!isRecord(v)) {
        errors.push(`${field} must be an object with "style" and "header_row"`);
        continue;
      }
      const table: NonNullable<MappingRules['table']> = {};
      for (const k of Object.keys(v)) {
        if (k === 'style') {
          const name = checkName(v[k], `${field}.style`, errors, characters);
          if (name !== undefined) table.style = name;
        } else if (k === 'header_row') {
          if (typeof v[k] !== 'boolean') errors.push(`${field}.header_row must be true or false`);
          else table.header_row = v[k];
        } else {
          errors.push(`${field}.${k} is not a known key; use "style" and "header_row"`);
        }
      }
      rules.table = table;
    } else {
      errors.push(
        `${field} is not a known key; use heading, paragraph, list_bullet, list_ordered, code_block, blockquote, table, footnote_text, caption, title, subtitle, author, date, inline_code, link, strong, emphasis, thematic_break, task_list`,
      );
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, rules };
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
  hyperlink?: string;
  /** The mapped footnote text style, else the template's "footnote text". */
  footnoteText?: string;
  /** Supporting style used when the template has it (found by Word's name). */
  footnoteReference?: string;
  /** Title block (title-block.ts): the style of each key the mapping names, undefined when the template lacks it. */
  titleBlock: Partial<Record<TitleKey, string | undefined>>;
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
    inlineCode: lookup(rules.inline_code, 'character'),
    strong: lookup(rules.strong, 'character'),
    emphasis: lookup(rules.emphasis, 'character'),
    hyperlink: lookup(rules.link, 'character') ?? support('Hyperlink', 'character'),
    footnoteText: lookup(rules.footnote_text, 'paragraph') ?? support('footnote text', 'paragraph'),
    footnoteReference: support('footnote reference', 'character'),
    titleBlock: Object.fromEntries(
      TITLE_KEYS.filter((key) => rules[key] !== undefined).map((key) => [key, lookup(rules[key], 'paragraph')]),
    ),
  };
  return { styles: resolved, warnings };
}
