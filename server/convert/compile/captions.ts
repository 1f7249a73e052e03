import {
  InternalHyperlink,
  Paragraph,
  Tab,
  TabStopType,
  TextRun,
  type FileChild,
  type IParagraphOptions,
  type ParagraphChild,
} from 'docx';
import type { Code, Nodes } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { cslRuns } from '../citations/html.ts';
import type { Citation } from '../citations/index.ts';
import { stripForbiddenXmlChars } from '../xml.ts';
import { crossReferenceKey, crossReferencePrefix, type CrossReference } from '../parse/references.ts';
import { bookmarked, field, fieldChar, fieldInstruction, hiddenField } from './fields.ts';
import type { State } from './state.ts';
import {
  SEQ,
  TITLE_KEYS,
  LIST_TITLE_KEYS,
  CAPTION_FRONT_MATTER_KEYS,
  type Numbered,
  listingCaption,
  SEQ_PREFIX,
} from './caption-index.ts';

/**
 * Numbered captions, cross-references and lists of figures and tables (issue 34, items 1–3;
 * docs/captions-references.md). Before compiling, `collect` numbers every figure, captioned table, labelled equation
 * and listing in document order and names its number's bookmark, so a reference further up is pre-filled too; the
 * handlers write each caption's `SEQ` field and each reference's `REF` field with those numbers.
 */

function captionStyle(state: State): string | undefined {
  return state.styles.caption ?? state.templateStyle('Caption', 'paragraph');
}

/** "Figure 3" as a caption writes it: the word, then the number's SEQ field in its bookmark. */
function numberRuns(state: State, entry: Numbered): ParagraphChild[] {
  const number = [state.run(String(entry.number))];
  // By chapter: the Heading 1's number (STYLEREF), a dot, and the sequence started again at each Heading 1.
  const runs =
    entry.chapter === undefined
      ? field(` SEQ ${SEQ[entry.kind]} \\* ARABIC `, number)
      : [
          ...field(' STYLEREF 1 \\s ', [state.run(String(entry.chapter))]),
          state.run('.'),
          ...field(` SEQ ${SEQ[entry.kind]} \\* ARABIC \\s 1 `, number),
        ];
  return bookmarked(entry.bookmark, state.anchors.newId(), runs);
}

/**
 * What a chapter's heading ends with where numbers are by chapter: a hidden `SEQ … \r 0 \h` for each kind the
 * document numbers, so LibreOffice starts each sequence again there as Word does (fields.ts hiddenField).
 */
export function chapterStart(state: State, node: Nodes): ParagraphChild[] {
  if (!state.captions.chapterHeadings.has(node)) return [];
  const kinds = new Set(state.captions.entries.map((entry) => entry.kind));
  return [...kinds].flatMap((kind) => hiddenField(` SEQ ${SEQ[kind]} \\r 0 \\h `));
}

/** A caption paragraph: `Figure 3: text` in the caption style. */
export function captionParagraph(
  state: State,
  entry: Numbered,
  text: ParagraphChild[],
  extra: IParagraphOptions = {},
): Paragraph {
  const style = captionStyle(state);
  const children = [
    state.run(`${state.captions.words[entry.kind]} `),
    ...numberRuns(state, entry),
    ...(text.length > 0 ? [state.run(state.captions.delimiter), ...text] : []),
  ];
  return state.paragraph('paragraph', children, { ...(style ? { style } : {}), ...extra });
}

/** A listing's caption above its code block. */
export function listingCaptionParagraph(state: State, node: Code): FileChild[] {
  const entry = state.captions.of(node);
  if (!entry) return [];
  const text = listingCaption(node);
  return [captionParagraph(state, entry, text ? [state.run(text)] : [], { keepNext: true })];
}

/**
 * A numbered equation: the formula centred and its number at the right margin, `(1)`, by a centre and a right tab
 * stop (pandoc-crossref's look; Word and LibreOffice both print it). The formula is an inline m:oMath in display style.
 */
