import { CHARACTER_KEYS, HEADING_LEVELS, TITLE_KEYS, type HeadingLevel, type MappingRules } from './mapping.ts';
import { basedOnChain, findStyle, type StyleLook, type StyleType, type TemplateStyle } from './template/styles.ts';

/** Name of the mapping created for a newly uploaded template. */
export const AUTO_MAPPING_NAME = 'Matched by style name';

// Matching, in this order of preference (docs/mappings.md, "How styles are matched"); each step runs for every
// element before the next step starts, so a weaker match never takes a style a stronger one gives another element:
// 1. Word's name of the built-in style and the usual names of pandoc, LibreOffice and Docwright (NAMES);
// 2. the names Word shows its built-in styles under in other languages, which WPS, LibreOffice and converters write
//    as the style's name (LOCALISED; Word itself writes the English name with a localised id, matched in step 1);
// 3. a custom name holding the element's role word ("FEMA Text", "FEMA Bullet": ROLE_WORDS);
// 4. what the style looks like (LOOKS): an outline level (own or through its based-on chain), a numbering of
//    bullets or numbers, a monospaced font, the default paragraph style.
// Only a style of the element's type counts; within a step, the first such style in styles.xml order wins.

/** A paragraph-key of the rules other than headings (the title block and caption included). */
type ParagraphKey =
  | 'paragraph'
  | 'list_bullet'
  | 'list_ordered'
  | 'code_block'
  | 'blockquote'
  | 'footnote_text'
  | 'bibliography'
  | 'caption'
  | 'definition_term'
  | 'definition'
  | 'title'
  | 'subtitle'
  | 'author'
  | 'date'
  | 'abstract';
type CharacterKey = (typeof CHARACTER_KEYS)[number];
/** Every element a mapping can name a style for, a heading level as `heading N`. */
type Element = `heading ${HeadingLevel}` | ParagraphKey | CharacterKey | 'table';

const PARAGRAPH_KEYS: readonly ParagraphKey[] = [
  'paragraph',
  'list_bullet',
  'list_ordered',
  'code_block',
  'blockquote',
  'footnote_text',
  'bibliography',
  'caption',
  'definition_term',
  'definition',
  ...TITLE_KEYS,
  'abstract',
];
const ELEMENTS: readonly Element[] = [
  ...HEADING_LEVELS.map((level) => `heading ${level}` as const),
  ...PARAGRAPH_KEYS,
  'table',
  ...CHARACTER_KEYS,
];

const typeOf = (element: Element): StyleType =>
  element === 'table' ? 'table' : (CHARACTER_KEYS as readonly string[]).includes(element) ? 'character' : 'paragraph';

/** Step 1: Word's built-in names, then the usual names of pandoc, LibreOffice and Docwright, best first. */
const NAMES: Record<Exclude<Element, `heading ${HeadingLevel}`>, readonly string[]> = {
  // Normal is the last resort, after custom body names (step 3): see looksLike.
  paragraph: ['Body Text', 'Text Body', 'Textkörper', 'Corps de texte'],
  list_bullet: ['List Bullet', 'Compact', 'List Paragraph', 'List'],
  list_ordered: ['List Number', 'Compact', 'List Paragraph', 'List'],
  code_block: ['Source Code', 'Code Block', 'Code', 'HTML Preformatted', 'Preformatted Text', 'Plain Text', 'Verbatim'],
  blockquote: ['Quote', 'Block Text', 'Quotations', 'Intense Quote'],
  footnote_text: ['footnote text'],
  bibliography: ['Bibliography', 'References', 'Reference List'],
  caption: ['Caption', 'Image Caption', 'Table Caption'],
  // pandoc's reference.docx names; LibreOffice's "List Heading" and "List Contents" are its definition list styles.
  definition_term: ['Definition Term', 'List Heading'],
  definition: ['Definition', 'List Contents'],
  title: ['Title'],
  subtitle: ['Subtitle'],
  author: ['Author'],
  date: ['Date'],
  abstract: ['Abstract'],
  table: ['Docwright Table', 'Table', 'Table Grid', 'Grid Table 1 Light', 'Plain Table 1', 'Light Grid'],
  inline_code: ['Verbatim Char', 'HTML Code', 'Source Code Char', 'Inline Code', 'Code Char'],
  link: ['Hyperlink', 'Internet Link'],
  strong: ['Strong', 'Strong Emphasis'],
  emphasis: ['Emphasis'],
};

