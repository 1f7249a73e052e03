import type {
  Code,
  Definition,
  Image,
  ImageReference,
  Nodes,
  Paragraph as MdParagraph,
  PhrasingContent,
  Root,
} from 'mdast';
import type { InlineMath } from 'mdast-util-math';
import { toString } from 'mdast-util-to-string';
import { parse as parseYaml } from 'yaml';
import { stripForbiddenXmlChars } from '../xml.ts';
import { isBlank } from '../parse/captions.ts';
import type { AnchorIndex } from './anchors.ts';

// The captions of a document, numbered before compiling, and the words and field names they are written with
// (captions.ts writes them; docs/captions-references.md). Nothing here knows the compile state, which holds the index:
// no import circle.

export type CaptionKind = 'figure' | 'table' | 'equation' | 'listing';

/** The SEQ identifier of each kind (Word's own, in every language: a list of figures names it with `\c`). */
export const SEQ: Record<CaptionKind, string> = {
  figure: 'Figure',
  table: 'Table',
  equation: 'Equation',
  listing: 'Listing',
};

/** The label words of each language (pandoc-crossref's and Word's own), by the language's primary subtag. */
export const WORDS: Record<string, Record<CaptionKind, string>> = {
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

/** The word before a numbered section's number (`@sec:x` → "Section 2.1"), by the language's primary subtag. */
export const SECTION_WORDS: Record<string, string> = {
  en: 'Section',
  de: 'Abschnitt',
  fr: 'Section',
  es: 'Sección',
  pt: 'Seção',
  it: 'Sezione',
  nl: 'Sectie',
  sv: 'Avsnitt',
  da: 'Afsnit',
  nb: 'Avsnitt',
  pl: 'Sekcja',
  cs: 'Oddíl',
  ru: 'Раздел',
  tr: 'Bölüm',
  zh: '节',
  ja: '節',
  ko: '절',
};

/** The titles of the lists of figures and tables (pandoc-crossref's `lofTitle`/`lotTitle`), by the primary subtag. */
export const LIST_TITLES: Record<string, Record<'figure' | 'table', string>> = {
  en: { figure: 'List of Figures', table: 'List of Tables' },
  de: { figure: 'Abbildungsverzeichnis', table: 'Tabellenverzeichnis' },
  fr: { figure: 'Liste des figures', table: 'Liste des tableaux' },
  es: { figure: 'Índice de figuras', table: 'Índice de tablas' },
  pt: { figure: 'Lista de figuras', table: 'Lista de tabelas' },
  it: { figure: 'Elenco delle figure', table: 'Elenco delle tabelle' },
  nl: { figure: 'Lijst van figuren', table: 'Lijst van tabellen' },
  sv: { figure: 'Figurer', table: 'Tabeller' },
  da: { figure: 'Figurer', table: 'Tabeller' },
  nb: { figure: 'Figurer', table: 'Tabeller' },
  pl: { figure: 'Spis rysunków', table: 'Spis tabel' },
  cs: { figure: 'Seznam obrázků', table: 'Seznam tabulek' },
  ru: { figure: 'Список иллюстраций', table: 'Список таблиц' },
  tr: { figure: 'Şekil Listesi', table: 'Tablo Listesi' },
  zh: { figure: '图目录', table: '表目录' },
  ja: { figure: '図目次', table: '表目次' },
  ko: { figure: '그림 목차', table: '표 목차' },
};

/** Front matter keys that set a list's title (pandoc-crossref's names). */
export const LIST_TITLE_KEYS: Record<string, 'figure' | 'table'> = { lofTitle: 'figure', lotTitle: 'table' };

/** Front matter keys that set a label word (pandoc-crossref's names). */
export const TITLE_KEYS: Record<string, CaptionKind> = {
  figureTitle: 'figure',
  tableTitle: 'table',
  eqnTitle: 'equation',
  listingTitle: 'listing',
};
/** The front matter keys this module reads. */
export const CAPTION_FRONT_MATTER_KEYS = [
  ...Object.keys(TITLE_KEYS),
  ...Object.keys(LIST_TITLE_KEYS),
  'titleDelim',
  'secPrefix',
  'lof',
  'lot',
  'chapters',
];

/** What a caption's number separates from its text by, unless the front matter's `titleDelim` says otherwise. */
export const DEFAULT_DELIMITER = ': ';

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
  /** The caption's text as the parser left it (references and citations in it), where it has one. */
  nodes?: PhrasingContent[];
}