export function numberedEquation(state: State, entry: Numbered, formula: ParagraphChild[]): Paragraph {
  const width = Math.max(720, state.textWidthTwips - state.blockIndent('paragraph'));
  const number = numberRuns(state, entry);
  const tab = (): TextRun => new TextRun({ children: [new Tab()] });
  return state.paragraph('paragraph', [tab(), ...formula, tab(), state.run('('), ...number, state.run(')')], {
    tabStops: [
      { type: TabStopType.CENTER, position: Math.round(width / 2) },
      { type: TabStopType.RIGHT, position: width },
    ],
  });
}

/** A formula of a numbered equation: inline math in display style (an m:oMathPara cannot share its line). */
export function equationTex(tex: string): string {
  return `\\displaystyle ${tex}`;
}

/**
 * A cross-reference: each key a REF field to its bookmark, inside an internal hyperlink, pre-filled (`Figure 3`, or a
 * section's heading text). An unknown key keeps its text as written, with `broken_reference: key`.
 */
export function crossReference(state: State, node: CrossReference): ParagraphChild[] {
  const made = node.items.map((item) => referenceRuns(state, item.key));
  node.items.forEach((item, i) => {
    if (!made[i]) state.warn(`broken_reference: ${item.key}`);
  });
  if (made.every((runs) => runs === undefined)) return [state.run(node.value)];
  return node.items.flatMap((item, i) => [
    ...(i > 0 ? [state.run(', ')] : []),
    ...(item.prefix ? [state.run(item.prefix)] : []),
    ...(made[i] ?? [state.run(`@${item.key}`)]),
    ...(item.suffix ? [state.run(item.suffix)] : []),
  ]);
}

/** What one key refers to: its bookmark, the word before the number (if any), the REF switches and the result. */
function referenceTarget(
  state: State,
  written: string,
): { bookmark: string; word: string | undefined; switches: string; result: string } | undefined {
  const prefix = crossReferencePrefix(written);
  const key = crossReferenceKey(written);
  if (prefix === 'sec') {
    const name = state.anchors.resolve(key) ?? state.anchors.resolve(key.slice(4));
    if (name === undefined) return undefined;
    // Numbered headings: "Section 2.1", the heading's paragraph number (`\r`); else the heading's text.
    const number = state.headingNumbers.numberOf(
      name,
      state.titleHeading,
      new Set(state.bibliographyHeading ? [state.bibliographyHeading] : []),
    );
    if (number !== undefined)
      return { bookmark: name, word: sectionWord(state, written), switches: '\\r \\h', result: number };
    return { bookmark: name, word: undefined, switches: '\\h', result: state.anchors.headingTexts.get(name) ?? key };
  }
  const entry = state.captions.labelled(key);
  if (!entry || SEQ_PREFIX[entry.kind] !== prefix) return undefined;
  return { bookmark: entry.bookmark, word: state.captions.words[entry.kind], switches: '\\h', result: entry.label };
}

/** The word before a section's number: the front matter's `secPrefix`, else "Section" in the document's language. */
function sectionWord(state: State, written: string): string {
  const word = state.captions.sectionWord;
  // `@Sec:x` starts a sentence: its word capitalised (pandoc-crossref's rule), as a `secPrefix` of `sec.` would need.
  return written.startsWith('S') ? `${word.charAt(0).toUpperCase()}${word.slice(1)}` : word;
}

/** The hyperlinked REF field of one key, or undefined when the key names nothing. */
function referenceRuns(state: State, written: string): ParagraphChild[] | undefined {
  const target = referenceTarget(state, written);
  if (!target) return undefined;
  const ref = field(` REF ${target.bookmark} ${target.switches} `, [state.run(target.result)]);
  const children = [...(target.word === undefined ? [] : [state.run(`${target.word} `)]), ...ref];
  return [new InternalHyperlink({ anchor: target.bookmark, children })];
}

/** A reference's text as it reads (`Figure 3`, `see Figure 1, left`), for a list of figures' entry. Warns nothing. */
function referenceText(state: State, node: CrossReference): string {
  const texts = node.items.map((item) => {
    const target = referenceTarget(state, item.key);
    return target && (target.word === undefined ? target.result : `${target.word} ${target.result}`);
  });
  if (texts.every((text) => text === undefined)) return node.value;
  return node.items.map((item, i) => `${item.prefix}${texts[i] ?? `@${item.key}`}${item.suffix}`).join(', ');
}