/** Word's "List Paragraph" in the languages below: a list of either kind may take it. */
const LIST_PARAGRAPH = [
  'Listenabsatz',
  'Paragraphe de liste',
  'Párrafo de lista',
  'Parágrafo da Lista',
  'Paragrafo elenco',
  'Lijstalinea',
  'Абзац списка',
  '列表段落',
  '清單段落',
  'リスト段落',
  '목록 단락',
];

/**
 * Step 2: the names Word's UI gives these built-in styles in German, French, Spanish, Portuguese, Italian, Dutch,
 * Russian, Chinese (simplified and traditional), Japanese and Korean, per element in the order of NAMES (Body Text's
 * before Normal's, List Bullet's before List Paragraph's). `N` stands for the heading level.
 */
const LOCALISED: Record<Exclude<Element, `heading ${HeadingLevel}`> | 'heading N', readonly string[]> = {
  'heading N': [
    'Überschrift N',
    'Titre N',
    'Título N',
    'Titolo N',
    'Kop N',
    'Nagłówek N',
    'Заголовок N',
    '标题 N',
    '標題 N',
    '見出し N',
    '제목 N',
  ],
  paragraph: [
    // Body Text
    'Textkörper',
    'Corps de texte',
    'Texto independiente',
    'Corpo de texto',
    'Corpo testo',
    'Plattetekst',
    'Основной текст',
    '正文文本',
    '本文',
  ],
  list_bullet: [
    'Aufzählungszeichen',
    'Liste à puces',
    'Lista con viñetas',
    'Lista com marcadores',
    'Puntato',
    'Lijstopsommingsteken',
    'Маркированный список',
    '列表项目符号',
    '清單項目符號',
    '箇条書き',
    ...LIST_PARAGRAPH,
  ],
  list_ordered: [
    'Listennummer',
    'Liste à numéros',
    'Lista con números',
    'Numeração',
    'Numerato',
    'Lijstnummering',
    'Нумерованный список',
    '列表编号',
    '清單號碼',
    '段落番号',
    ...LIST_PARAGRAPH,
  ],
  code_block: [
    'HTML Vorformatiert',
    'Préformaté HTML',
    'Nur Text',
    'Texte brut',
    'Texto sin formato',
    'Texto sem Formatação',
    'Testo normale',
    'Tekst zonder opmaak',
    'Текст',
    'HTML 预设格式',
    '纯文本',
    '純文字',
    '書式なし',
  ],
  blockquote: [
    'Zitat',
    'Citation',
    'Cita',
    'Citação',
    'Citazione',
    'Citaat',
    'Цитата',
    '引用',
    '引文',
    '引用文',
    '인용',
  ],
  footnote_text: [
    'Funotentext',
    'Note de bas de page',
    'Texto nota pie',
    'Texto de nota de rodapé',
    'Testo nota a piè di pagina',
    'Voetnoottekst',
    'Текст сноски',
    '脚注文本',
    '註腳文字',
    '脚注文字列',
    '각주 텍스트',
  ],
  bibliography: [
    'Literaturverzeichnis',
    'Bibliographie',
    'Bibliografía',
    'Bibliografia',
    'Bibliografie',
    'Библиография',
  ],
  caption: [
    'Beschriftung',
    'Légende',
    'Descripción',
    'Legenda',
    'Didascalia',
    'Bijschrift',
    'Название объекта',
    '题注',
    '標號',
    '図表番号',
    '캡션',
  ],
  // Word has no built-in styles for definition lists: nothing localised to match.
  definition_term: [],
  definition: [],
  title: ['Titel', 'Titre', 'Título', 'Titolo', 'Название', '标题', '標題', '表題', '제목'],
  subtitle: [
    'Untertitel',
    'Sous-titre',
    'Subtítulo',
    'Sottotitolo',
    'Ondertitel',
    'Подзаголовок',
    '副标题',
    '副標題',
    '副題',
    '부제',
  ],
  author: ['Autor', 'Auteur', 'Autore', 'Автор', '作者', '著者', '저자'],
  date: ['Datum', 'Fecha', 'Data', 'Дата', '日期', '日付', '날짜'],
  // Word has no built-in abstract style: none is localised.
  abstract: [],
  table: [
    'Tabellenraster',
    'Grille du tableau',
    'Tabla con cuadrícula',
    'Tabelgitter',
    'Сетка таблицы',
    '网格型',
    '表格格線',
    '表 (格子)',
    '표 눈금',
  ],
  inline_code: ['HTML Code', 'Code HTML', 'HTML 代码', 'HTML コード'],
  link: [
    'Link',
    'Lien hypertexte',
    'Hipervínculo',
    'Hiperlink',
    'Collegamento ipertestuale',
    'Hyperlink',
    'Гиперссылка',
    '超链接',
    '超連結',
    'ハイパーリンク',
    '하이퍼링크',
  ],
  strong: [
    'Fett',
    'Élevé',
    'Texto en negrita',
    'Forte',
    'Enfasi (grassetto)',
    'Zwaar',
    'Строгий',
    '要点',
    '強調太字',
    '강한',
  ],
  emphasis: [
    'Hervorhebung',
    'Accentuation',
    'Énfasis',
    'Ênfase',
    'Enfasi (corsivo)',
    'Nadruk',
    'Выделение',
    '强调',
    '強調',
    '強調斜体',
    '강조',
  ],
};