/** The words, numbers and bookmarks of one conversion's captions. */
export class CaptionIndex {
  words: Record<CaptionKind, string> = { ...(WORDS.en as Record<CaptionKind, string>) };
  delimiter = DEFAULT_DELIMITER;
  /** The titles printed above a list of figures and a list of tables. */
  listTitles: Record<'figure' | 'table', string> = { ...(LIST_TITLES.en as Record<'figure' | 'table', string>) };
  /** The word before a numbered section's number in a reference (front matter `secPrefix`). */
  sectionWord = 'Section';
  private readonly byNode = new Map<Nodes, Numbered>();
  private readonly byLabel = new Map<string, Numbered>();
  /** Every numbered thing in document order. */
  readonly entries: Numbered[] = [];
  private readonly counts: Record<CaptionKind, number> = { figure: 0, table: 0, equation: 0, listing: 0 };
  /** The headings that start a chapter, where numbers are chapter-prefixed (their sequences start again there). */
  readonly chapterHeadings = new Set<Nodes>();
  /** The lists a `[LOF]`/`[LOT]` paragraph places (front matter's `lof`/`lot` then print nothing of their own). */
  readonly markers = new Set<'figure' | 'table'>();
  /** Set once a list of figures or tables is written (the package step then asks Word to update fields on open). */
  listed = false;
  /** Warnings of the first pass (a label used twice, a label of another kind), with their lines. */
  readonly warnings: { warning: string; line: number | undefined }[] = [];

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
    this.listTitles = { ...(LIST_TITLES[primary] ?? this.listTitles) };
    for (const [key, kind] of Object.entries(LIST_TITLE_KEYS)) {
      const value = front[key];
      if (typeof value === 'string' && value.trim()) this.listTitles[kind] = value.trim();
    }
    if (typeof front.titleDelim === 'string') this.delimiter = front.titleDelim;
    this.sectionWord = SECTION_WORDS[primary] ?? this.sectionWord;
    // pandoc-crossref's `secPrefix` may be a list (singular, plural): its first word.
    const prefix: unknown = Array.isArray(front.secPrefix) ? front.secPrefix[0] : front.secPrefix;
    if (typeof prefix === 'string' && prefix.trim()) this.sectionWord = prefix.trim();
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
        this.chapterHeadings.add(node);
        // SEQ's `\s 1` starts each sequence again at a Heading 1.
        for (const kind of Object.keys(this.counts) as CaptionKind[]) this.counts[kind] = 0;
      }
      const found = numberedOf(node, definitions, options.implicitFigures);
      const marker = node.type === 'paragraph' ? listMarker(node) : undefined;
      if (marker) this.markers.add(marker);
      if (found) this.add(node, found, anchors, chapters ? chapter : undefined);
      const misplaced = misplacedLabel(node);
      if (misplaced) this.warnings.push({ warning: misplaced, line: lineOf(node) });
      if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Nodes);
    }
  }

  private add(
    node: Nodes,
    { kind, label, text, nodes }: NonNullable<ReturnType<typeof numberedOf>>,
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
      ...(nodes ? { nodes } : {}),
    };
    this.byNode.set(node, entry);
    // A label used twice names its first: the second is numbered too, and warned.
    if (label !== undefined && this.byLabel.has(label))
      this.warnings.push({ warning: `duplicate_label: ${label}`, line: lineOf(node) });
    else if (label !== undefined) this.byLabel.set(label, entry);
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

/** The line a numbered thing's label stands on: a table's caption line, else the node's own. */
function lineOf(node: Nodes): number | undefined {
  const caption = node.type === 'table' ? node.data?.caption?.children[0] : undefined;
  return caption?.position?.start.line ?? node.position?.start.line;
}

/** The prefixes of pandoc-crossref's labels. */
const LABEL_PREFIXES = ['fig', 'tbl', 'eq', 'lst', 'sec'];

/**
 * A label of another kind's prefix on a figure, table, equation or listing (`$$ x $$ {#fig:a}`): it numbers nothing
 * and no reference reaches it, so it is warned rather than dropped silently.
 */
