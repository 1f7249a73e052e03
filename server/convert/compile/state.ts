import {
  AlignmentType,
  BorderStyle,
  CommentRangeEnd,
  CommentRangeStart,
  CommentReference,
  LineRuleType,
  PageBreak,
  Paragraph,
  ShadingType,
  TextRun,
  type FileChild,
  type IIndentAttributesProperties,
  type IParagraphOptions,
  type ParagraphChild,
} from 'docx';
import type { Definition, FootnoteDefinition, Heading, Nodes, RootContent } from 'mdast';
import { DEFAULT_ELEMENT_OPTIONS, type ElementOptions } from '../element-options.ts';
import type { ResolvedStyles, TitleKey } from '../mapping.ts';
import { docxText } from '../braces.ts';
import { WarningList } from '../warning-list.ts';
import { directed, type Direction } from '../bidi.ts';
import type { TitleValues } from './title-block.ts';
import { AnchorIndex } from './anchors.ts';
import { TocState } from './toc.ts';
import { HeadingNumbers } from './heading-numbers.ts';
import { CaptionIndex } from './caption-index.ts';
import { outputTooLarge } from '../errors.ts';
import type { ImageEmbedder } from '../images/embed.ts';
import type { CodeHighlighting } from '../highlight/index.ts';
import type { Token, TokenKind } from '../highlight/tokens.ts';
import { findStyle, type StyleType, type TemplateStyle } from '../template/styles.ts';
import type { MathResult } from '../math/index.ts';
import type { CompileCitations } from '../citations/index.ts';

/** Monospaced font for code; Word and LibreOffice substitute a metric-compatible one where it is missing. */
export const MONO_FONT = 'Consolas';
/** Code is always 9 pt (half-points), whatever the mapped style says. */
export const CODE_SIZE = 18;
/** Indentation of one list or quote level, in twentieths of a point. */
export const INDENT_STEP = 720;
/** Quotes deeper than this are indented like this depth (Word would push text off the page otherwise). */
export const MAX_QUOTE_INDENT_DEPTH = 6;

/** Document properties taken from YAML front matter (handlers/front-matter.ts). */
export interface DocumentProperties {
  title?: string;
  creator?: string;
  subject?: string;
  keywords?: string;
  description?: string;
  /** The front matter's date as W3CDTF (dates.ts), for dcterms:created; absent: the conversion time. */
  created?: string;
  /** The front matter's `lang` (a BCP 47 tag), for dc:language. */
  language?: string;
}

/** Formatting that flows down to the runs of inline content (Word runs cannot nest). */
export interface InlineContext {
  bold?: boolean;
  italics?: boolean;
  /** Inside `**strong**` and `*emphasis*`: bold and italic, or the mapped character style. */
  strong?: boolean;
  emphasis?: boolean;
  strike?: boolean;
  code?: boolean;
  link?: boolean;
  /** Font size in half-points (built-in heading formatting). */
  size?: number;
  superScript?: boolean;
  subScript?: boolean;
  /** Small capitals (a CSL style's names). */
  smallCaps?: boolean;
  /** The character style a bracketed span's `custom-style` names (handlers/span.ts). */
  customStyle?: string;
  /** The language a span's or div's `lang` gives the runs (w:lang). */
  lang?: string;
}

export type ParagraphRole =
  'paragraph' | 'heading' | 'code' | 'list' | 'quote' | 'cell' | 'footnote' | 'term' | 'definition';

/** A list the next paragraph belongs to as the first paragraph of an item. */
export interface PendingItem {
  reference: string;
  instance: number;
  level: number;
}

/** The numbering definitions a conversion uses, by reference (`bullet`, `ordered-5`, …). */
export interface ListDefinition {
  reference: string;
  ordered: boolean;
  start: number;
}

export type Alignment = (typeof AlignmentType)[keyof typeof AlignmentType];

