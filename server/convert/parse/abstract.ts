import type { Nodes, Root, Yaml } from 'mdast';
import { isScalar, parse as parseYaml, parseDocument } from 'yaml';

// The front matter's `abstract` is markdown of its own: parsed with the document (parse/index.ts), so that the passes
// reading references and citations (and the warnings of syntax left as text) see its text as they see the body's
// (docs/front-matter.md; docs/captions-references.md). compile/abstract.ts prints the tree parsed here.

/** Longest abstract read (characters of its markdown): an abstract is a page at most, not a second document. */
export const MAX_ABSTRACT = 20_000;

/** The abstract parsed with the document: its tree (lines those of the file) and the markdown its offsets index. */
export interface ParsedAbstract {
  tree: Root;
  source: string;
}

declare module 'mdast' {
  interface YamlData {
    /** The front matter's `abstract`, parsed (parse/abstract.ts). */
    abstract?: ParsedAbstract;
  }
}

/** The front matter `abstract` as markdown text, if it is one. */
export function abstractText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim().slice(0, MAX_ABSTRACT);
  return text === '' ? undefined : text;
}

/**
 * The front matter's abstract as compile/abstract.ts prints it (the same YAML reading as the front matter's), and the
 * file line of its first line: the `abstract:` key's, or the next where the value is a block (`|`, `>`).
 */
export function abstractOf(yaml: Yaml): { text: string; line: number } | undefined {
  if (!yaml.value.includes('abstract')) return undefined;
  let record: unknown;
  try {
    record = parseYaml(yaml.value, { maxAliasCount: 100, logLevel: 'error' });
  } catch {
    return undefined;
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return undefined;
  const text = abstractText((record as Record<string, unknown>).abstract);
  if (text === undefined) return undefined;
  // The value's own line: a block scalar's text starts on the line after its indicator.
  const node = parseDocument(yaml.value, { logLevel: 'silent' }).get('abstract', true);
  const at = isScalar(node) ? (node.range?.[0] ?? 0) : 0;
  const block = isScalar(node) && (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED');
  const valueLine = yaml.value.slice(0, at).split('\n').length + (block ? 1 : 0);
  return { text, line: (yaml.position?.start.line ?? 1) + valueLine };
}

/** Moves every position of a tree `by` lines down. */
export function shiftLines(tree: Nodes, by: number): void {
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.position) {
      node.position.start.line += by;
      node.position.end.line += by;
    }
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
}
