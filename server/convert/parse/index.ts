import { unified, type Processor } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkFrontmatter from 'remark-frontmatter';
import remarkMath from 'remark-math';
import type { Nodes, Root } from 'mdast';
import type { Construct, Extension as SyntaxExtension } from 'micromark-util-types';
import { combineExtensions } from 'micromark-util-combine-extensions';
import { gfmAutolinkLiteral } from 'micromark-extension-gfm-autolink-literal';
import { gfmFootnote } from 'micromark-extension-gfm-footnote';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import { defList } from 'micromark-extension-definition-list';
// Its module alone: the package's index declares its nodes into mdast's content maps (handlers/definition-list.ts).
import { defListFromMarkdown } from 'mdast-util-definition-list/lib/from-markdown.js';
import { boundNesting } from './flatten.ts';
import { rawHtmlToMdast } from './raw-html.ts';
import { measure, type ConversionStats } from './stats.ts';
import { WarningList, type WarningDetail } from '../warning-list.ts';
import { targetedAutolinks } from './autolink-targeted.ts';
import { parseInChunks } from './chunks.ts';
import { texPageBreaks } from './page-breaks.ts';
import { tableColumnWeights } from './table-widths.ts';
import { displayMathFromMarkdown, pandocMathText } from './math.ts';
import { attributeBlocks } from './attributes.ts';
import { leftoverSyntax } from './leftover-syntax.ts';
import { fencedDivs, MAX_DIV_NESTING } from './fenced-divs.ts';
import { frontMatterDialect, type Dialect } from './dialect.ts';
import { inlineNoteFromMarkdown, inlineNotes, inlineNoteSyntax } from './inline-notes.ts';
import { scriptsFromMarkdown, subscriptSyntax, superscriptSyntax } from './scripts.ts';

export { DIALECTS, isDialect, type Dialect } from './dialect.ts';
import { captionSyntax, figureCaptions } from './captions.ts';
import { abstractOf, shiftLines } from './abstract.ts';
import { crossReferences } from './references.ts';
import { lineBlocks } from './line-blocks.ts';
import { tildeDefinitions } from './definition-markers.ts';
import { htmlComments } from './html-comments.ts';

type Transform = (tree: Root) => Root | undefined;
interface FromMarkdownExtension {
  transforms?: Transform[];
  [key: string]: unknown;
}
type Extensions = (FromMarkdownExtension | Extensions)[];

/**
 * The parser: CommonMark, GFM, YAML front matter, TeX math (math.ts: pandoc's rule for `$` in text), and the
 * extensions of pandoc's markdown (pandocSyntax) of every construct, GFM's dialect.
 */
function newProcessor(): Processor<Root> {
  const made = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ['yaml']).use(remarkMath);
  made.freeze();
  const data = made.data() as { micromarkExtensions?: SyntaxExtension[]; fromMarkdownExtensions?: Extensions };
  const math = data.micromarkExtensions?.[2];
  if (data.micromarkExtensions?.length !== 3 || !math?.flow || !math.text?.[36] || !data.fromMarkdownExtensions)
    throw new Error('remark-gfm, remark-frontmatter and remark-math no longer add the extensions Docwright expects');
  math.text = { 36: pandocMathText };
  data.fromMarkdownExtensions.push(displayMathFromMarkdown, scriptsFromMarkdown, inlineNoteFromMarkdown);
  // pandocSyntax with every construct, in GFM's dialect.
  data.micromarkExtensions.push(combineExtensions([superscriptSyntax, inlineNoteSyntax]));
  return made;
}
const processor = newProcessor();

/**
 * Tree transforms of the extensions (GFM's autolink literals) walk the tree recursively, so they would overflow the
 * stack on a 10,000-deep tree. They are taken out of the parser and run after the nesting is bounded.
 */
const transforms: Transform[] = [];
function withoutTransforms(list: Extensions): Extensions {
  return list.map((ext) => {
    if (Array.isArray(ext)) return withoutTransforms(ext);
    if (!ext.transforms) return ext;
    transforms.push(...ext.transforms);
    const { transforms: _moved, ...rest } = ext;
    return rest;
  });
}
// Attachers (remark-gfm's among them) ran when the processor froze; their extensions are edited in place.
const extensions = (processor.data() as { fromMarkdownExtensions?: Extensions }).fromMarkdownExtensions ?? [];
extensions.splice(0, extensions.length, ...withoutTransforms(extensions));
if (transforms.length === 0) throw new Error('remark-gfm no longer has tree transforms where Docwright expects them');