/** A footnote printed: its id, and the bookmark around its first reference (an id once a later one refers to it). */
export interface NoteSite {
  footnoteId: number;
  bookmark: string;
  bookmarkId: number | undefined;
}

/** The block context a table cell or footnote replaces for its content. */
export interface BlockContext {
  container: 'quote' | 'list' | 'definition' | undefined;
  listDepth: number;
  quoteDepth: number;
  definitionDepth: number;
  inFootnote: boolean;
  inHeaderCell: boolean;
  pendingItem: PendingItem | undefined;
  /** A page break asked for before the next block (`---`, `\newpage`): the next paragraph's `pageBreakBefore`. */
  breakBefore: boolean;
  cellAlignment: Alignment | undefined;
}

export type BlockHandler = (state: State, node: never) => FileChild[];
export type InlineHandler = (state: State, node: never) => ParagraphChild[];

/** Options the handlers see. */
export interface CompileOptions {
  styles: ResolvedStyles;
  textWidthTwips: number;
  /** The text width of a landscape section (`::: {.landscape}`); absent: textWidthTwips. */
  landscapeTextWidthTwips?: number;
  /** The mapping's options (SPEC's behaviour when absent). */
  options?: ElementOptions;
  /** Embeds local images (docs/images.md); absent: every image is a placeholder (SPEC.md). */
  images?: ImageEmbedder | undefined;
  /** Title block keys the template has fields for (placeholders, content controls): filled, not printed. */
  templateFields?: ReadonlySet<TitleKey>;
  /** The most characters of Word XML the conversion may write (outputLimit); absent: unbounded. */
  outputLimit?: number;
  /** Highlights fenced code (highlight/index.ts); absent: all code is plain. */
  highlighting?: CodeHighlighting | undefined;
  /** The template's paragraph styles that number their paragraphs by themselves, by id: name and own indentation. */
  numberedStyles?: ReadonlyMap<string, { name: string; indent?: IIndentAttributesProperties }>;
  /** The template's language (its Normal style's or document defaults' w:lang), for dates the front matter gives. */
  language?: string;
  /** TeX → OMML (math/index.ts), given by convert() when the document has math; absent: formulas stay TeX. */
  texToOmml?: ((tex: string, display: boolean) => MathResult) | undefined;
  /** The template's styles, for the ones the markdown names itself (`custom-style`). */
  templateStyles?: readonly TemplateStyle[];
  /** Number the headings (the convert option `number_sections`; the front matter may say otherwise). */
  numberSections?: boolean;
  /** The document's citations formatted and its bibliography (citations/index.ts); absent: it has none. */
  citations?: CompileCitations | undefined;
  /** The first id free for our Word comments: the template's own kept comments have lower ones. */
  commentIdBase?: number;
}

/** An HTML comment to write as a Word comment (`comments: "word"`): its id and text. */
export interface WordComment {
  id: number;
  text: string;
}

