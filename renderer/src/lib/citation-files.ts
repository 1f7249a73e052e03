// Bibliographies and CSL styles given in the app (docs/captions-references.md, "In the app"): dropped with the
// markdown, dropped alone or chosen with the Convert page's button. Each is read and checked here (size, that it is
// one), then sent with the conversion as the API's `bibliography` and `csl` fields; the server reads it in full.

/** The API's bounds (server/convert/citations/bibliography.ts, CITATION_LIMITS; test/renderer checks they agree). */
export const CITATION_FILE_LIMITS = {
  /** Bytes of a bibliography (4 MiB). */
  bibliographyBytes: 4 * 1024 * 1024,
  /** Entries of the bibliographies sent with one document. */
  entries: 10_000,
  /** Bytes of a CSL style (512 KiB). */
  styleBytes: 512 * 1024,
} as const;

/** The server's bundled styles (server/convert/citations/format.ts, BUNDLED_STYLES): `csl: apa` needs no file. */
export const BUNDLED_STYLES = ['apa', 'vancouver', 'harvard1'] as const;

export type BibliographyFormat = 'bibtex' | 'csl-json' | 'csl-yaml';

/** Extensions taken as a bibliography (by format) or a CSL style. */
const EXTENSIONS: Record<string, BibliographyFormat | 'csl'> = {
  bib: 'bibtex',
  bibtex: 'bibtex',
  biblatex: 'bibtex',
  json: 'csl-json',
  yaml: 'csl-yaml',
  yml: 'csl-yaml',
  csl: 'csl',
};

/** The extensions the drop zone and the button take besides markdown and images. */
export const CITATION_EXTENSIONS = Object.keys(EXTENSIONS).map((ext) => `.${ext}`);

const FORMAT_NAMES: Record<BibliographyFormat, string> = {
  bibtex: 'BibTeX',
  'csl-json': 'CSL JSON',
  'csl-yaml': 'CSL YAML',
};

/** What a file is by its name: a bibliography's format, `csl`, or undefined (neither). */
export function citationKind(name: string): BibliographyFormat | 'csl' | undefined {
  const ext = /\.([A-Za-z]+)$/.exec(name)?.[1]?.toLowerCase();
  return ext === undefined ? undefined : EXTENSIONS[ext];
}

/** Whether a file is a bibliography or a CSL style, by its name. */
export function isCitationFile(name: string): boolean {
  return citationKind(name) !== undefined;
}

/** A bibliography read and checked: what is sent, and what the page shows. */
export interface Bibliography {
  /** The file names, for the page ("refs.bib", or "a.bib, b.bib" for several joined). */
  name: string;
  text: string;
  format: BibliographyFormat;
  entries: number;
}

/** A CSL style read and checked. */
export interface CslStyle {
  name: string;
  /** The style's XML. */
  xml: string;
  /** Its `<title>`, when it has one. */
  title: string | undefined;
}

/** What the page shows of a bibliography: "refs.bib · BibTeX, 20 entries". */
export function describeBibliography(bibliography: Bibliography): string {
  const { entries } = bibliography;
  return `${bibliography.name} · ${FORMAT_NAMES[bibliography.format]}, ${String(entries)} entr${entries === 1 ? 'y' : 'ies'}`;
}

/** What the page shows of a style: "vancouver.csl · Vancouver". */
export function describeStyle(style: CslStyle): string {
  return style.title ? `${style.name} · ${style.title}` : style.name;
}

const mb = (bytes: number) => `${String(Math.round(bytes / (1024 * 1024)))} MB`;
const kb = (bytes: number) => `${String(Math.round(bytes / 1024))} KB`;

/** Refuses a file before it is read when it is larger than the API takes. */
export function checkSize(name: string, size: number): void {
  const kind = citationKind(name);
  if (kind === 'csl') {
    if (size > CITATION_FILE_LIMITS.styleBytes)
      throw new Error(`${name} is larger than ${kb(CITATION_FILE_LIMITS.styleBytes)}, the most a CSL style may be.`);
  } else if (size > CITATION_FILE_LIMITS.bibliographyBytes)
    throw new Error(
      `${name} is larger than ${mb(CITATION_FILE_LIMITS.bibliographyBytes)}, the most a bibliography may be.`,
    );
}

const notOne = (name: string, why: string) => new Error(`${name} is not a bibliography: ${why}.`);

