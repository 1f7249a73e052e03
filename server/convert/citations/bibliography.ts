import { parse as parseYaml } from 'yaml';
import { ConvertInputError } from '../errors.ts';

/** A bibliography as a conversion is given it: its text, and its format when the caller knows it. */
export interface BibliographyInput {
  text: string;
  /** `bibtex` (BibLaTeX too), `csl-json` or `csl-yaml`; absent: sniffed from the text (sniffFormat). */
  format?: BibliographyFormat;
  /** Its file's name as the user gave it (`docwright convert --bibliography FILE`), said in its refusals. */
  name?: string;
}

export const BIBLIOGRAPHY_FORMATS = ['bibtex', 'csl-json', 'csl-yaml'] as const;
export type BibliographyFormat = (typeof BIBLIOGRAPHY_FORMATS)[number];

/** Bounds of what a conversion reads as a bibliography and a style (docs/captions-references.md, "Limits"). */
export const CITATION_LIMITS = {
  /** Characters of a bibliography (a Zotero export of 3,000 entries with abstracts is about 2 MB). */
  bibliographyChars: 4 * 1024 * 1024,
  /** Entries of a bibliography. */
  entries: 10_000,
  /** Characters of a CSL style (APA's, the longest common one, is 66 KB). */
  styleChars: 512 * 1024,
} as const;

/** A CSL-JSON item: an id and the fields citeproc reads. */
export type CslItem = Record<string, unknown> & { id: string };