/** The one object every handler receives: options, collected definitions, context stacks and results. */
export class State {
  readonly styles: ResolvedStyles;
  /** The width of the text at the current place (tables and pictures fit it): a landscape section's inside one. */
  textWidthTwips: number;
  readonly landscapeTextWidthTwips: number;
  /** Set while compiling a landscape div's content (a div inside it makes no section of its own). */
  inLandscape = false;
  /** Set once a landscape div has written its section markers. */
  landscapeUsed = false;
  readonly options: ElementOptions;
  readonly images: ImageEmbedder | undefined;
  /** Blocks to write right after the current one (an image's caption after its paragraph). */
  readonly after: (() => FileChild)[] = [];
  /** Warnings once each, with the first source line and count of each (see warning-list.ts). */
  readonly warningList = new WarningList();
  /** The source line of the node being compiled (mdast positions), for the warnings it gives. */
  line: number | null = null;
  readonly definitions = new Map<string, Definition>();
  readonly footnoteDefinitions = new Map<string, FootnoteDefinition>();
  readonly footnotes: Record<number, { children: Paragraph[] }> = {};
  /** Identifiers of the footnote definitions printed as footnotes. */
  readonly printedFootnotes = new Set<string>();
  /** Each printed note's id and the bookmark of its first reference, by identifier (footnote-reference.ts). */
  readonly noteSites = new Map<string, NoteSite>();
  readonly lists = new Map<string, ListDefinition>();
  /** Heading bookmarks and link targets, collected before compiling (anchors.ts). */
  readonly anchors = new AnchorIndex();
  /** The table of contents asked for, if any (toc.ts). */
  readonly toc = new TocState();
  /** Numbered headings, when asked for (heading-numbers.ts). */
  readonly headingNumbers: HeadingNumbers;
  /** Numbered captions and their bookmarks, collected before compiling (captions.ts). */
  readonly captions = new CaptionIndex();
  /** Set while compiling a figure's paragraph: its caption is the numbered one, not the image's title (images.ts). */
  inFigure = false;
  /** Document properties, filled from the front matter. */
  readonly properties: DocumentProperties = {};
  /** The front matter's title block values (title-block.ts). */
  titleValues: TitleValues = {};
  readonly templateFields: ReadonlySet<TitleKey>;
  /** Equations taller than a line of text (handlers/math.ts): their paragraph gets single line spacing. */
  readonly tallEquations = new WeakSet<ParagraphChild>();
  /** The token kinds of the highlighted code written (the package step adds their styles where the template lacks them). */
  readonly tokenKinds = new Set<TokenKind>();
  /** The template's language (CompileOptions.language). */
  readonly templateLanguage: string | undefined;
  /** The Word comments written (handlers/html-comment.ts), in document order. */
  readonly comments: WordComment[] = [];
  /** Comments that stood between blocks: anchored at the start of the next paragraph written. */
  private pendingComments: number[] = [];
  private readonly commentIdBase: number;
  /** The document's first heading, when there is one (a repeat of the printed title is not printed: front-matter.ts). */
  firstHeading: Heading | undefined = undefined;
  /** The first heading when it repeats the printed title: its bookmark is on the title line, it prints nothing. */
  titleHeading: Heading | undefined = undefined;
  /** The heading the bibliography stands under (compile/index.ts): unnumbered, as pandoc's references heading is. */
  bibliographyHeading: Heading | undefined = undefined;

  /** Current inline formatting. */
  inline: InlineContext = {};
  /** Depth of the list the current block is in (0: none, 1: top level, …). */
  listDepth = 0;
  /** Depth of blockquotes around the current block. */
  quoteDepth = 0;
  /** Depth of definitions (of definition lists) around the current block. */
  definitionDepth = 0;
  /**
   * The innermost container of the current block: a quote's paragraphs take the quote style, a definition's the
   * definition style, a list's none of its own.
   */
  container: 'quote' | 'list' | 'definition' | undefined = undefined;
  /** Set while compiling footnote content. */
  inFootnote = false;
  /** Set while compiling a table header cell. */
  inHeaderCell = false;
  /** The item whose first paragraph is still to be written. */
  pendingItem: PendingItem | undefined = undefined;
  /**
   * A page break waits for the next block: its first paragraph starts a page (`w:pageBreakBefore`), so no paragraph
   * of its own holds the break (one that takes a page of its own where the page before is full, and leaves an empty
   * line at the top of the next). A block whose first paragraph cannot take it (a table, a table of contents, the
   * end of the document) gets the break's own paragraph before it (pageBreak()).
   */
  breakBefore = false;
  /** Alignment of the table cell being compiled. */
  cellAlignment: Alignment | undefined = undefined;
  /** The base direction a `dir` attribute of the HTML around sets (bidi.ts). */
  direction: Direction | undefined = undefined;
  /** The paragraph style a fenced div's `custom-style` gives its paragraphs (handlers/fenced-div.ts). */
  divStyle: string | undefined = undefined;
  /** Set while compiling a right-to-left paragraph: `w:bidi` on it, `w:rtl` on its right-to-left runs. */
  rtl = false;
  /** CompileOptions.citations. */
  readonly citations: CompileCitations | undefined;
  /** The bibliography was printed at a `::: {#refs}` div (else it goes at the end). */
  bibliographyPlaced = false;