/**
 * Step 3: words of a custom name that say its role, and words that say it is for something else (a "Footnote Text"
 * is no body text, a "Title Page Text" neither). A name's words are split at spaces, punctuation and case changes.
 */
const ROLE_WORDS: Partial<Record<Element | 'heading N', { any: readonly string[]; not?: readonly string[] }>> = {
  'heading N': { any: ['heading', 'head', 'überschrift', 'titre', 'título'], not: ['toc', 'contents', 'char'] },
  paragraph: {
    any: ['text', 'body', 'paragraph'],
    not: [
      'footnote',
      'endnote',
      'balloon',
      'comment',
      'annotation',
      'plain',
      'block',
      'placeholder',
      'macro',
      'table',
      'header',
      'footer',
      'caption',
      'list',
      'heading',
      'title',
      'quote',
      'code',
      'toc',
      'index',
      'note',
      'source',
      'html',
      'preformatted',
      'bullet',
      'number',
      'numbered',
      'first',
      'cover',
      'signature',
      'address',
      'figure',
      'box',
    ],
  },
  list_bullet: { any: ['bullet', 'bullets', 'bulleted', 'bulletlist'], not: ['char', 'toc'] },
  list_ordered: {
    any: ['numbered', 'enumerated', 'ordered', 'numberlist', 'numbering', 'steps'],
    not: ['char', 'heading', 'toc'],
  },
  // Not pandoc's highlighting tokens (VerbatimStringTok).
  code_block: { any: ['code', 'listing', 'verbatim', 'preformatted', 'monospace'], not: ['char', 'inline', 'tok'] },
  blockquote: { any: ['quote', 'quotation', 'blockquote', 'citation', 'extract', 'epigraph'], not: ['char'] },
  footnote_text: { any: ['footnote'], not: ['reference', 'char'] },
  bibliography: {
    any: ['bibliography', 'references', 'bibliographie', 'literaturverzeichnis'],
    not: ['char', 'heading'],
  },
  caption: { any: ['caption', 'legend'], not: ['char'] },
  title: {
    any: ['title'],
    not: ['sub', 'subtitle', 'toc', 'table', 'figure', 'char', 'caption', 'heading', 'page', 'running', 'section'],
  },
  subtitle: { any: ['subtitle', 'subtitel', 'subheading'], not: ['char'] },
  author: { any: ['author', 'authors', 'byline'], not: ['note', 'char'] },
  date: { any: ['date'], not: ['char'] },
  abstract: { any: ['abstract', 'zusammenfassung', 'résumé', 'resumen', 'summary'], not: ['char', 'heading', 'title'] },
  inline_code: { any: ['code', 'verbatim', 'monospace', 'typewriter'], not: ['tok'] },
  link: { any: ['hyperlink', 'link'], not: ['followed', 'visited'] },
  strong: { any: ['strong', 'bold'] },
  emphasis: { any: ['emphasis', 'italic'], not: ['intense', 'subtle'] },
};