/** BibTeX entry types that are no source (`@string`, `@comment`, `@preamble`). */
const NOT_ENTRIES = new Set(['string', 'comment', 'preamble']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The CSL items of parsed CSL JSON or YAML: a list, or a mapping holding `references` (as the server reads them). */
function cslList(name: string, data: unknown): unknown[] {
  const list = isRecord(data) && Array.isArray(data.references) ? data.references : data;
  if (!Array.isArray(list)) throw notOne(name, 'it holds no list of CSL references');
  const missing = list.findIndex((item) => !isRecord(item) || !('id' in item));
  if (missing >= 0) throw notOne(name, `its entry ${String(missing + 1)} has no id`);
  return list;
}

async function parseYaml(text: string): Promise<unknown> {
  // Loaded only when a YAML file or front matter is read: most conversions never need it.
  const { parse } = await import('yaml');
  return parse(text, { maxAliasCount: 100, logLevel: 'error' });
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** The CSL items of a CSL JSON or YAML text, or a sentence saying why it is none. */
async function cslItemsOf(name: string, text: string, format: 'csl-json' | 'csl-yaml'): Promise<unknown[]> {
  let data: unknown;
  try {
    data = format === 'csl-json' ? JSON.parse(text) : await parseYaml(text);
  } catch (error) {
    throw notOne(name, `it is not valid ${FORMAT_NAMES[format]} (${firstLine(error)})`);
  }
  return cslList(name, data);
}

/** Reads a bibliography's text as its extension says (or as the server tells it), counting its entries. */
export async function checkBibliography(name: string, text: string): Promise<Bibliography> {
  checkSize(name, new TextEncoder().encode(text).byteLength);
  const kind = citationKind(name);
  if (kind === 'csl' || kind === undefined) throw notOne(name, 'take a .bib, .json, .yaml or .yml file');
  if (text.includes('\0')) throw notOne(name, 'it is not text');
  let entries: number;
  if (kind === 'bibtex') {
    const types = [...text.matchAll(/^\s*@\s*([A-Za-z]+)\s*[{(]/gm)].map((m) => (m[1] ?? '').toLowerCase());
    entries = types.filter((type) => !NOT_ENTRIES.has(type)).length;
    if (entries === 0) throw notOne(name, 'it has no BibTeX entry (@article{key, …})');
  } else {
    entries = (await cslItemsOf(name, text, kind)).length;
    if (entries === 0) throw notOne(name, 'it has no entries');
  }
  if (entries > CITATION_FILE_LIMITS.entries)
    throw new Error(
      `${name} has ${String(entries)} entries, more than the ${String(CITATION_FILE_LIMITS.entries)} a bibliography may have.`,
    );
  return { name, text, format: kind, entries };
}

/** Reads a CSL style's XML: its root must be CSL's `<style>`. */
export function checkStyle(name: string, xml: string): CslStyle {
  checkSize(name, new TextEncoder().encode(xml).byteLength);
  const doc = new DOMParser().parseFromString(xml, 'application/xml');
  const root = doc.documentElement;
  if (
    doc.getElementsByTagName('parsererror').length > 0 ||
    root.localName !== 'style' ||
    root.namespaceURI !== 'http://purl.org/net/xbiblio/csl'
  )
    throw new Error(`${name} is not a CSL style (its root is not CSL's <style> element); take a .csl file.`);
  const title = root.getElementsByTagNameNS(root.namespaceURI, 'title')[0]?.textContent.trim() ?? '';
  return { name, xml, title: title === '' ? undefined : title };
}

/** Joins several bibliographies into one for the request: BibTeX with BibTeX, CSL (JSON or YAML) into CSL JSON. */
export async function joinBibliographies(list: readonly Bibliography[]): Promise<Bibliography> {
  const [first] = list;
  if (!first) throw new Error('no bibliography to join');
  if (list.length === 1) return first;
  const name = list.map((b) => b.name).join(', ');
  const bibtex = list.filter((b) => b.format === 'bibtex');
  if (bibtex.length === list.length)
    return { name, text: list.map((b) => b.text).join('\n\n'), format: 'bibtex', entries: sum(list) };
  if (bibtex.length > 0)
    throw new Error(
      `${name} mix BibTeX and CSL: the app sends one bibliography, so convert them to one format (or give one file).`,
    );
  const items: unknown[] = [];
  for (const b of list) items.push(...(await cslItemsOf(b.name, b.text, b.format as 'csl-json' | 'csl-yaml')));
  if (items.length > CITATION_FILE_LIMITS.entries)
    throw new Error(
      `${name} have ${String(items.length)} entries together, more than the ${String(CITATION_FILE_LIMITS.entries)} a conversion may have.`,
    );
  return { name, text: JSON.stringify(items), format: 'csl-json', entries: items.length };
}

const sum = (list: readonly Bibliography[]) => list.reduce((n, b) => n + b.entries, 0);

/** What the front matter names: its `bibliography` files and its `csl`. */
export interface CitationNames {
  bibliography: string[];
  csl: string | undefined;
}

/** The `bibliography` and `csl` of a markdown's front matter (a `---` block at its start, as the server reads it). */
export async function frontMatterNames(markdown: string): Promise<CitationNames> {
  const none: CitationNames = { bibliography: [], csl: undefined };
  const block = /^(?:\uFEFF)?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(markdown)?.[1];
  if (block === undefined || !/^(?:bibliography|csl)\s*:/m.test(block)) return none;
  let data: unknown;
  try {
    data = await parseYaml(block);
  } catch {
    // The server warns a front matter YAML cannot read; nothing is named here.
    return none;
  }
  if (!isRecord(data)) return none;
  const files = Array.isArray(data.bibliography) ? data.bibliography : [data.bibliography];
  return {
    bibliography: files.filter((f): f is string => typeof f === 'string' && f.trim() !== '').map((f) => f.trim()),
    csl: typeof data.csl === 'string' && data.csl.trim() !== '' ? data.csl.trim() : undefined,
  };
}

/** A front matter path as it is compared with a dropped file's: slashes forward, no `./`. */
function normalise(path: string): string {
  return path
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/');
}

const baseOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** The dropped file a front matter path names: by its path relative to the markdown, else by its name alone. */
function named<T>(path: string, files: ReadonlyMap<string, T>): T | undefined {
  const wanted = normalise(path);
  const exact = files.get(wanted);
  if (exact !== undefined) return exact;
  const byName = [...files].filter(([p]) => baseOf(p) === baseOf(wanted));
  return byName.length === 1 ? byName[0]?.[1] : undefined;
}

/** Whether a dropped file's path is one the front matter names (by its path, or its name alone). */
export function isNamed(path: string, names: readonly string[]): boolean {
  return names.some((name) => normalise(name) === path || baseOf(normalise(name)) === baseOf(path));
}

/** Which files a conversion sends: dropped with the markdown (by its path relative to it), else the page's. */
export interface CitationChoice<T> {
  bibliography: T[];
  csl: T | undefined;
}

/**
 * Picks the bibliography files and the style for one markdown. The files dropped with it win over the page's (the
 * button's); among them, the ones its front matter names (`bibliography: refs.bib`, `csl: ieee.csl`), else all of
 * its bibliographies and its one style. Throws a sentence when the front matter names files that did not come and
 * nothing else is given, or when several styles came and it names none.
 */
export function chooseCitations<T>(
  markdownName: string,
  names: CitationNames,
  dropped: ReadonlyMap<string, T>,
  page: { bibliography: T | undefined; csl: T | undefined },
): CitationChoice<T> {
  const bibs = new Map([...dropped].filter(([path]) => isCitationFile(path) && citationKind(path) !== 'csl'));
  const styles = new Map([...dropped].filter(([path]) => citationKind(path) === 'csl'));

  let bibliography: T[] = [];
  const found = names.bibliography.map((path) => ({ path, file: named(path, bibs) }));
  const missing = found.filter((f) => f.file === undefined).map((f) => f.path);
  if (found.length > 0 && missing.length < found.length) {
    if (missing.length > 0)
      throw new Error(
        `${markdownName} names the bibliographies ${names.bibliography.join(', ')}, but ${missing.join(', ')} did not come with it: drop ${missing.length === 1 ? 'it' : 'them'} with the markdown.`,
      );
    bibliography = found.flatMap((f) => (f.file === undefined ? [] : [f.file]));
  } else if (bibs.size > 0) bibliography = [...bibs.values()];
  else if (page.bibliography !== undefined) bibliography = [page.bibliography];
  else if (names.bibliography.length > 0)
    throw new Error(
      `${markdownName} names the bibliography ${names.bibliography.join(', ')} in its front matter: drop it with the markdown, or add it with “Add a bibliography or style…”.`,
    );

  let csl: T | undefined;
  const style = names.csl === undefined ? undefined : named(names.csl, styles);
  if (style !== undefined) csl = style;
  else if (styles.size === 1) csl = [...styles.values()][0];
  else if (styles.size > 1)
    throw new Error(
      `Several CSL styles came with ${markdownName} (${[...styles.keys()].join(', ')}): name the one to use in its front matter (csl: ${[...styles.keys()][0] ?? ''}).`,
    );
  else if (page.csl !== undefined) csl = page.csl;
  else if (names.csl !== undefined && !isBundled(names.csl) && bibliography.length > 0)
    throw new Error(
      `${markdownName} names the CSL style ${names.csl} in its front matter: drop it with the markdown, or add it with “Add a bibliography or style…”.`,
    );
  return { bibliography, csl };
}

/** Whether a front matter `csl` is one of the server's bundled styles (`apa`, or `apa.csl` as pandoc users write). */
function isBundled(csl: string): boolean {
  const name = csl.replace(/\.csl$/i, '').toLowerCase();
  return (BUNDLED_STYLES as readonly string[]).includes(name);
}