  /** The template's paragraph styles that carry numbering (CompileOptions.numberedStyles), and those warned about. */
  private readonly numberedStyles: NonNullable<CompileOptions['numberedStyles']>;
  private readonly numberingWarned = new Set<string>();
  private readonly templateStyles: readonly TemplateStyle[];
  /** CompileOptions.texToOmml. */
  readonly texToOmml: CompileOptions['texToOmml'];
  private listInstances = 0;
  /** Characters of link targets docx will write, one relationship per link, before the package step merges them. */
  private linkTargetChars = 0;
  private readonly outputLimit: number;
  private footnoteIds = 0;
  private readonly highlighting: CodeHighlighting | undefined;

  constructor(
    private readonly blockHandlers: Record<string, BlockHandler | null>,
    private readonly inlineHandlers: Record<string, InlineHandler | null>,
    options: CompileOptions,
  ) {
    this.styles = options.styles;
    this.textWidthTwips = options.textWidthTwips;
    this.landscapeTextWidthTwips = options.landscapeTextWidthTwips ?? options.textWidthTwips;
    this.options = options.options ?? DEFAULT_ELEMENT_OPTIONS;
    this.images = options.images;
    this.templateFields = options.templateFields ?? new Set();
    this.templateLanguage = options.language;
    this.outputLimit = options.outputLimit ?? Infinity;
    this.highlighting = options.highlighting;
    this.numberedStyles = options.numberedStyles ?? new Map();
    this.headingNumbers = new HeadingNumbers(options.numberSections ?? false, options.styles, this.numberedStyles);
    this.templateStyles = options.templateStyles ?? [];
    this.texToOmml = options.texToOmml;
    this.citations = options.citations;
    this.commentIdBase = options.commentIdBase ?? 0;
  }

  /** Adds a Word comment of `text`; returns its id. */
  addComment(text: string): number {
    const id = this.commentIdBase + this.comments.length;
    this.comments.push({ id, text });
    return id;
  }

  /** Anchors a comment at the start of the next paragraph (one that stood between blocks). */
  deferComment(id: number): void {
    this.pendingComments.push(id);
  }

  /** The comments still waiting for a paragraph, taken. */
  takePendingComments(): ParagraphChild[] {
    const ids = this.pendingComments;
    this.pendingComments = [];
    return ids.flatMap((id) => commentMarks(id));
  }

  /**
   * The lines of tokens of fenced code, each token with its character style's id; undefined: the code stays plain (no
   * highlighting asked for, a language not highlighted, or too long: then with a warning).
   */
  highlightCode(
    code: string,
    lang: string | null | undefined,
  ): (Token & { style: { id: string; own: boolean } })[][] | undefined {
    const highlighted = this.highlighting?.highlight(code, lang);
    if (highlighted === undefined || !this.highlighting) return undefined;
    if ('warning' in highlighted) {
      this.warn(highlighted.warning);
      return undefined;
    }
    const styles = this.highlighting.styles;
    return highlighted.lines.map((line) =>
      line.map((token) => {
        this.tokenKinds.add(token.kind);
        return { ...token, style: styles[token.kind] };
      }),
    );
  }

  /** The id of the template's style of that name (or id) and type, if it has one. */
  templateStyle(name: string, type: StyleType): string | undefined {
    const style = findStyle(this.templateStyles, name);
    return style?.type === type ? style.id : undefined;
  }

  /**
   * Counts an external link's target, which docx writes into a relationship per link: a URL linked out of proportion
   * to the markdown is refused here, before docx writes it N times (OutputTooLargeError).
   */
  countLinkTarget(target: string): void {
    this.linkTargetChars += target.length;
    if (this.linkTargetChars > this.outputLimit) throw outputTooLarge(this.linkTargetChars);
  }