// GFM's syntax only where the text can hold it. micromark tries each construct wherever its first character is, and
// GFM's email autolink literals start at any letter or digit: so with GFM a 9 KB document tokenizes in twice the
// time of CommonMark alone (5.3 -> 12.7 ms), the email literals and tables (tried at every line) most of it. A
// construct that cannot complete without a character the text lacks is left out of that text's parser: the events
// it would have made are none, and its failed tries only split data that micromark joins again, so the tree is the
// same (test/convert/parse-needs.test.ts: the spec examples and random documents of the characters that matter).
/** What a GFM construct cannot complete without, in the text (micromark-extension-gfm-* 2.x). */
const NEEDS = {
  /** An email literal consumes an `@` (and mailto:/xmpp: ones are email literals with a prefix). */
  email: (text: string) => text.includes('@'),
  www: (text: string) => /www\./i.test(text),
  protocol: (text: string) => /https?:\/\//i.test(text),
  /** A call or a definition starts `[^`. */
  footnote: (text: string) => text.includes('[^'),
  strikethrough: (text: string) => text.includes('~'),
  /** A delimiter row holds a `|`, or a colon next to a dash (`a` over `:-` is a table). */
  table: (text: string) => /\||:-|-:/.test(text),
  /** TeX math (math.ts), inline or fenced, starts with a `$`. */
  math: (text: string) => text.includes('$'),
  /** Superscript and inline notes (scripts.ts, inline-notes.ts) start with a `^` (subscript is strikethrough's `~`). */
  caret: (text: string) => text.includes('^'),
} as const;
type Need = keyof typeof NEEDS;
const NEED_NAMES = Object.keys(NEEDS) as Need[];
/** The autolink literal constructs by their names in micromark-extension-gfm-autolink-literal. */
const AUTOLINK_NEED: Record<string, Need> = {
  emailAutolink: 'email',
  wwwAutolink: 'www',
  protocolAutolink: 'protocol',
};

/**
 * GFM's syntax (as micromark-extension-gfm combines it, in its order) with only the constructs `needed`; in pandoc's
 * dialect strikethrough takes two tildes only (one is subscript's).
 */
function gfmSyntax(needed: ReadonlySet<Need>, dialect: Dialect): SyntaxExtension {
  const autolink: SyntaxExtension = { text: {} };
  for (const [code, value] of Object.entries(gfmAutolinkLiteral().text ?? {})) {
    const constructs: readonly Construct[] = value === undefined ? [] : Array.isArray(value) ? value : [value];
    const list = constructs.filter((construct) => {
      const need = AUTOLINK_NEED[construct.name ?? ''];
      if (!need)
        throw new Error(
          `micromark-extension-gfm-autolink-literal has an unknown construct ${construct.name ?? '(unnamed)'}`,
        );
      return needed.has(need);
    });
    if (list.length > 0 && autolink.text) autolink.text[Number(code)] = list;
  }
  return combineExtensions([
    autolink,
    ...(needed.has('footnote') ? [gfmFootnote()] : []),
    ...(needed.has('strikethrough') ? [gfmStrikethrough({ singleTilde: dialect === 'gfm' })] : []),
    ...(needed.has('table') ? [gfmTable()] : []),
    gfmTaskListItem(),
  ]);
}

/**
 * pandoc's syntax beyond GFM's, with only the constructs `needed`: inline notes and superscript in both dialects (GFM
 * reads a caret as text), subscript in pandoc's (GFM's single tilde is strikethrough).
 */
function pandocSyntax(needed: ReadonlySet<Need>, dialect: Dialect): SyntaxExtension {
  return combineExtensions([
    // combineExtensions puts a later extension's constructs first: an inline note is tried before a superscript.
    ...(needed.has('caret') ? [superscriptSyntax, inlineNoteSyntax] : []),
    ...(needed.has('strikethrough') && dialect === 'pandoc' ? [subscriptSyntax] : []),
  ]);
}

