import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkFrontmatter from 'remark-frontmatter';
import type { Root } from 'mdast';
import { boundNesting } from './compile/flatten.ts';
import { measure, type ConversionStats } from './compile/stats.ts';

type Transform = (tree: Root) => Root | undefined | void;
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

/** A parsed document: its tree (nesting bounded), and its stats, counted on the tree as written. */
export interface ParsedMarkdown {
  tree: Root;
  stats: ConversionStats;
  /** The deepest list nesting of the markdown as written. */
  maxListDepth: number;
}

/** Parses markdown (CommonMark + GFM + YAML front matter) into an mdast tree, safely for any nesting depth. */
export function parseMarkdown(markdown: string): ParsedMarkdown {
  const tree = processor.parse(markdown);
  const { stats, maxListDepth } = measure(tree);
  boundNesting(tree);
  for (const transform of transforms) transform(tree);
  return { tree, stats, maxListDepth };
}