  /** The warnings, each once. */
  get warnings(): string[] {
    return this.warningList.warnings;
  }

  /** Adds a warning (kept once, counted), tied to the line of the node being compiled. */
  warn(warning: string): void {
    this.warningList.add(warning, this.line);
  }

  /** Remembers the line of a node about to be compiled (nodes made from raw HTML have none: the HTML's line stays). */
  private at(node: Nodes): void {
    const line = node.position?.start.line;
    if (line) this.line = line;
  }

  /** Compiles block content. */
  blocks(nodes: readonly RootContent[], starts?: Set<FileChild>): FileChild[] {
    const out: FileChild[] = [];
    for (const node of nodes) {
      const first = out.length;
      const handler = this.blockHandlers[node.type];
      this.at(node);
      if (handler === undefined) {
        // Phrasing content where blocks are expected (e.g. an html node) is wrapped in a paragraph, and so is the text
        // of a node type no handler knows.
        if (this.inlineHandlers[node.type]) out.push(this.paragraph('paragraph', this.inlines([node])));
        else out.push(this.paragraph('paragraph', this.unknown(node)));
        for (const make of this.after.splice(0)) out.push(make());
        startsAt(starts, out, first);
        continue;
      }
      if (handler === null) continue;
      const waiting = this.breakBefore;
      const from = out.length;
      for (const child of directed(this, node, () => handler(this, node as never))) out.push(child);
      for (const make of this.after.splice(0)) out.push(make());
      // A waiting page break no paragraph of this block took: its own paragraph, before the block.
      if (waiting && this.breakBefore && out.length > from) {
        out.splice(from, 0, this.pageBreak());
        this.breakBefore = false;
      }
      startsAt(starts, out, first);
    }
    return out;
  }

  /** Compiles phrasing content into runs, hyperlinks and footnote references. */
  inlines(nodes: readonly Nodes[]): ParagraphChild[] {
    const out: ParagraphChild[] = [];
    for (const node of nodes) {
      const handler = this.inlineHandlers[node.type];
      this.at(node);
      if (handler === undefined) {
        // Block content where phrasing is expected cannot occur in mdast; its text is kept all the same.
        if (this.blockHandlers[node.type] !== undefined && 'children' in node) out.push(...this.inlines(node.children));
        else out.push(...this.unknown(node));
        continue;
      }
      if (handler === null) continue;
      for (const child of handler(this, node as never)) out.push(child);
    }
    return out;
  }

  /** A node type no handler knows (from a plugin or a future parser): named in a warning, its text kept. */
  private unknown(node: Nodes): ParagraphChild[] {
    this.warn(`unsupported_node: ${node.type}`);
    if ('children' in node) return this.inlines(node.children);
    return 'value' in node && typeof node.value === 'string' && node.value ? [this.run(node.value)] : [];
  }

  /** Runs `fn` in a block context of its own (a table cell, a footnote), restoring the surrounding one after. */
  isolated<T>(context: Partial<BlockContext>, fn: () => T): T {
    const saved: BlockContext & { inline: InlineContext } = {
      inline: this.inline,
      container: this.container,
      listDepth: this.listDepth,
      quoteDepth: this.quoteDepth,
      definitionDepth: this.definitionDepth,
      inFootnote: this.inFootnote,
      inHeaderCell: this.inHeaderCell,
      pendingItem: this.pendingItem,
      breakBefore: this.breakBefore,
      cellAlignment: this.cellAlignment,
    };
    Object.assign(
      this,
      {
        inline: {},
        container: undefined,
        listDepth: 0,
        quoteDepth: 0,
        definitionDepth: 0,
        pendingItem: undefined,
        breakBefore: false,
        cellAlignment: undefined,
        inHeaderCell: false,
      },
      context,
    );
    try {
      return fn();
    } finally {
      Object.assign(this, saved);
    }
  }