/**
 * A parser like `processor` with GFM's syntax cut to `needed` (remark-gfm's own extension is the first), math and
 * pandoc's syntax (the last) too, in `dialect`; with `definitions`, pandoc's definition lists
 * (micromark-extension-definition-list), which GFM reads as paragraphs.
 */
function processorWith(
  needed: ReadonlySet<Need>,
  dialect: Dialect,
  definitions = dialect === 'pandoc',
): Processor<Root> {
  const variant = newProcessor();
  const data = variant.data() as { micromarkExtensions?: SyntaxExtension[]; fromMarkdownExtensions?: Extensions };
  if (!data.micromarkExtensions || !data.fromMarkdownExtensions) throw new Error('the parser has no extensions');
  data.micromarkExtensions.splice(0, 1, gfmSyntax(needed, dialect));
  data.micromarkExtensions.splice(3, 1, pandocSyntax(needed, dialect));
  if (!needed.has('math')) data.micromarkExtensions.splice(2, 1);
  data.fromMarkdownExtensions.splice(0, data.fromMarkdownExtensions.length, ...extensions);
  if (definitions) {
    data.micromarkExtensions.push(defList);
    data.fromMarkdownExtensions.push(defListFromMarkdown);
  }
  return variant;
}

/** The GFM and math constructs `markdown` can hold (NEEDS); math only when asked for. */
export function gfmNeeds(markdown: string, math = true): Set<Need> {
  return new Set(NEED_NAMES.filter((need) => (need !== 'math' || math) && NEEDS[need](markdown)));
}

const variants = new Map<string, Processor<Root>>();
/**
 * The parser for `markdown`: the constructs it can hold (all of them in GFM's dialect: the usual processor); in
 * pandoc's dialect its definition lists where the text has a `:` at all.
 */
function processorFor(markdown: string, options: ParseOptions): Processor<Root> {
  const needed = gfmNeeds(markdown, options.math);
  const dialect = options.dialect ?? 'gfm';
  const definitions = dialect === 'pandoc' && markdown.includes(':');
  if (needed.size === NEED_NAMES.length && dialect === 'gfm') return processor;
  const key = `${dialect}${definitions ? ' definitions' : ''}: ${[...needed].join(' ')}`;
  let variant = variants.get(key);
  if (!variant) {
    variant = processorWith(needed, dialect, definitions);
    variants.set(key, variant);
  }
  return variant;
}

/** The same transforms, GFM's autolink literals visiting only the text that could hold one (the same tree, faster). */
const targeted: Transform[] = transforms.map((t) =>
  t.name === 'transformGfmAutolinkLiterals' ? targetedAutolinks(t) : t,
);

/** A parsed document: its tree (nesting bounded), and its stats, counted on the tree as written. */
export interface ParsedMarkdown {
  tree: Root;
  stats: ConversionStats;
  /** The deepest list nesting of the markdown as written. */
  maxListDepth: number;
  /** What parsing could not keep as written (raw HTML it printed differently or dropped). */
  warnings: string[];
  /** The same warnings with their first source line and count. */
  warningDetails: WarningDetail[];
  /** The dialect it was read in (the request's, else the front matter's, else GFM). */
  dialect: Dialect;
}

/** A line that opens or closes YAML front matter as remark-frontmatter sees it: the fence, then spaces or tabs. */
function isFence(line: string, fence: string): boolean {
  return line.startsWith(fence) && !/[^ \t\r]/.test(line.slice(fence.length));
}

/**
 * Front matter may close with `...` (YAML's document-end marker, as pandoc accepts); remark-frontmatter knows only
 * `---`. The first closing line of either kind is rewritten to `---` (same length, so positions hold).
 */
export function normalizeFrontMatterFence(markdown: string): string {
  let end = markdown.indexOf('\n');
  if (end < 0 || !isFence(markdown.slice(0, end), '---')) return markdown;
  for (let start = end + 1; start < markdown.length; start = end + 1) {
    end = markdown.indexOf('\n', start);
    if (end < 0) end = markdown.length;
    const line = markdown.slice(start, end);
    if (isFence(line, '---')) return markdown;
    if (isFence(line, '...')) return `${markdown.slice(0, start)}---${markdown.slice(start + 3)}`;
  }
  return markdown;
}

