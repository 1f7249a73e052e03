// The markdown dialect (issue 33, item 7; docs/api-extensions.md): GFM (SPEC.md's, the default) or pandoc's markdown,
// where the two disagree: in pandoc's a single tilde is subscript (`H~2~O`), in GFM strikethrough.
import { parse as parseYaml } from 'yaml';

export const DIALECTS = ['gfm', 'pandoc'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** Whether `value` names a dialect. */
export function isDialect(value: unknown): value is Dialect {
  return typeof value === 'string' && (DIALECTS as readonly string[]).includes(value);
}

/** The key of the front matter that names the dialect (`markdown: pandoc`). */
export const DIALECT_KEY = 'markdown';

/** What the front matter says of the dialect: the one it names, or a warning with its line for a value that names none. */
export interface FrontMatterDialect {
  dialect?: Dialect;
  warning?: { text: string; line: number };
}

/**
 * The dialect named by the front matter of `source` (YAML between `---` lines at the very top, its closing fence
 * already `---`: index.ts normalizes it). Front matter that YAML cannot read names none (compile warns of it).
 */
export function frontMatterDialect(source: string): FrontMatterDialect {
  if (!source.startsWith('---')) return {};
  const lines = source.split('\n', 2000);
  if (!/^---[ \t\r]*$/.test(lines[0] ?? '')) return {};
  const end = lines.findIndex((line, i) => i > 0 && /^---[ \t\r]*$/.test(line));
  if (end < 0) return {};
  const keyLine = lines.findIndex((line, i) => i > 0 && i < end && /^markdown[ \t]*:/.test(line));
  if (keyLine < 0) return {};
  let data: unknown;
  try {
    data = parseYaml(lines.slice(1, end).join('\n'), { maxAliasCount: 100, logLevel: 'error' });
  } catch {
    return {};
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data) || !(DIALECT_KEY in data)) return {};
  const value = (data as Record<string, unknown>)[DIALECT_KEY];
  if (isDialect(value)) return { dialect: value };
  const shown = typeof value === 'string' ? `"${value.slice(0, 40)}"` : JSON.stringify(value);
  return {
    warning: {
      text: `invalid_front_matter: markdown must be gfm or pandoc, not ${shown.slice(0, 60)} (gfm used)`,
      line: keyLine + 1,
    },
  };
}
