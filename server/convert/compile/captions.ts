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
import type { Code, Definition, Image, ImageReference, Nodes, Paragraph as MdParagraph, Root } from 'mdast';
import type { InlineMath } from 'mdast-util-math';
import { toString } from 'mdast-util-to-string';
import { parse as parseYaml } from 'yaml';
import { stripForbiddenXmlChars } from '../xml.ts';
import { isBlank } from '../parse/captions.ts';
import { crossReferenceKey, crossReferencePrefix, type CrossReference } from '../parse/references.ts';
import { bookmarked, field, fieldChar, fieldInstruction } from './fields.ts';
import type { AnchorIndex } from './anchors.ts';
import type { State } from './state.ts';

/**
 * Numbered captions, cross-references and lists of figures and tables (issue 34, items 1–3;
 * docs/captions-references.md). Before compiling, `collect` numbers every figure, captioned table, labelled equation
 * and listing in document order and names its number's bookmark, so a reference further up is pre-filled too; the
 * handlers write each caption's `SEQ` field and each reference's `REF` field with those numbers.
 */

export type CaptionKind = 'figure' | 'table' | 'equation' | 'listing';

/** The SEQ identifier of each kind (Word's own, in every language: a list of figures names it with `\c`). */
const SEQ: Record<CaptionKind, string> = {
  figure: 'Figure',
  table: 'Table',
  equation: 'Equation',
  listing: 'Listing',
};

/** The label words of each language (pandoc-crossref's and Word's own), by the language's primary subtag. */
const WORDS: Record<string, Record<CaptionKind, string>> = {
  en: { figure: 'Figure', table: 'Table', equation: 'Equation', listing: 'Listing' },
  de: { figure: 'Abbildung', table: 'Tabelle', equation: 'Gleichung', listing: 'Listing' },
  fr: { figure: 'Figure', table: 'Tableau', equation: 'Équation', listing: 'Listing' },
  es: { figure: 'Figura', table: 'Tabla', equation: 'Ecuación', listing: 'Listado' },
  pt: { figure: 'Figura', table: 'Tabela', equation: 'Equação', listing: 'Listagem' },
  it: { figure: 'Figura', table: 'Tabella', equation: 'Equazione', listing: 'Listato' },
  nl: { figure: 'Figuur', table: 'Tabel', equation: 'Vergelijking', listing: 'Listing' },
  sv: { figure: 'Figur', table: 'Tabell', equation: 'Ekvation', listing: 'Listning' },
  da: { figure: 'Figur', table: 'Tabel', equation: 'Ligning', listing: 'Liste' },
  nb: { figure: 'Figur', table: 'Tabell', equation: 'Likning', listing: 'Liste' },
  pl: { figure: 'Rysunek', table: 'Tabela', equation: 'Równanie', listing: 'Listing' },
  cs: { figure: 'Obrázek', table: 'Tabulka', equation: 'Rovnice', listing: 'Výpis' },
  ru: { figure: 'Рисунок', table: 'Таблица', equation: 'Уравнение', listing: 'Листинг' },
  tr: { figure: 'Şekil', table: 'Tablo', equation: 'Denklem', listing: 'Liste' },
  zh: { figure: '图', table: '表', equation: '公式', listing: '代码' },
  ja: { figure: '図', table: '表', equation: '式', listing: 'リスト' },
  ko: { figure: '그림', table: '표', equation: '수식', listing: '목록' },
};

/** Front matter keys that set a label word (pandoc-crossref's names). */
const TITLE_KEYS: Record<string, CaptionKind> = {
  figureTitle: 'figure',
  tableTitle: 'table',
  eqnTitle: 'equation',
  listingTitle: 'listing',
};
/** The front matter keys this module reads. */
export const CAPTION_FRONT_MATTER_KEYS = [...Object.keys(TITLE_KEYS), 'titleDelim', 'lof', 'lot', 'chapters'];