/** Documents from this length are parsed in pieces of at least CHUNK_LENGTH characters (chunks.ts). */
const CHUNKED_FROM = 32 * 1024;
const CHUNK_LENGTH = 4 * 1024;
let pandocProcessor: Processor<Root> | undefined;
/** The tree of the whole markdown parsed with every construct (the proof in test/convert/parse-needs.test.ts). */
export function parseWithEveryConstruct(markdown: string, dialect: Dialect = 'gfm'): Root {
  if (dialect === 'gfm') return processor.parse(markdown);
  pandocProcessor ??= processorWith(new Set(NEED_NAMES), 'pandoc');
  return pandocProcessor.parse(markdown);
}

/** What parsing is asked for beyond CommonMark and GFM. */
export interface ParseOptions {
  /** TeX math: `$…$`, `$$…$$` and the `$$` fence (math.ts); false: dollars are text, as GFM reads them. */
  math: boolean;
  /**
   * The markdown dialect (dialect.ts): 'gfm' (SPEC.md's, with the extensions GFM gives no other meaning) or 'pandoc'
   * (also `~sub~`, and pandoc's other readings where GFM has its own). Absent: parseMarkdown takes the front matter's
   * `markdown:`, else 'gfm'; every step below it sees the dialect decided.
   */
  dialect?: Dialect;
  /** HTML comments kept for Word comments (html-comments.ts); absent: dropped with the raw HTML. */
  comments?: boolean;
  /**
   * Every image alone in its paragraph with a caption is a figure (the conversion embeds images); absent: only those
   * labelled `{#fig:…}` (captions.ts figureCaptions gives their captions' text to the passes after).
   */
  implicitFigures?: boolean;
}
const MATH_ON: ParseOptions = { math: true };

/**
 * The mdast tree of the markdown as remark parses it, whole or, for a long document, in pieces joined into the same
 * tree. `chunkLength` forces the pieces (the proof in test/convert/parse-chunks.test.ts cuts wherever it may).
 */
export function parseTree(markdown: string, chunkLength?: number, options: ParseOptions = MATH_ON): Root {
  const parseWhole = (text: string): Root => processorFor(text, options).parse(text);
  if (chunkLength === undefined && markdown.length < CHUNKED_FROM) return parseWhole(markdown);
  return parseInChunks(markdown, parseWhole, chunkLength ?? CHUNK_LENGTH) ?? parseWhole(markdown);
}

/**
 * Parses markdown (CommonMark + GFM + YAML front matter + math, pandoc's extensions in its dialect) into an mdast tree,
 * safely for any nesting depth. The dialect asked for wins over the front matter's.
 */
export function parseMarkdown(markdown: string, options: ParseOptions = MATH_ON): ParsedMarkdown {
  return parseDocumentText(markdown, options, false);
}

