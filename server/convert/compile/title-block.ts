import { Paragraph, TextRun, type FileChild, type IIndentAttributesProperties, type ParagraphChild } from 'docx';
import { TITLE_KEYS, type TitleKey } from '../mapping.ts';
import { escapeBraces } from '../braces.ts';
import { stripForbiddenXmlChars } from '../xml.ts';
import { bidiSegments, firstStrong } from '../bidi.ts';

/** The front matter's title block: each value as printed, authors one per entry. */
export type TitleValues = Partial<Record<TitleKey, string[]>>;

/** Longest value printed (and filled into a template) per key; front matter is the user's, not a place for a book. */
const MAX_VALUE = 2000;
/** Most authors printed. */
const MAX_AUTHORS = 100;

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim().slice(0, MAX_VALUE) || undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // YAML 1.1 timestamps (`date: 2024-05-01` in some producers) arrive as dates: printed as the day.
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString().slice(0, 10);
  return undefined;
}

/**
 * Reads the title block from front matter: `title`, `subtitle`, `date` as text, `author` as one text or a list (of
 * texts, or of `{ name }` entries as pandoc and Quarto write them). `printDate` gives a date as printed (dates.ts);
 * undefined: as written.
 */
export function readTitleValues(
  record: Record<string, unknown>,
  printDate: (value: unknown) => string | undefined = () => undefined,
): TitleValues {
  const values: TitleValues = {};
  for (const key of TITLE_KEYS) {
    const raw = record[key];
    const list: unknown[] = key === 'author' && Array.isArray(raw) ? (raw as unknown[]).slice(0, MAX_AUTHORS) : [raw];
    const texts = list
      .map((entry) =>
        typeof entry === 'object' && entry !== null && !(entry instanceof Date) && 'name' in entry
          ? scalar(entry.name)
          : ((key === 'date' ? printDate(entry) : undefined) ?? scalar(entry)),
      )
      .filter((text): text is string => text !== undefined);
    if (texts.length > 0) values[key] = texts;
  }
  return values;
}

/** Built-in look of a title block line whose mapped style the template lacks (a `missing_style` warning says so). */
const FALLBACK: Record<TitleKey, { size?: number; bold?: boolean; italics?: boolean }> = {
  title: { size: 40, bold: true },
  subtitle: { size: 28 },
  author: {},
  date: { italics: true },
};

/** What a paragraph whose style carries numbering says instead (State.unnumbered). */
export type Unnumbered = { numbering: false; indent?: IIndentAttributesProperties } | undefined;

/**
 * One line of the title block, right to left when its text is (as any paragraph); `unnumbered`: its style's numbering
 * off; `wrap` puts something around its runs (a bookmark).
 */
function line(
  key: TitleKey,
  text: string,
  style: string | undefined,
  unnumbered: Unnumbered,
  wrap: (runs: ParagraphChild[]) => ParagraphChild[],
): Paragraph {
  const clean = stripForbiddenXmlChars(text);
  const rtl = firstStrong(clean) === 'rtl';
  const look = style ? {} : FALLBACK[key];
  const segments = rtl ? bidiSegments(clean) : [{ text: clean, rtl: false }];
  return new Paragraph({
    ...(style ? { style } : {}),
    ...(rtl ? { bidirectional: true } : {}),
    ...unnumbered,
    children: wrap(
      segments.map(
        (segment) =>
          new TextRun({ text: escapeBraces(segment.text), ...look, ...(segment.rtl ? { rightToLeft: true } : {}) }),
      ),
    ),
  });
}

/** Word's name of the style each key would have, said in the warning when the mapping names none. */
const WORD_NAME: Record<TitleKey, string> = { title: 'Title', subtitle: 'Subtitle', author: 'Author', date: 'Date' };

/**
 * The title block printed at the top: one paragraph per value (per author) of each key, in the style the mapping
 * names, unless the template has a field for the key (a `{{title}}` placeholder or a content control), which is filled
 * instead. A key the mapping names no style for is printed in built-in formatting, never dropped, and is in
 * `unstyled` for its warning. Returns the paragraphs, the keys used (printed or filled) and those printed.
 * `numberingOff` says whether a style's own numbering is to be turned off, and what the line says instead
 * (State.unnumbered); `wrapTitle` puts something around the title's runs.
 */
export function titleBlock(
  values: TitleValues,
  styles: Partial<Record<TitleKey, string | undefined>>,
  templateFields: ReadonlySet<TitleKey>,
  {
    numberingOff = () => undefined,
    wrapTitle = (runs) => runs,
  }: {
    numberingOff?: (style: string) => Unnumbered;
    wrapTitle?: (runs: ParagraphChild[]) => ParagraphChild[];
  } = {},
): { paragraphs: FileChild[]; used: Set<TitleKey>; printed: Set<TitleKey>; unstyled: string[] } {
  const paragraphs: FileChild[] = [];
  const used = new Set<TitleKey>();
  const printed = new Set<TitleKey>();
  const unstyled: string[] = [];
  for (const key of TITLE_KEYS) {
    const texts = values[key];
    if (!texts) continue;
    used.add(key);
    if (templateFields.has(key)) continue;
    printed.add(key);
    if (!(key in styles))
      unstyled.push(
        `missing_style: ${WORD_NAME[key]} (the mapping names no style for the front matter ${key}: printed in built-in formatting)`,
      );
    const style = styles[key];
    const unnumbered = style === undefined ? undefined : numberingOff(style);
    const wrap = key === 'title' ? wrapTitle : (runs: ParagraphChild[]) => runs;
    for (const text of texts) paragraphs.push(line(key, text, style, unnumbered, wrap));
  }
  return { paragraphs, used, printed, unstyled };
}