  /** Runs `fn` with extra inline formatting. */
  withInline<T>(extra: InlineContext, fn: () => T): T {
    const saved = this.inline;
    this.inline = { ...saved, ...extra };
    try {
      return fn();
    } finally {
      this.inline = saved;
    }
  }

  /** A run of text in the current inline formatting; characters XML forbids are dropped, braces escaped (braces.ts). */
  run(text: string, rightToLeft = false): TextRun {
    return new TextRun({
      text: docxText(text),
      ...this.runFormatting(),
      ...(rightToLeft ? { rightToLeft: true } : {}),
    });
  }

  /** Run properties of the current inline context. */
  runFormatting(): {
    bold?: true;
    italics?: true;
    strike?: true;
    font?: string;
    size?: number;
    style?: string;
    color?: string;
    underline?: object;
    superScript?: true;
    subScript?: true;
    smallCaps?: true;
    language?: { value: string; eastAsia?: string; bidirectional?: string };
  } {
    const { bold, italics, strong, emphasis, strike, code, link, size, superScript, subScript, smallCaps, lang } =
      this.inline;
    const style = this.characterStyle();
    // The element whose character style the run carries takes its look from the style, not from direct formatting.
    const direct = {
      bold: bold === true || (strong === true && style?.of !== 'strong') || this.inHeaderCell,
      italics: italics === true || (emphasis === true && style?.of !== 'emphasis'),
      code: code === true && style?.of !== 'code',
      link: link === true && style?.of !== 'link',
    };
    return {
      ...(direct.bold ? { bold: true as const } : {}),
      ...(direct.italics ? { italics: true as const } : {}),
      ...(strike ? { strike: true as const } : {}),
      ...(direct.code ? { font: MONO_FONT } : {}),
      ...(size ? { size } : {}),
      ...(superScript ? { superScript: true as const } : subScript ? { subScript: true as const } : {}),
      ...(smallCaps ? { smallCaps: true as const } : {}),
      ...(style ? { style: style.id } : {}),
      ...(direct.link ? { color: '0563C1', underline: {} } : {}),
      ...(lang ? { language: runLanguage(lang) } : {}),
    };
  }

  /** A run has one character style (w:rStyle): the link's, else a span's, else inline code's, strong's, emphasis's. */
  private characterStyle(): { id: string; of: 'link' | 'span' | 'code' | 'strong' | 'emphasis' } | undefined {
    const { strong, emphasis, code, link } = this.inline;
    const styles = this.styles;
    if (link && styles.hyperlink) return { id: styles.hyperlink, of: 'link' };
    if (this.inline.customStyle) return { id: this.inline.customStyle, of: 'span' };
    if (code && styles.inlineCode) return { id: styles.inlineCode, of: 'code' };
    if (strong && styles.strong) return { id: styles.strong, of: 'strong' };
    if (emphasis && styles.emphasis) return { id: styles.emphasis, of: 'emphasis' };
    return undefined;
  }

  /** Starts a new list instance (each markdown list restarts its numbering). */
  newList(ordered: boolean, start: number): { reference: string; instance: number } {
    const reference = ordered ? `ordered-${start}` : 'bullet';
    if (!this.lists.has(reference)) this.lists.set(reference, { reference, ordered, start });
    this.listInstances += 1;
    return { reference, instance: this.listInstances };
  }

  /** Writes the pending item's number on an empty paragraph, for items that start with a list or a table. */
  flushPendingItem(): FileChild[] {
    return this.pendingItem ? [this.paragraph('list', [])] : [];
  }

  /** Next footnote id (1, 2, …). */
  nextFootnoteId(): number {
    this.footnoteIds += 1;
    return this.footnoteIds;
  }

