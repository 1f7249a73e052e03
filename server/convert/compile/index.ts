import { AlignmentType, LevelFormat, Paragraph, Table, type FileChild, type INumberingOptions } from 'docx';
import type { Code, Heading, List, ListItem, Nodes, Root, Yaml } from 'mdast';
import type { Math } from 'mdast-util-math';
import { blockquote } from './handlers/blockquote.ts';
import { bibliography, bibliographyAtEnd, citation } from './handlers/citation.ts';
import { hardBreak } from './handlers/break.ts';
import { code } from './handlers/code.ts';
import { definitionList } from './handlers/definition-list.ts';
import { strikethrough } from './handlers/delete.ts';
import { emphasis } from './handlers/emphasis.ts';
import { footnoteReference, noteMarks } from './handlers/footnote-reference.ts';
import { frontMatter } from './handlers/front-matter.ts';
import { heading } from './handlers/heading.ts';
import { fencedDiv } from './handlers/fenced-div.ts';
import { span } from './handlers/span.ts';
import { htmlBlock, htmlInline } from './handlers/html.ts';
import { htmlCommentBlock, htmlCommentInline } from './handlers/html-comment.ts';
import { image, imageReference } from './handlers/image.ts';
import { inlineCode } from './handlers/inline-code.ts';
import { link, linkReference } from './handlers/link.ts';
import { list } from './handlers/list.ts';
import { inlineMath, math } from './handlers/math.ts';
import { MAX_LIST_LEVELS } from '../word-limits.ts';
import { listItem } from './handlers/list-item.ts';
import { paragraph } from './handlers/paragraph.ts';
import { root } from './handlers/root.ts';
import { subscript, superscript } from './handlers/script.ts';
import { strong } from './handlers/strong.ts';
import { table } from './handlers/table.ts';
import { text } from './handlers/text.ts';
import { pageBreak, thematicBreak } from './handlers/thematic-break.ts';
import { crossReference } from './captions.ts';
import type { ConversionStats } from '../parse/stats.ts';
import type { Anchor } from '../parse/html-anchors.ts';
import type { TocRequest } from './toc.ts';
import type { HeadingEntry } from './anchors.ts';
import type { ParsedMarkdown } from '../parse/index.ts';
import type { FencedDiv } from '../parse/fenced-divs.ts';
import type { WarningDetail } from '../warning-list.ts';

import {
  INDENT_STEP,
  State,
  type DocumentProperties,
  type BlockHandler,
  type CompileOptions,
  type InlineHandler,
  type ListDefinition,
  type WordComment,
} from './state.ts';
import type { TitleValues } from './title-block.ts';
import { findStyle } from '../template/styles.ts';
import { frontMatterRecord } from './caption-index.ts';
import { numberSectionsFrontMatter } from './heading-numbers.ts';

export type { DocumentProperties } from './state.ts';

/**
 * Handlers of block nodes, one per mdast node type; `null` marks nodes that print nothing where they stand. No handler
 * imports another: one that hands a node to another's handler is given it here (a list its items', front matter that
 * cannot be read the code block's).
 */
const blockHandlers: Record<string, BlockHandler | null> = {
  root,
  paragraph,
  heading,
  thematicBreak,
  pageBreak,
  fencedDiv: (state, node: FencedDiv) => fencedDiv(state, node, bibliography),
  blockquote,
  // pandoc's dialect: a definition list's terms and definitions, all handled by `definitionList`.
  defList: definitionList,
  defListTerm: null,
  defListDescription: null,
  list: (state, node: List) => list(state, node, listItem),
  listItem: (state, node: ListItem) => listItem(state, node),
  // A ```math fence is display math when the mapping asks for it (element-options.ts), else the code block it is.
  code: (state, node: Code) =>
    node.lang === 'math' && state.options.math === 'dollars_and_fences' ? math(state, node, code) : code(state, node),
  math: (state, node: Math) => math(state, node, code),
  html: htmlBlock,
  htmlComment: htmlCommentBlock,
  table,
  yaml: (state, node: Yaml) => frontMatter(state, node, code),
  // Used through references, or printed as footnotes.
  definition: null,
  footnoteDefinition: null,
  // Only inside tables, handled by `table`.
  tableRow: null,
  tableCell: null,
};

/** Handlers of phrasing nodes. */
const inlineHandlers: Record<string, InlineHandler | null> = {
  text,
  strong,
  emphasis,
  delete: strikethrough,
  inlineCode,
  inlineMath,
  break: hardBreak,
  link,
  linkReference,
  image,
  imageReference,
  footnoteReference,
  html: htmlInline,
  htmlComment: htmlCommentInline,
  superscript,
  subscript,
  span,
  citation,
  anchor: (state, node: Anchor) => state.anchors.bookmark(node, []),
  crossReference,
};