/** A caption's text as printed (references and citations as they read), for a list of figures' entry. */
function captionText(state: State, entry: Numbered): string {
  if (!entry.nodes) return entry.text;
  const text = entry.nodes.map((node) => printedText(state, node, true)).join('');
  return stripForbiddenXmlChars(text).replace(/\s+/g, ' ').trim();
}

/** A citation's text as its style formats it, or as written where it is not formatted. */
function citationText(state: State, node: Citation): string {
  const html = state.citations?.texts.get(node);
  return html === undefined
    ? node.value
    : cslRuns(html)
        .map((run) => run.text)
        .join('');
}

/**
 * A node's text as it reads once printed: references and citations as they read, the rest as written (the abstract's
 * text for the document's description; a caption's, with its pictures' alt text, for a list of figures).
 */
export function printedText(state: State, node: Nodes, includeImageAlt = false): string {
  if (node.type === 'crossReference') return referenceText(state, node);
  if (node.type === 'citation') return citationText(state, node);
  if ('children' in node) return node.children.map((child) => printedText(state, child, includeImageAlt)).join('');
  return toString(node, { includeImageAlt });
}

/** The key prefix of each kind. */
export function listOf(state: State, kind: 'figure' | 'table'): FileChild[] {
  state.captions.listed = true;
  const style = state.templateStyle('table of figures', 'paragraph');
  const entries = state.captions.entries.filter((entry) => entry.kind === kind);
  const begin = [fieldChar('begin'), fieldInstruction(` TOC \\h \\z \\c "${SEQ[kind]}" `), fieldChar('separate')];
  const paragraphs = entries.map((entry, i) => {
    const label = `${state.captions.words[kind]} ${entry.label}`;
    const caption = captionText(state, entry);
    const text = caption ? `${label}${state.captions.delimiter}${caption}` : label;
    const link = new InternalHyperlink({ anchor: entry.bookmark, children: [new TextRun(text)] });
    const children = [...(i === 0 ? begin : []), link, ...(i === entries.length - 1 ? [fieldChar('end')] : [])];
    return new Paragraph({ children, ...(style ? { style } : {}) });
  });
  if (paragraphs.length === 0)
    paragraphs.push(new Paragraph({ children: [...begin, fieldChar('end')], ...(style ? { style } : {}) }));
  return [listTitle(state, state.captions.listTitles[kind]), ...paragraphs];
}

/**
 * A list's title (pandoc-crossref's `lofTitle`/`lotTitle`): the template's "TOC Heading" style, which Word keeps out
 * of the table of contents; without one, bold text one step up from the body's, at body text's outline level.
 */
function listTitle(state: State, title: string): Paragraph {
  const style = state.templateStyle('TOC Heading', 'paragraph');
  if (style) return new Paragraph({ style, keepNext: true, children: [state.run(title)] });
  return new Paragraph({
    keepNext: true,
    spacing: { before: 240, after: 120 },
    children: [state.withInline({ bold: true, size: 28 }, () => state.run(title))],
  });
}

/** Reads `lof`/`lot` (and checks the label keys) from the front matter: the lists to print where it stands. */
export function captionFrontMatter(
  state: State,
  record: Record<string, unknown>,
): { used: string[]; blocks: FileChild[] } {
  const used = CAPTION_FRONT_MATTER_KEYS.filter((key) => key in record);
  if ('chapters' in record && typeof record.chapters !== 'boolean')
    state.warn('invalid_front_matter: chapters must be true or false (numbers by chapter where Heading 1 is numbered)');
  for (const key of [...Object.keys(TITLE_KEYS), ...Object.keys(LIST_TITLE_KEYS), 'titleDelim', 'secPrefix'])
    if (key in record && typeof record[key] !== 'string' && !(key === 'secPrefix' && Array.isArray(record[key])))
      state.warn(`invalid_front_matter: ${key} must be text (the default kept)`);
  const blocks: FileChild[] = [];
  for (const [key, kind] of [
    ['lof', 'figure'],
    ['lot', 'table'],
  ] as const) {
    if (!(key in record)) continue;
    if (typeof record[key] !== 'boolean') state.warn(`invalid_front_matter: ${key} must be true or false (no list)`);
    else if (record[key] && !state.captions.markers.has(kind)) blocks.push(...listOf(state, kind));
  }
  return { used, blocks };
}