  /**
   * Left indentation of a block in the current list, quote and definition context. A first-level quote or definition
   * in its mapped style keeps the style's own indentation; deeper ones, and those in lists, are indented one step per
   * level.
   */
  blockIndent(role: ParagraphRole): number {
    const quotes = Math.min(this.quoteDepth, MAX_QUOTE_INDENT_DEPTH);
    // Indented like quotes: at most MAX_QUOTE_INDENT_DEPTH steps, so deep nesting stays on the page.
    const definitions = Math.min(this.definitionDepth, MAX_QUOTE_INDENT_DEPTH);
    if (role === 'quote' && this.styles.blockquote && this.listDepth === 0 && quotes === 1 && definitions === 0)
      return 0;
    if (role === 'definition' && this.styles.definition && this.listDepth === 0 && quotes === 0 && definitions === 1)
      return 0;
    return INDENT_STEP * (this.listDepth + quotes + definitions);
  }

  /**
   * Creates a paragraph in the current block context: the role's mapped style, the pending list item's numbering,
   * and the indentation of surrounding lists and quotes.
   */
  paragraph(role: ParagraphRole, children: ParagraphChild[], extra: IParagraphOptions = {}): Paragraph {
    const marks = this.pendingComments.length > 0 ? this.takePendingComments() : [];
    const options: Record<string, unknown> = {
      children: this.anchors.withDeferred(marks.length > 0 ? [...marks, ...children] : children),
      ...extra,
    };
    const pending = this.pendingItem;
    this.pendingItem = undefined;
    if (this.inFootnote) {
      if (this.styles.footnoteText) options.style = this.styles.footnoteText;
    } else if (role === 'paragraph' || role === 'list') {
      const style = pending ? this.listStyle(pending.reference) : (this.divStyle ?? this.styles.paragraph);
      if (style && options.style === undefined) options.style = style;
    } else if (role === 'quote' && options.style === undefined) {
      if (this.styles.blockquote) options.style = this.styles.blockquote;
      else Object.assign(options, QUOTE_FALLBACK);
    } else if (role === 'term' || role === 'definition') {
      const style = role === 'term' ? this.styles.definitionTerm : this.styles.definition;
      if (style && options.style === undefined) options.style = style;
    }
    if (this.breakBefore && role !== 'cell' && !this.inFootnote) {
      options.pageBreakBefore = true;
      this.breakBefore = false;
    }
    if (this.cellAlignment) options.alignment = this.cellAlignment;
    // LibreOffice clips what rises above a line under a style's proportional spacing (1.15 lines): single spacing
    // lets such a line grow, in Word as in LibreOffice.
    if (options.spacing === undefined && children.some((child) => this.tallEquations.has(child)))
      options.spacing = { line: 240, lineRule: LineRuleType.AUTO };
    if (this.rtl && role !== 'code') options.bidirectional = true;
    if (pending) {
      options.numbering = { reference: pending.reference, level: pending.level, instance: pending.instance };
      const quoteIndent =
        INDENT_STEP *
        (Math.min(this.quoteDepth, MAX_QUOTE_INDENT_DEPTH) + Math.min(this.definitionDepth, MAX_QUOTE_INDENT_DEPTH));
      // Inside a quote or a definition the item's indentation moves right with it.
      if (quoteIndent > 0)
        options.indent = { left: quoteIndent + INDENT_STEP * (pending.level + 1), hanging: INDENT_STEP / 2 };
    } else if (options.indent === undefined && role !== 'cell' && !this.inFootnote) {
      const left = this.blockIndent(role);
      if (left > 0) options.indent = { left };
    }
    const off =
      !pending && role !== 'heading' && typeof options.style === 'string'
        ? this.unnumbered(options.style, role)
        : undefined;
    if (off) {
      options.numbering = false;
      options.indent ??= off.indent;
    }
    return new Paragraph(options);
  }

  /** A paragraph holding a page break, for a break no paragraph after it can take (see breakBefore). */
  pageBreak(): Paragraph {
    return new Paragraph({ children: [new PageBreak()] });
  }

  /** Asks for a page break before the next block; one already waiting is written first, as its own paragraph. */
  breakPage(): FileChild[] {
    if (this.inFootnote) return [this.pageBreak()];
    const earlier = this.breakBefore ? [this.pageBreak()] : [];
    this.breakBefore = true;
    return earlier;
  }