/** What the compiler hands to the packaging step. */
export interface CompiledDocument {
  children: FileChild[];
  /** The blocks that start a block of the markdown's top level (package/docx-pieces.ts ends its pieces before one). */
  starts: ReadonlySet<FileChild>;
  footnotes: Record<number, { children: Paragraph[] }>;
  numbering: INumberingOptions;
  properties: DocumentProperties;
  /** The front matter's title block values, for the template's fields (package/title-fields.ts). */
  titleValues: TitleValues;
  warnings: string[];
  /** The warnings with their first source line and count. */
  warningDetails: WarningDetail[];
  stats: ConversionStats;
  /** The table of contents to write at its marker paragraphs, when the document asks for one. */
  toc?: TocRequest;
  /** Set when a list of figures or tables was written: Word is asked to fill its page numbers on open. */
  updateFields?: true;
  /** The bookmarks of notes' first references, by placeholder id (handlers/footnote-reference.ts). */
  noteMarks: ReadonlyMap<number, number | undefined>;
  /** The heading styles by level (1–6) to number with a multilevel list (package/heading-numbering.ts), if asked. */
  headingNumbering?: (string | undefined)[];
  /** The token kinds of the highlighted code (package/token-styles.ts adds their styles where the template lacks them). */
  tokenKinds: ReadonlySet<string>;
  /** True when the body has landscape divs' section markers (compile/sections.ts) for the packaging to replace. */
  landscape: boolean;
  /** The Word comments (`comments: "word"`), their ids past the template's own. */
  comments: WordComment[];
}

/**
 * The heading the bibliography goes under: the one right before a top-level `::: {#refs}` div, else the document's
 * last block where it is a heading (bibliographyAtEnd). Undefined when nothing prints a bibliography.
 */
function bibliographyHeading(tree: Root, state: State): Heading | undefined {
  const citations = state.citations;
  if (!citations || citations.suppressBibliography || citations.bibliography.length === 0) return undefined;
  const blocks = tree.children.filter((node) => node.type !== 'definition' && node.type !== 'footnoteDefinition');
  const refs = blocks.findIndex((node) => node.type === 'fencedDiv' && node.attributes.id === 'refs');
  const before = refs >= 0 ? blocks[refs - 1] : undefined;
  if (refs >= 0) return before?.type === 'heading' ? before : undefined;
  const last = blocks.at(-1);
  return last?.type === 'heading' ? last : undefined;
}

/** Compiles a parsed document into docx content, with warnings and stats. Pure: no I/O. */
export function toDocx(parsed: ParsedMarkdown, options: CompileOptions): CompiledDocument {
  const { tree, stats, maxListDepth } = parsed;
  const state = new State(blockHandlers, inlineHandlers, options);
  state.warningList.addAll(parsed.warningDetails);
  collectDefinitions(tree, state);
  state.anchors.collect(tree);
  state.bibliographyHeading = bibliographyHeading(tree, state);
  state.headingNumbers.collect(tree, (node) => state.anchors.nameOf(node));
  state.captions.collect(tree, state.anchors, state.definitions, {
    language: options.language,
    implicitFigures: options.images !== undefined,
    numberedChapters: headingOneNumbered(options) || sectionsNumbered(tree, state),
  });
  for (const { warning, line } of [...state.anchors.duplicates, ...state.captions.warnings])
    state.warningList.add(warning, line);
  state.toc.findMarkers(tree);
  state.firstHeading = tree.children.find((node) => node.type === 'heading');
  if (maxListDepth > MAX_LIST_LEVELS) state.warningList.add(`list_depth_exceeded: ${maxListDepth}`);
  const starts = new Set<FileChild>();
  const children = separateTables(state.blocks(tree.children, starts));
  // What follows the top-level blocks starts a block of its own too (docx-pieces.ts may end a piece before it).
  const after = (blocks: FileChild[]): void => {
    if (blocks[0]) starts.add(blocks[0]);
    children.push(...blocks);
  };
  // A document that ends in a heading of its own (pandoc's usual `# References` last) has the bibliography under it.
  const last = tree.children.filter((node) => node.type !== 'definition' && node.type !== 'footnoteDefinition').at(-1);
  after(bibliographyAtEnd(state, last?.type === 'heading'));
  // A page break at the very end: its own paragraph, as there is no block after it to start a page.
  if (state.breakBefore) after([state.pageBreak()]);
  const leftOver = state.anchors.leftOver();
  if (leftOver.length > 0) after([new Paragraph({ children: leftOver })]);
  // Comments after the last paragraph: a paragraph of their own.
  const lastComments = state.takePendingComments();
  if (lastComments.length > 0) after([new Paragraph({ children: lastComments })]);
  for (const [id, definition] of state.footnoteDefinitions) {
    // Referenced nowhere, or only from inside another footnote (Word has no footnotes in footnotes).
    state.line = definition.position?.start.line ?? null;
    if (!state.printedFootnotes.has(id))
      state.warn(`footnote_not_printed: ${definition.label ?? definition.identifier}`);
  }
  // Numbers hang on heading styles: with none mapped, say so rather than number nothing silently.
  if (state.headingNumbers.nothingToNumber() && state.anchors.headings.length > 0)
    state.warningList.add('number_sections_ignored: the template has no heading styles to number');
  const headingNumbering = state.headingNumbers.styleIds();
  return {
    children,
    starts,
    footnotes: state.footnotes,
    numbering: { config: [...state.lists.values()].map(numberingConfig) },
    properties: state.properties,
    titleValues: state.titleValues,
    warnings: state.warnings,
    warningDetails: state.warningList.list(),
    stats,
    noteMarks: noteMarks(state.noteSites),
    tokenKinds: state.tokenKinds,
    landscape: state.landscapeUsed,
    comments: state.comments,
    ...(state.toc.written ? { toc: state.toc.request(tocHeadings(state)) } : {}),
    ...(headingNumbering ? { headingNumbering } : {}),
    ...(state.captions.listed ? { updateFields: true as const } : {}),
  };
}