/** parseMarkdown's work; `nested`: the markdown is a front matter abstract (whose own front matter has none). */
function parseDocumentText(markdown: string, options: ParseOptions, nested: boolean): ParsedMarkdown {
  const source = normalizeFrontMatterFence(markdown);
  const warnings = new WarningList();
  const named = frontMatterDialect(source);
  if (named.warning) warnings.add(named.warning.text, named.warning.line);
  const dialect = options.dialect ?? named.dialect ?? 'gfm';
  const tree = parseTree(source, undefined, { ...options, dialect });
  if (source.includes('^['))
    inlineNotes(tree, (line) => {
      warnings.add('note_in_note: a note inside a note is printed in parentheses (Word has no notes in notes)', line);
    });
  for (const line of texPageBreaks(tree, source)) warnings.add('page_break_in_note: a note has no page to break', line);
  tableColumnWeights(tree, source);
  if (dialect === 'pandoc') {
    lineBlocks(tree, source);
    for (const line of tildeDefinitions(tree, source))
      warnings.add("syntax_as_text: ~ definition (pandoc's ~ marker is not read; a definition starts with :)", line);
  }
  // Fenced divs first: a fence line that ends a caption's or an attribute block's paragraph (no blank line between) is
  // the div's end, not their text.
  const fences = fencedDivs(tree, source);
  for (const line of fences.unclosed)
    warnings.add('fence_unclosed: a ::: div is never closed (it takes the rest)', line);
  for (const line of fences.unmatched) warnings.add('fence_unmatched: a ::: with no div open stays text', line);
  for (const line of fences.tooDeep)
    warnings.add(`div_depth_exceeded: divs nest at most ${MAX_DIV_NESTING} deep (its content kept)`, line);
  attributeBlocks(tree, source);
  for (const { text, line } of captionSyntax(tree, source))
    warnings.add(`syntax_as_text: ${text} (a table caption with no table next to it)`, line);
  figureCaptions(tree, source, options.implicitFigures !== true);
  const { stats, maxListDepth } = measure(tree);
  boundNesting(tree);
  for (const transform of targeted) transform(tree);
  // CommonMark ends an HTML comment block only at `-->`: one never closed takes the rest of its container, which prints
  // nothing (as a browser shows nothing); said, with its line, so the text after it does not vanish unnoticed.
  if (source.includes('<!--'))
    for (const line of unclosedComments(tree))
      warnings.add('comment_unclosed: an HTML comment <!-- never closed with --> hides all that follows it', line);
  if (options.comments === true) htmlComments(tree, source);
  // After GFM's transforms: URLs in raw HTML text are not links, as in a browser.
  const added = rawHtmlToMdast(tree, (warning, line) => warnings.add(warning, line));
  // After GFM's transforms: an email address is a link by then, and a link's text holds no reference.
  crossReferences(tree, source);
  const first = tree.children[0];
  const abstract = !nested && first?.type === 'yaml' ? abstractOf(first) : undefined;
  if (first?.type === 'yaml' && abstract) {
    // The abstract's markdown, parsed as the document's and placed at its lines in the front matter.
    const parsed = parseDocumentText(abstract.text, { ...options, dialect }, true);
    shiftLines(parsed.tree, abstract.line - 1);
    for (const detail of parsed.warningDetails)
      warnings.add(
        detail.warning,
        detail.line === null ? abstract.line : detail.line + abstract.line - 1,
        detail.count,
      );
    first.data = { ...first.data, abstract: { tree: parsed.tree, source: abstract.text } };
  }
  for (const key of Object.keys(stats) as (keyof ConversionStats)[]) stats[key] += added[key];
  return { tree, stats, maxListDepth, warnings: warnings.warnings, warningDetails: warnings.list(), dialect };
}

/** The lines of the HTML comment blocks never closed (`<!--` with no `-->` after it), anywhere in the tree. */
function unclosedComments(tree: Root): number[] {
  const lines: number[] = [];
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'html') {
      const value = node.value.trimStart();
      if (value.startsWith('<!--') && !value.includes('-->')) lines.push(node.position?.start.line ?? 0);
    } else if ('children' in node) for (const child of node.children) stack.push(child);
  }
  return lines.sort((a, b) => a - b);
}

/**
 * Warns, with its line, each piece of pandoc's syntax the conversion left as text (leftover-syntax.ts): run on the tree
 * once every step that reads syntax has (parseMarkdown's cross-references, the citations prepared after it), so what
 * one of them read is no longer text. Adds to `parsed`'s warnings, in place.
 */
export function warnLeftoverSyntax(parsed: ParsedMarkdown, markdown: string, math: boolean): void {
  const source = normalizeFrontMatterFence(markdown);
  const found = leftoverSyntax(parsed.tree, source, math);
  if (found.length === 0) return;
  const warnings = new WarningList();
  warnings.addAll(parsed.warningDetails);
  // A line a step already said is text (a `Table:` with no table, pandoc's `~` marker) is not said twice.
  const said = new Set(parsed.warningDetails.filter((d) => d.warning.startsWith('syntax_as_text:')).map((d) => d.line));
  for (const { text, line, reason } of found)
    if (!said.has(line)) warnings.add(`syntax_as_text: ${text} (${reason})`, line);
  parsed.warnings = warnings.warnings;
  parsed.warningDetails = warnings.list();
}