/** What a caption's number separates from its text by, unless the front matter's `titleDelim` says otherwise. */
const DEFAULT_DELIMITER = ': ';

/** A numbered thing: its kind, number, the bookmark around its number, and its caption's text (lists of figures). */
export interface Numbered {
  kind: CaptionKind;
  number: number;
  /** The chapter (the count of level-1 headings so far) where numbers are chapter-prefixed (`2.3`). */
  chapter?: number;
  /** The number as printed: `3`, or `2.3` by chapter. */
  label: string;
  bookmark: string;
  text: string;
}

/** The words, numbers and bookmarks of one conversion's captions. */
export class CaptionIndex {
  words: Record<CaptionKind, string> = { ...(WORDS.en as Record<CaptionKind, string>) };
  delimiter = DEFAULT_DELIMITER;
  private readonly byNode = new Map<Nodes, Numbered>();
  private readonly byLabel = new Map<string, Numbered>();
  /** Every numbered thing in document order. */
  readonly entries: Numbered[] = [];
  private readonly counts: Record<CaptionKind, number> = { figure: 0, table: 0, equation: 0, listing: 0 };
  /** The lists a `[LOF]`/`[LOT]` paragraph places (front matter's `lof`/`lot` then print nothing of their own). */
  readonly markers = new Set<'figure' | 'table'>();
  /** Set once a list of figures or tables is written (the package step then asks Word to update fields on open). */
  listed = false;

  /**
   * First pass: the label words (front matter `lang` or the template's language, then the front matter's own words)
   * and every numbered thing of the tree, in document order.
   */
  collect(
    tree: Root,
    anchors: AnchorIndex,
    definitions: ReadonlyMap<string, Definition>,
    options: { language?: string | undefined; implicitFigures: boolean; numberedChapters: boolean },
  ): void {
    const front = frontMatterRecord(tree);
    const lang = typeof front.lang === 'string' ? front.lang : options.language;
    const primary = (lang ?? 'en').toLowerCase().split(/[-_]/)[0] ?? 'en';
    this.words = { ...(WORDS[primary] ?? this.words) };
    for (const [key, kind] of Object.entries(TITLE_KEYS)) {
      const value = front[key];
      if (typeof value === 'string' && value.trim()) this.words[kind] = value.trim();
    }
    if (typeof front.titleDelim === 'string') this.delimiter = front.titleDelim;
    // Chapter-prefixed numbers where the template numbers its Heading 1, or the front matter asks (`chapters`).
    const chapters = typeof front.chapters === 'boolean' ? front.chapters : options.numberedChapters;
    let chapter = 0;
    const stack: Nodes[] = [tree];
    for (let node = stack.pop(); node; node = stack.pop()) {
      if (
        chapters &&
        node.type === 'heading' &&
        node.depth === 1 &&
        !node.data?.attributes?.classes.includes('unnumbered')
      ) {
        chapter += 1;
        // SEQ's `\s 1` starts each sequence again at a Heading 1.
        for (const kind of Object.keys(this.counts) as CaptionKind[]) this.counts[kind] = 0;
      }
      const found = numberedOf(node, definitions, options.implicitFigures);
      const marker = node.type === 'paragraph' ? listMarker(node) : undefined;
      if (marker) this.markers.add(marker);
      if (found) this.add(node, found.kind, found.label, found.text, anchors, chapters ? chapter : undefined);
      if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Nodes);
    }
  }

  private add(
    node: Nodes,
    kind: CaptionKind,
    label: string | undefined,
    text: string,
    anchors: AnchorIndex,
    chapter: number | undefined,
  ): void {
    this.counts[kind] += 1;
    const number = this.counts[kind];
    const printed = chapter === undefined ? String(number) : `${String(chapter)}.${String(number)}`;
    const readable = (label ?? `${kind}_${printed}`).replace(/[^A-Za-z0-9]+/g, '_');
    const bookmark = anchors.reserve(`_Ref_${readable}`, label);
    const entry: Numbered = {
      kind,
      number,
      ...(chapter === undefined ? {} : { chapter }),
      label: printed,
      bookmark,
      text: stripForbiddenXmlChars(text).replace(/\s+/g, ' ').trim(),
    };
    this.byNode.set(node, entry);
    if (label !== undefined && !this.byLabel.has(label)) this.byLabel.set(label, entry);
    this.entries.push(entry);
  }

  /** The number of a figure paragraph, table, equation or code block, if it has one. */
  of(node: Nodes): Numbered | undefined {
    return this.byNode.get(node);
  }

  /** The numbered thing a label (`fig:cat`) names. */
  labelled(label: string): Numbered | undefined {
    return this.byLabel.get(label);
  }
}

