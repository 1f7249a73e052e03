import type { FileChild } from 'docx';
import type { Code, Yaml } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { parse as parseYaml } from 'yaml';
import { languageTag, printedDate, propertyDate } from '../dates.ts';
import type { DocumentProperties, State } from '../state.ts';
import { readTitleValues, titleBlock } from '../title-block.ts';
import { abstractBlock, abstractText, keywordsText, MAX_ABSTRACT } from '../abstract.ts';
import { tocFrontMatter } from '../toc.ts';
import { numberSectionsFrontMatter } from '../heading-numbers.ts';
import { CITATION_KEYS } from '../../citations/index.ts';
import { captionFrontMatter } from '../captions.ts';

/** The code block handler (handlers/code.ts), given by compile/index.ts: front matter that cannot be read is one. */
export type CodeHandler = (state: State, node: Code) => FileChild[];

/** Front matter keys read into each property, the first one with a usable value winning. */
const KEYS: [keyof DocumentProperties, string[]][] = [
  ['title', ['title']],
  ['creator', ['author', 'authors', 'creator']],
  ['subject', ['subject', 'subtitle']],
  ['keywords', ['keywords', 'tags']],
  ['description', ['description', 'abstract', 'summary']],
];

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (Array.isArray(value)) {
    const parts = value.map(asText).filter((v): v is string => v !== undefined);
    return parts.length > 0 ? parts.join(', ') : undefined;
  }
  return undefined;
}

/** Whether two texts say the same, ignoring case, spacing and Unicode's composition. */
function sameText(a: string, b: string): boolean {
  const fold = (s: string) => s.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
  return fold(a) !== '' && fold(a) === fold(b);
}

/** Front matter that cannot be read stays in the document as a code block, with the warning saying so. */
function keptAsText(state: State, node: Yaml, reason: string, code: CodeHandler): FileChild[] {
  state.warn(`invalid_front_matter: ${reason} (kept as text)`);
  return code(state, { type: 'code', value: `---\n${node.value}\n---` });
}

/** Warns, tied to the line of the front matter where `key` is written (else the front matter's first line). */
function warnAtKey(state: State, node: Yaml, key: string, warning: string): void {
  const at = node.value.split('\n').findIndex((line) => line.startsWith(`${key}:`));
  const start = node.position?.start.line;
  const saved = state.line;
  // The front matter's text starts on the line after its opening `---`.
  if (start !== undefined && at >= 0) state.line = start + 1 + at;
  state.warn(warning);
  state.line = saved;
}

/**
 * YAML front matter: title, author, subject, keywords and description become document properties (on the state);
 * title, subtitle, author and date also make the title block, abstract and keywords follow it; other keys are named in a warning; front matter that is
 * not a YAML mapping is kept as text.
 */
export function frontMatter(state: State, node: Yaml, code: CodeHandler): FileChild[] {
  if (node.value.trim() === '') return [];
  let data: unknown;
  try {
    // YAML's own warnings (unknown tags) are not printed to the console.
    data = parseYaml(node.value, { maxAliasCount: 100, logLevel: 'error' });
  } catch (error) {
    return keptAsText(
      state,
      node,
      error instanceof Error ? (error.message.split('\n')[0] ?? 'invalid YAML').replace(/:\s*$/, '') : 'invalid YAML',
      code,
    );
  }
  if (data === null || data === undefined) return [];
  if (typeof data !== 'object' || Array.isArray(data))
    return keptAsText(state, node, 'not a mapping of keys to values', code);
  const record = data as Record<string, unknown>;
  const used = new Set<string>();
  for (const [property, keys] of KEYS) {
    for (const key of keys) {
      const value = asText(record[key]);
      if (value === undefined) continue;
      state.properties[property] = value;
      used.add(key);
      break;
    }
  }
  // `lang` names the document's language (dc:language) and the one its date is printed in; else the template's.
  const language = languageTag(record.lang);
  if (language !== undefined) {
    state.properties.language = language;
    used.add('lang');
  } else if (record.lang !== undefined && record.lang !== null) {
    warnAtKey(
      state,
      node,
      'lang',
      `invalid_language: ${asText(record.lang) ?? ''} (not a BCP 47 tag; the template language is kept)`,
    );
    used.add('lang');
  }
  // The date's value is the document's creation date (dcterms:created); its day is printed (dates.ts).
  const created = propertyDate(record.date);
  if (created !== undefined) {
    state.properties.created = created;
    used.add('date');
  }
  // The title block (title-block.ts): printed in the mapped styles, or filled into the template's fields.
  state.titleValues = readTitleValues(record, (value) => printedDate(value, language ?? state.templateLanguage));
  // A first heading that says the title again is not printed: the title line stays, with the heading's bookmark.
  const heading = state.firstHeading;
  const title = state.titleValues.title;
  const repeated =
    heading && title?.length === 1 && sameText(title[0] ?? '', toString(heading, { includeImageAlt: false }))
      ? heading
      : undefined;
  const block = titleBlock(state.titleValues, state.styles.titleBlock, state.templateFields, {
    numberingOff: (style) => state.unnumbered(style, 'title'),
    ...(repeated ? { wrapTitle: (runs) => state.anchors.bookmark(repeated, runs) } : {}),
  });
  if (repeated && block.printed.has('title')) state.titleHeading = repeated;
  for (const key of block.used) used.add(key);
  for (const warning of block.unstyled) state.warn(warning);
  // Before the abstract, which may refer to a numbered section.
  const sections = numberSectionsFrontMatter(record, (warning) => state.warn(warning));
  for (const key of sections.used) used.add(key);
  if (sections.value !== undefined) state.headingNumbers.asked = sections.value;
  // The abstract and keywords after the title block; the abstract's text (not its markdown) is the description.
  const abstract = abstractText(record.abstract);
  if (typeof record.abstract === 'string' && record.abstract.trim().length > MAX_ABSTRACT)
    state.warn(`front_matter_truncated: abstract (its first ${MAX_ABSTRACT} characters are printed)`);
  const keywords = keywordsText(record.keywords);
  const summary = abstractBlock(state, node, abstract, keywords, language);
  if (abstract !== undefined) used.add('abstract');
  if (keywords !== undefined) used.add('keywords');
  if (summary.plain !== undefined && !used.has('description')) state.properties.description = summary.plain;
  // The dialect was read before parsing (parse/dialect.ts, which warns of a value it does not know).
  if ('markdown' in record) used.add('markdown');
  const toc = tocFrontMatter(state, record);
  for (const key of toc.used) used.add(key);
  // Read before compiling (citations/index.ts), in a document that has citations.
  if (state.citations) for (const key of CITATION_KEYS) used.add(key);
  const lists = captionFrontMatter(state, record);
  for (const key of lists.used) used.add(key);
  const ignored = Object.keys(record).filter((key) => !used.has(key));
  if (ignored.length > 0) state.warn(`front_matter_ignored: ${ignored.join(', ')}`);
  return [...block.paragraphs, ...summary.blocks, ...toc.blocks, ...lists.blocks];
}