/** The most of a style name the role words are looked for in. */
const MAX_NAME = 128;

/** The words of a style name, lower case: "FEMA Text" → fema, text; "APAEnumerated" → apa, enumerated. */
function words(name: string): string[] {
  // A style name's first 128 characters: longer ones say nothing more, and the splitting below is not linear.
  return name
    .slice(0, MAX_NAME)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

const MONOSPACE =
  /mono|courier|consolas|menlo|monaco|lucida console|lucida sans typewriter|source code|fira code|inconsolata|cascadia|typewriter|fixedsys|simsun-extb|ms gothic|ＭＳ ゴシック/i;

/** A style's look with what it inherits through its based-on chain (its own values first). */
function inherited(style: TemplateStyle, byId: ReadonlyMap<string, TemplateStyle>): StyleLook {
  const look: { -readonly [K in keyof StyleLook]?: StyleLook[K] } = {};
  for (const id of basedOnChain(style.id, (at) => byId.get(at)?.look?.basedOn)) {
    const s = id === style.id ? style : byId.get(id);
    look.outlineLevel ??= s?.look?.outlineLevel;
    look.numbering ??= s?.look?.numbering;
    look.font ??= s?.look?.font;
  }
  look.isDefault = style.look?.isDefault;
  return look;
}

/** Word's Normal under its names in the languages of LOCALISED: the body's last resort, with the default style. */
const NORMAL = ['normal', 'standard', 'normale', 'standaard', 'обычный', '正文', '內文', '標準', '표준'];

/** Step 4: what a style of the element looks like, where no name says it. */
function looksLike(element: Element, style: TemplateStyle, look: StyleLook): boolean {
  const heading = /^heading (\d)$/.exec(element);
  if (heading) return look.outlineLevel === Number(heading[1]) - 1;
  const plain = look.outlineLevel === undefined;
  switch (element) {
    case 'paragraph':
      return look.isDefault === true || NORMAL.includes(style.name.trim().toLowerCase());
    case 'list_bullet':
      return plain && look.numbering === 'bullet';
    case 'list_ordered':
      return plain && look.numbering === 'number';
    case 'code_block':
    case 'inline_code':
      return plain && look.numbering !== 'number' && look.numbering !== 'bullet' && MONOSPACE.test(look.font ?? '');
    default:
      return false;
  }
}

/** The names of step 1 or 2 for an element (a heading's with its level). */
function namesFor(element: Element, table: 'names' | 'localised'): readonly string[] {
  const heading = /^heading (\d)$/.exec(element);
  if (heading) {
    const level = heading[1] ?? '';
    if (table === 'names') return [`heading ${level}`];
    return LOCALISED['heading N'].flatMap((name) => [name.replace('N', level), name.replace(' N', level)]);
  }
  const key = element as Exclude<Element, `heading ${HeadingLevel}`>;
  return table === 'names' ? NAMES[key] : LOCALISED[key];
}

/** Whether a custom name says the element's role (step 3). */
function namedFor(element: Element, name: string): boolean {
  const heading = /^heading (\d)$/.exec(element);
  const role = ROLE_WORDS[heading ? 'heading N' : element];
  if (!role) return false;
  const parts = words(name);
  if (role.not?.some((word) => parts.includes(word))) return false;
  if (!role.any.some((word) => parts.includes(word))) return false;
  // A heading's name carries its level ("FEMA Heading 1", "Head2"), and no other number.
  if (heading)
    return (
      words(name.replace(/(\D)(\d)/g, '$1 $2'))
        .filter((w) => /^\d+$/.test(w))
        .join() === heading[1]
    );
  return true;
}

/**
 * The style each element gets: the name the template gives it, for every element a style was found for, by the
 * steps above. Pure, and the same for every surface: an upload's mapping, "New mapping"'s, the command line's and
 * MCP's template given without a mapping.
 */
function matchStyles(styles: readonly TemplateStyle[]): Map<Element, string> {
  const found = new Map<Element, string>();
  const taken = new Set<string>();
  const take = (element: Element, style: TemplateStyle) => {
    found.set(element, style.name);
    taken.add(style.id);
  };
  for (const table of ['names', 'localised'] as const)
    for (const element of ELEMENTS) {
      if (found.has(element)) continue;
      for (const name of namesFor(element, table)) {
        const style = findStyle(styles, name);
        if (style && style.type === typeOf(element)) {
          take(element, style);
          break;
        }
      }
    }
  // Steps 3 and 4 never take a style another element already has (lists may share one found by name: Compact).
  const byId = new Map(styles.map((s) => [s.id, s]));
  const steps: ((element: Element, style: TemplateStyle) => boolean)[] = [
    (element, style) => namedFor(element, style.name),
    (element, style) => looksLike(element, style, inherited(style, byId)),
  ];
  // Of several, the one most styles are based on (FEMA Text, base of FEMA Bullet, over Levee Text), then the first.
  const bases = new Map<string, number>();
  for (const s of styles) if (s.look?.basedOn) bases.set(s.look.basedOn, (bases.get(s.look.basedOn) ?? 0) + 1);
  for (const step of steps)
    for (const element of ELEMENTS) {
      if (found.has(element)) continue;
      let best: TemplateStyle | undefined;
      for (const s of styles)
        if (s.type === typeOf(element) && !taken.has(s.id) && step(element, s))
          if (!best || (bases.get(s.id) ?? 0) > (bases.get(best.id) ?? 0)) best = s;
      if (best) take(element, best);
    }
  return found;
}

/**
 * Mapping rules matched to a template's styles (the steps above). Only styles the template has are named (as the
 * template names them), so the rules resolve without a `missing_style` warning; an element with no match is left
 * out and gets built-in formatting. Used on upload, to pre-fill "New mapping", and for a template the command line
 * or MCP is given without a mapping.
 */
export function suggestRules(styles: readonly TemplateStyle[]): MappingRules {
  const found = matchStyles(styles);
  const rules: MappingRules = {};
  const heading: Partial<Record<HeadingLevel, string>> = {};
  for (const level of HEADING_LEVELS) {
    const name = found.get(`heading ${level}`);
    if (name !== undefined) heading[level] = name;
  }
  if (Object.keys(heading).length > 0) rules.heading = heading;
  for (const key of PARAGRAPH_KEYS) {
    const name = found.get(key);
    if (name !== undefined) rules[key] = name;
  }
  const table = found.get('table');
  rules.table = table === undefined ? { header_row: true } : { style: table, header_row: true };
  for (const key of CHARACTER_KEYS) {
    const name = found.get(key);
    if (name !== undefined) rules[key] = name;
  }
  return rules;
}

/** How many elements of the rules name a style (headings count one each): "matched 17 of 24". */
export function matchedCount(rules: MappingRules): { matched: number; of: number } {
  const headings = Object.keys(rules.heading ?? {}).length;
  const others = [...PARAGRAPH_KEYS, ...CHARACTER_KEYS].filter((k) => rules[k] !== undefined).length;
  return { matched: headings + others + (rules.table?.style === undefined ? 0 : 1), of: ELEMENTS.length };
}
