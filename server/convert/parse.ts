import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkFrontmatter from 'remark-frontmatter';
import type { Root } from 'mdast';
import { boundNesting } from './compile/flatten.ts';
import { rawHtmlToMdast } from './compile/raw-html.ts';
import { measure, type ConversionStats } from './compile/stats.ts';
import { WarningList, type WarningDetail } from './warning-list.ts';
import { targetedAutolinks } from './autolink-targeted.ts';
import { optimisationsEnabled } from './optimisations.ts';
import { parseInChunks } from './parse-chunks.ts';

type Transform = (tree: Root) => Root | undefined;
interface FromMarkdownExtension {
  transforms?: Transform[];
  [key: string]: unknown;
}
type Extensions = (FromMarkdownExtension | Extensions)[];

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ['yaml']);

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
// Attachers (remark-gfm's among them) run when the processor freezes; their extensions are edited in place after.
processor.freeze();
const extensions = (processor.data() as { fromMarkdownExtensions?: Extensions }).fromMarkdownExtensions ?? [];
extensions.splice(0, extensions.length, ...withoutTransforms(extensions));
if (transforms.length === 0) throw new Error('remark-gfm no longer has tree transforms where Docwright expects them');
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

/** Documents from this length are parsed in pieces of at least CHUNK_LENGTH characters (parse-chunks.ts). */
const CHUNKED_FROM = 32 * 1024;
const CHUNK_LENGTH = 4 * 1024;
const parseWhole = (markdown: string): Root => processor.parse(markdown);

/**
 * The mdast tree of the markdown as remark parses it, whole or, for a long document, in pieces joined into the same
 * tree. `chunkLength` forces the pieces (the proof in test/convert/parse-chunks.test.ts cuts wherever it may).
 */
export function parseTree(markdown: string, chunkLength?: number): Root {
  if (chunkLength === undefined && (!optimisationsEnabled() || markdown.length < CHUNKED_FROM))
    return parseWhole(markdown);
  return parseInChunks(markdown, parseWhole, chunkLength ?? CHUNK_LENGTH) ?? parseWhole(markdown);
}

/** Parses markdown (CommonMark + GFM + YAML front matter) into an mdast tree, safely for any nesting depth. */
export function parseMarkdown(markdown: string): ParsedMarkdown {
  const tree = parseTree(normalizeFrontMatterFence(markdown));
  const { stats, maxListDepth } = measure(tree);
  boundNesting(tree);
  for (const transform of optimisationsEnabled() ? targeted : transforms) transform(tree);
  // After GFM's transforms: URLs in raw HTML text are not links, as in a browser.
  const warnings = new WarningList();
  const added = rawHtmlToMdast(tree, (warning, line) => warnings.add(warning, line));
  for (const key of Object.keys(stats) as (keyof ConversionStats)[]) stats[key] += added[key];
  return { tree, stats, maxListDepth, warnings: warnings.warnings, warningDetails: warnings.list() };
}