/** The front matter as a record, for the caption words (empty when it is absent or not a mapping). */
function frontMatterRecord(tree: Root): Record<string, unknown> {
  const first = tree.children[0];
  if (first?.type !== 'yaml' || !first.value.trim()) return {};
  try {
    const data: unknown = parseYaml(first.value, { maxAliasCount: 100, logLevel: 'error' });
    return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The `#id` of attributes when it carries the kind's prefix. */
function labelOf(id: string | undefined, prefix: string): string | undefined {
  return id !== undefined && id.startsWith(`${prefix}:`) ? id : undefined;
}

/** What a node numbers, if anything: its kind, label and caption text. */
function numberedOf(
  node: Nodes,
  definitions: ReadonlyMap<string, Definition>,
  implicitFigures: boolean,
): { kind: CaptionKind; label: string | undefined; text: string } | undefined {
  if (node.type === 'paragraph') {
    const image = figureImage(node);
    if (image) {
      const title =
        image.type === 'image' ? image.title : (definitions.get(image.identifier.toLowerCase())?.title ?? null);
      const label = labelOf(image.data?.attributes?.id, 'fig');
      // The title is the caption (as before numbering: docs/images.md), else the alt text (pandoc's figure caption).
      const text = title?.trim() || image.alt?.trim() || '';
      // Without an image source every image is SPEC.md's placeholder: only a labelled one is a figure then.
      if (label || (text && implicitFigures)) return { kind: 'figure', label, text };
    }
    const formula = labelledFormula(node);
    if (formula) return { kind: 'equation', label: labelOf(formula.data?.attributes?.id, 'eq'), text: '' };
  } else if (node.type === 'table' && node.data?.caption) {
    const caption = node.data.caption;
    return { kind: 'table', label: labelOf(caption.attributes?.id, 'tbl'), text: toString(caption.children) };
  } else if (node.type === 'math') {
    const label = labelOf(node.data?.attributes?.id, 'eq');
    if (label) return { kind: 'equation', label, text: '' };
  } else if (node.type === 'code') {
    const attributes = node.data?.attributes;
    const label = labelOf(attributes?.id, 'lst');
    const caption = listingCaption(node);
    if (label || caption !== undefined) return { kind: 'listing', label, text: caption ?? '' };
  }
  return undefined;
}

/** The image a paragraph holds alone (white space aside): a figure when it has a caption or a `#fig:` label. */
export function figureImage(paragraph: MdParagraph): Image | ImageReference | undefined {
  const content = paragraph.children.filter((child) => !isBlank(child));
  const only = content[0];
  if (content.length !== 1 || (only?.type !== 'image' && only?.type !== 'imageReference')) return undefined;
  return only;
}

/** The `$$…$$ {#eq:label}` a paragraph holds alone. */
function labelledFormula(paragraph: MdParagraph): InlineMath | undefined {
  const content = paragraph.children.filter((child) => !isBlank(child));
  const only = content[0];
  if (content.length !== 1 || only?.type !== 'inlineMath') return undefined;
  return labelOf(only.data?.attributes?.id, 'eq') ? only : undefined;
}

/** A listing's `caption="…"` attribute. */
function listingCaption(code: Code): string | undefined {
  return code.data?.attributes?.pairs.find(([key]) => key === 'caption')?.[1];
}

/** The caption style: the mapping's `caption`, else the template's Caption style, else none (the body's). */
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

/** The hyperlinked REF field of one key, or undefined when the key names nothing. */
function referenceRuns(state: State, written: string): ParagraphChild[] | undefined {
  const prefix = crossReferencePrefix(written);
  const key = crossReferenceKey(written);
  if (prefix === 'sec') {
    const name = state.anchors.resolve(key) ?? state.anchors.resolve(key.slice(4));
    if (name === undefined) return undefined;
    const text = state.anchors.headingTexts.get(name) ?? key;
    const ref = field(` REF ${name} \\h `, [state.run(text)]);
    return [new InternalHyperlink({ anchor: name, children: ref })];
  }
  const entry = state.captions.labelled(key);
  if (!entry || SEQ_PREFIX[entry.kind] !== prefix) return undefined;
  const ref = field(` REF ${entry.bookmark} \\h `, [state.run(entry.label)]);
  const children = [state.run(`${state.captions.words[entry.kind]} `), ...ref];
  return [new InternalHyperlink({ anchor: entry.bookmark, children })];
}

/** The key prefix of each kind. */
const SEQ_PREFIX: Record<CaptionKind, string> = { figure: 'fig', table: 'tbl', equation: 'eq', listing: 'lst' };

/** The paragraphs that ask for a list of figures or tables (`[LOF]`, `[LOT]`), by what they list. */
const LIST_MARKERS: Record<string, 'figure' | 'table'> = { '[LOF]': 'figure', '[LOT]': 'table' };

/** The kind a `[LOF]`/`[LOT]` paragraph lists, when it is one. */
export function listMarker(node: MdParagraph): 'figure' | 'table' | undefined {
  if (!node.children.every((c) => c.type === 'text')) return undefined;
  return LIST_MARKERS[toString(node).trim()];
}

/**
 * A list of figures or tables: Word's `TOC \h \z \c "Figure"` field, pre-filled with one entry per caption linked to
 * its number's bookmark, in the template's "table of figures" style. Page numbers are Word's to fill when it updates
 * the field, as for the table of contents (package/toc.ts).
 */
export function listOf(state: State, kind: 'figure' | 'table'): FileChild[] {
  state.captions.listed = true;
  const style = state.templateStyle('table of figures', 'paragraph');
  const entries = state.captions.entries.filter((entry) => entry.kind === kind);
  const begin = [fieldChar('begin'), fieldInstruction(` TOC \\h \\z \\c "${SEQ[kind]}" `), fieldChar('separate')];
  const paragraphs = entries.map((entry, i) => {
    const label = `${state.captions.words[kind]} ${entry.label}`;
    const text = entry.text ? `${label}${state.captions.delimiter}${entry.text}` : label;
    const link = new InternalHyperlink({ anchor: entry.bookmark, children: [new TextRun(text)] });
    const children = [...(i === 0 ? begin : []), link, ...(i === entries.length - 1 ? [fieldChar('end')] : [])];
    return new Paragraph({ children, ...(style ? { style } : {}) });
  });
  if (paragraphs.length === 0)
    paragraphs.push(new Paragraph({ children: [...begin, fieldChar('end')], ...(style ? { style } : {}) }));
  return paragraphs;
}

/** Reads `lof`/`lot` (and checks the label keys) from the front matter: the lists to print where it stands. */
export function captionFrontMatter(
  state: State,
  record: Record<string, unknown>,
): { used: string[]; blocks: FileChild[] } {
  const used = CAPTION_FRONT_MATTER_KEYS.filter((key) => key in record);
  if ('chapters' in record && typeof record.chapters !== 'boolean')
    state.warn('invalid_front_matter: chapters must be true or false (numbers by chapter where Heading 1 is numbered)');
  for (const key of [...Object.keys(TITLE_KEYS), 'titleDelim'])
    if (key in record && typeof record[key] !== 'string')
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