/** The format of a bibliography's text: CSL JSON starts with `[` or `{`, BibTeX has `@type{`, else CSL YAML. */
export function sniffFormat(text: string): BibliographyFormat {
  const start = text.trimStart();
  if (start.startsWith('[') || start.startsWith('{')) return 'csl-json';
  // A line's start, its spaces and tabs only (`^\s*` under /m scanned every run of blank lines again from each line).
  if (/(?:^|\n)[ \t]*@[A-Za-z]+[ \t]*[{(]/.test(text)) return 'bibtex';
  return 'csl-yaml';
}

/** The format a bibliography file's extension names (`.bib`, `.bibtex`, `.json`, `.yaml`/`.yml`), if any. */
export function formatOfPath(path: string): BibliographyFormat | undefined {
  const ext = /\.([A-Za-z]+)$/.exec(path)?.[1]?.toLowerCase();
  if (ext === 'bib' || ext === 'bibtex' || ext === 'biblatex') return 'bibtex';
  if (ext === 'json') return 'csl-json';
  if (ext === 'yaml' || ext === 'yml') return 'csl-yaml';
  return undefined;
}

function refuse(message: string): ConvertInputError {
  return new ConvertInputError('bibliography_invalid', message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A date as CSL YAML lets people write it (`2020`, `2020-05-01`) in CSL JSON's `date-parts`; others kept. */
function cslDate(value: unknown): unknown {
  if (typeof value === 'number') return { 'date-parts': [[value]] };
  if (value instanceof Date)
    return { 'date-parts': [[value.getUTCFullYear(), value.getUTCMonth() + 1, value.getUTCDate()]] };
  if (typeof value === 'string' && /^\d{4}(?:-\d{1,2}(?:-\d{1,2})?)?$/.test(value))
    return { 'date-parts': [value.split('-').map(Number)] };
  return value;
}

const DATE_FIELDS = ['issued', 'accessed', 'event-date', 'original-date', 'submitted'];

/** CSL items from parsed CSL JSON or YAML (a list, or a mapping holding `references`), each checked for an id. */
export function cslItems(data: unknown, what: string): CslItem[] {
  const list = isRecord(data) && Array.isArray(data.references) ? data.references : data;
  if (!Array.isArray(list)) throw refuse(`${what} is not a list of references`);
  if (list.length > CITATION_LIMITS.entries)
    throw refuse(`${what} has ${list.length} entries, more than ${CITATION_LIMITS.entries}`);
  return list.map((entry: unknown, k) => {
    if (!isRecord(entry) || (typeof entry.id !== 'string' && typeof entry.id !== 'number'))
      throw refuse(`${what}: entry ${k + 1} has no id`);
    const item: CslItem = { ...entry, id: String(entry.id) };
    for (const field of DATE_FIELDS) if (field in item) item[field] = cslDate(item[field]);
    return item;
  });
}

/** The first line of an error's message, for a one-sentence refusal. */
function reason(error: unknown): string {
  if (error instanceof RangeError) return 'it nests too deeply';
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? 'unreadable').replace(/:\s*$/, '');
}

/** Reads a bibliography into CSL items; a bibliography that cannot be read, or is too large, is refused (bibliography_invalid). */
export async function readBibliography(
  input: BibliographyInput,
  what = input.name === undefined ? 'the bibliography' : `the bibliography ${input.name}`,
): Promise<CslItem[]> {
  if (input.text.length > CITATION_LIMITS.bibliographyChars)
    throw refuse(
      `${what} is ${(input.text.length / 1024 / 1024).toFixed(1)} MB, more than ${CITATION_LIMITS.bibliographyChars / 1024 / 1024} MB`,
    );
  const format = input.format ?? sniffFormat(input.text);
  if (format === 'csl-json') {
    let data: unknown;
    try {
      data = JSON.parse(input.text);
    } catch (error) {
      throw refuse(`${what} is not valid CSL JSON (${reason(error)})`);
    }
    return cslItems(data, what);
  }
  if (format === 'csl-yaml') {
    let data: unknown;
    try {
      data = parseYaml(input.text, { maxAliasCount: 100, logLevel: 'error' });
    } catch (error) {
      throw refuse(`${what} is not valid CSL YAML (${reason(error)})`);
    }
    return cslItems(data, what);
  }
  // BibTeX: the entries are counted before they are parsed: every `@type{`, wherever it stands (BibTeX reads an entry
  // anywhere, so 600,000 on one line were parsed for 20 s before the count after parsing refused them).
  const entries = input.text.match(/@[A-Za-z]+[ \t\r\n]*[{(]/g)?.length ?? 0;
  if (entries > CITATION_LIMITS.entries)
    throw refuse(`${what} has ${entries} entries, more than ${CITATION_LIMITS.entries}`);
  const { plugins } = await import('./citation-js.ts').then((m) => m.citationJs());
  let data: unknown;
  try {
    // The options citation-js's types call required have defaults.
    const options = { forceType: '@biblatex/text', generateGraph: false } as Parameters<typeof plugins.input.chain>[1];
    data = plugins.input.chain(input.text, options);
  } catch (error) {
    throw refuse(`${what} is not valid BibTeX (${reason(error)})`);
  }
  return cslItems(data, what).map((item) => {
    // BibTeX's key is the citation key; citation-js keeps it as `citation-key` and the id.
    const key = item['citation-key'];
    return bibtexTexts(typeof key === 'string' ? { ...item, id: key } : item);
  });
}

/**
 * The genre citation-js gives a BibTeX entry from its type (`@phdthesis` → `phdthesis`, `@mastersthesis` → `mathesis`,
 * `@techreport` → `techreport`), as pandoc reads it: a thesis's kind in words, the other types none (the raw type is no
 * text a reader should see: "[phdthesis]", "Techreport SP 800-999"). A genre the file writes (`type = {…}`) stays.
 */
const BIBTEX_GENRES: Record<string, string | undefined> = {
  phdthesis: 'PhD thesis',
  mathesis: "Master's thesis",
  mastersthesis: "Master's thesis",
  techreport: undefined,
  report: undefined,
  thesis: undefined,
  manual: undefined,
  booklet: undefined,
  unpublished: undefined,
  misc: undefined,
};

/** TeX's logos, as their names (pandoc's reading); longest first. */
const TEX_LOGOS: [RegExp, string][] = [
  [/\\LaTeXe(?![A-Za-z])/g, 'LaTeX2e'],
  [/\\(XeLaTeX|LuaLaTeX|LaTeX|BibTeX|XeTeX|LuaTeX|ConTeXt|TeX)/g, '$1'],
];

/** A BibTeX entry's CSL item with its genre as pandoc reads it and TeX commands left in its texts as their names. */
function bibtexTexts(item: CslItem): CslItem {
  const out: CslItem = { ...item };
  const genre = typeof out.genre === 'string' ? out.genre.trim().toLowerCase() : undefined;
  if (genre !== undefined && genre in BIBTEX_GENRES) {
    const words = BIBTEX_GENRES[genre];
    if (words === undefined) delete out.genre;
    else out.genre = words;
  }
  for (const [name, value] of Object.entries(out))
    if (typeof value === 'string' && value.includes('\\')) {
      // `{\TeX}book` → `TeXbook`; another command (`\foo`) its name, as pandoc prints an unknown one's argument.
      let text = value;
      for (const [pattern, words] of TEX_LOGOS) text = text.replace(pattern, words);
      out[name] = text.replace(/\\([A-Za-z]+)/g, '$1');
    }
  return out;
}