  /**
   * What a paragraph in `style` says to turn the style's own numbering off (a numbered style, as a template's Plain
   * Text carrying its chapter numbers, numbers only lists and headings): `numbering: false` and the style's own
   * indentation, which LibreOffice drops where numbering is turned off. Undefined for a style without numbering.
   * Warned once per style.
   */
  unnumbered(
    style: string,
    role: ParagraphRole | 'title',
  ): { numbering: false; indent?: IIndentAttributesProperties } | undefined {
    const numbered = this.numberedStyles.get(style);
    if (numbered === undefined) return undefined;
    if (!this.numberingWarned.has(style)) {
      this.numberingWarned.add(style);
      this.warn(`style_numbering_off: ${numbered.name} (its numbering is not shown on ${NUMBERED_ELEMENTS[role]})`);
    }
    return { numbering: false, ...(numbered.indent ? { indent: numbered.indent } : {}) };
  }

  private listStyle(reference: string): string | undefined {
    return reference === 'bullet' ? this.styles.list_bullet : this.styles.list_ordered;
  }
}

/** A comment's place in a paragraph: an empty range and the reference run (Word shows the comment there). */
export function commentMarks(id: number): ParagraphChild[] {
  return [new CommentRangeStart(id), new CommentRangeEnd(id), new TextRun({ children: [new CommentReference(id)] })];
}

/** What the paragraphs of each role are, for the warning of a numbered style (State.unnumbered). */
/**
 * Records the first block a top-level markdown block gave (`out[first]`, when it gave any) in `starts`: the package
 * step lays the body out in pieces that end only before one (package/docx-pieces.ts), so a list is never cut.
 */
function startsAt(starts: Set<FileChild> | undefined, out: readonly FileChild[], first: number): void {
  const block = out[first];
  if (starts && block) starts.add(block);
}

const NUMBERED_ELEMENTS: Record<ParagraphRole | 'title', string> = {
  paragraph: 'paragraphs',
  heading: 'headings',
  code: 'code blocks',
  list: 'paragraphs',
  quote: 'quotes',
  cell: 'table cells',
  footnote: 'footnotes',
  term: 'definition terms',
  definition: 'definitions',
  title: 'the title block',
};

/** Languages Word reads from w:lang's eastAsia and bidi attributes rather than val alone. */
const EAST_ASIAN = /^(?:zh|ja|ko)\b/i;
const BIDI = /^(?:ar|he|fa|ur|yi|ps|sd|ug|dv)\b/i;

/** w:lang for a BCP 47 tag: val always, and the script-specific attribute Word reads for East Asian and RTL text. */
export function runLanguage(lang: string): { value: string; eastAsia?: string; bidirectional?: string } {
  return {
    value: lang,
    ...(EAST_ASIAN.test(lang) ? { eastAsia: lang } : {}),
    ...(BIDI.test(lang) ? { bidirectional: lang } : {}),
  };
}

/** A BCP 47 language tag as w:lang takes it (`fr`, `de-DE`, `zh-Hant-TW`). */
export function isLanguageTag(value: string): boolean {
  return /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/.test(value);
}

/** Built-in look of a quote when the mapping names no (existing) quote style: a bar on the left, italic grey text. */
const QUOTE_FALLBACK = {
  border: { left: { style: BorderStyle.SINGLE, size: 12, color: 'A0A0A0', space: 8 } },
};

/** Built-in look of a code block when no code style is mapped: light grey shading, a little space around. */
export const CODE_FALLBACK = {
  shading: { type: ShadingType.CLEAR, color: 'auto', fill: 'F2F2F2' },
  // Single-spaced whatever the template's Normal says: 9 pt code at a thesis's 1.5 or 2 lines reads as gaps.
  spacing: { before: 120, after: 120, line: 240, lineRule: LineRuleType.AUTO },
};