/**
 * Whether `number_sections` (the front matter's, else the option) numbers the headings with Docwright's own list: then
 * captions are numbered by chapter too (`2.3`), as where the template numbers its Heading 1.
 */
function sectionsNumbered(tree: Root, state: State): boolean {
  const asked = numberSectionsFrontMatter(frontMatterRecord(tree), () => undefined).value ?? state.headingNumbers.asked;
  return asked && state.styles.heading['1'] !== undefined;
}

/** Whether the template's Heading 1 numbers its paragraphs (captions are then numbered by chapter: captions.ts). */
function headingOneNumbered(options: CompileOptions): boolean {
  const id = findStyle(options.templateStyles ?? [], 'heading 1')?.id;
  return id !== undefined && options.numberedStyles?.has(id) === true;
}

/**
 * An empty paragraph between two tables that would otherwise touch (two markdown tables apart, a table then a quote's
 * table): Word and LibreOffice join touching tables into one, as pandoc's writer knows too.
 */
function separateTables(children: FileChild[]): FileChild[] {
  const out: FileChild[] = [];
  for (const child of children) {
    if (child instanceof Table && out.at(-1) instanceof Table) out.push(new Paragraph({}));
    out.push(child);
  }
  return out;
}

/** The headings a table of contents lists: all but one that repeated the title and was not printed. */
function tocHeadings(state: State): HeadingEntry[] {
  const left = state.titleHeading ? state.anchors.nameOf(state.titleHeading) : undefined;
  const listed =
    left === undefined ? state.anchors.headings : state.anchors.headings.filter((h) => h.bookmark !== left);
  const numbers = state.headingNumbers.numbers;
  if (numbers.size === 0) return listed;
  return listed.map((h) => {
    const number = numbers.get(h.bookmark);
    return number === undefined ? h : { ...h, number };
  });
}

/** Collects link and footnote definitions anywhere in the tree, in document order: the first of a label wins. */
function collectDefinitions(tree: Root, state: State): void {
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'definition') {
      const id = node.identifier.toLowerCase();
      if (!state.definitions.has(id)) state.definitions.set(id, node);
    } else if (node.type === 'footnoteDefinition') {
      const id = node.identifier.toLowerCase();
      if (!state.footnoteDefinitions.has(id)) state.footnoteDefinitions.set(id, node);
      else
        state.warningList.add(
          `footnote_not_printed: ${node.label ?? node.identifier} (a second definition of the label)`,
          node.position?.start.line,
        );
    }
    if ('children' in node && node.type !== 'paragraph' && node.type !== 'heading') {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Nodes);
    }
  }
}

const BULLETS = ['\u2022', '\u25E6', '\u25AA'];
const ORDERED_FORMATS = [LevelFormat.DECIMAL, LevelFormat.LOWER_LETTER, LevelFormat.LOWER_ROMAN];

/** Nine levels, Word's maximum, each indented one step more: markdown lists use them all. */
function numberingConfig(def: ListDefinition): INumberingOptions['config'][number] {
  return {
    reference: def.reference,
    levels: Array.from({ length: 9 }, (_, level) => ({
      level,
      format: def.ordered ? (ORDERED_FORMATS[level % 3] ?? LevelFormat.DECIMAL) : LevelFormat.BULLET,
      text: def.ordered ? `%${level + 1}.` : (BULLETS[level % 3] ?? '\u2022'),
      alignment: AlignmentType.LEFT,
      start: level === 0 ? def.start : 1,
      style: { paragraph: { indent: { left: INDENT_STEP * (level + 1), hanging: INDENT_STEP / 2 } } },
    })),
  };
}