function misplacedLabel(node: Nodes): string | undefined {
  let id: string | undefined;
  let kind: CaptionKind | undefined;
  if (node.type === 'paragraph') {
    const content = node.children.filter((child) => !isBlank(child));
    const only = content.length === 1 ? content[0] : undefined;
    if (only?.type === 'image' || only?.type === 'imageReference') [id, kind] = [only.data?.attributes?.id, 'figure'];
    else if (only?.type === 'inlineMath') [id, kind] = [only.data?.attributes?.id, 'equation'];
  } else if (node.type === 'table') [id, kind] = [node.data?.caption?.attributes?.id, 'table'];
  else if (node.type === 'math') [id, kind] = [node.data?.attributes?.id, 'equation'];
  else if (node.type === 'code') [id, kind] = [node.data?.attributes?.id, 'listing'];
  if (id === undefined || kind === undefined) return undefined;
  const prefix = id.split(':')[0] ?? '';
  if (!id.includes(':') || !LABEL_PREFIXES.includes(prefix) || prefix === SEQ_PREFIX[kind]) return undefined;
  const plural = { figure: 'figures', table: 'tables', equation: 'equations', listing: 'listings' }[kind];
  const article = kind === 'equation' ? 'an' : 'a';
  return `label_ignored: ${id} on ${article} ${kind} (${plural} take ${SEQ_PREFIX[kind]}:)`;
}

/** The front matter as a record, for the caption words (empty when it is absent or not a mapping). */
export function frontMatterRecord(tree: Root): Record<string, unknown> {
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
export function labelOf(id: string | undefined, prefix: string): string | undefined {
  return id !== undefined && id.startsWith(`${prefix}:`) ? id : undefined;
}

/** What a node numbers, if anything: its kind, label and caption text. */
export function numberedOf(
  node: Nodes,
  definitions: ReadonlyMap<string, Definition>,
  implicitFigures: boolean,
): { kind: CaptionKind; label: string | undefined; text: string; nodes?: PhrasingContent[] } | undefined {
  if (node.type === 'paragraph') {
    const image = figureImage(node);
    if (image) {
      const title =
        image.type === 'image' ? image.title : (definitions.get(image.identifier.toLowerCase())?.title ?? null);
      const label = labelOf(image.data?.attributes?.id, 'fig');
      // The title is the caption (as before numbering: docs/images.md), else the alt text (pandoc's figure caption).
      const text = title?.trim() || image.alt?.trim() || '';
      // Without an image source every image is SPEC.md's placeholder: only a labelled one is a figure then.
      const nodes = image.data?.caption?.children;
      if (label || (text && implicitFigures)) return { kind: 'figure', label, text, ...(nodes ? { nodes } : {}) };
    }
    const formula = labelledFormula(node);
    if (formula) return { kind: 'equation', label: labelOf(formula.data?.attributes?.id, 'eq'), text: '' };
  } else if (node.type === 'table' && node.data?.caption) {
    const caption = node.data.caption;
    const label = labelOf(caption.attributes?.id, 'tbl');
    return { kind: 'table', label, text: toString(caption.children), nodes: caption.children };
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
export function labelledFormula(paragraph: MdParagraph): InlineMath | undefined {
  const content = paragraph.children.filter((child) => !isBlank(child));
  const only = content[0];
  if (content.length !== 1 || only?.type !== 'inlineMath') return undefined;
  return labelOf(only.data?.attributes?.id, 'eq') ? only : undefined;
}

/** A listing's `caption="…"` attribute. */
export function listingCaption(code: Code): string | undefined {
  return code.data?.attributes?.pairs.find(([key]) => key === 'caption')?.[1];
}

/** The caption style: the mapping's `caption`, else the template's Caption style, else none (the body's). */
export const SEQ_PREFIX: Record<CaptionKind, string> = { figure: 'fig', table: 'tbl', equation: 'eq', listing: 'lst' };

/** The paragraphs that ask for a list of figures or tables (`[LOF]`, `[LOT]`), by what they list. */
export const LIST_MARKERS: Record<string, 'figure' | 'table'> = { '[LOF]': 'figure', '[LOT]': 'table' };

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
