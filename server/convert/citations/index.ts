import type { Nodes, Parent, Root } from 'mdast';
import { parse as parseYaml } from 'yaml';
import { ConvertInputError } from '../errors.ts';
import type { ImageSource } from '../images/source.ts';
import {
  CITATION_LIMITS,
  cslItems,
  formatOfPath,
  readBibliography,
  type BibliographyInput,
  type CslItem,
} from './bibliography.ts';
import { BUNDLED_STYLES, DEFAULT_STYLE, formatCitations, type FormattedCitations, type StyleInput } from './format.ts';
import { citationsOf, findCitations, type Citation } from './syntax.ts';

export {
  BIBLIOGRAPHY_FORMATS,
  CITATION_LIMITS,
  formatOfPath,
  type BibliographyFormat,
  type BibliographyInput,
} from './bibliography.ts';
export { BUNDLED_STYLES } from './format.ts';
export type { Citation } from './syntax.ts';

/** Front matter keys the citations read (front-matter.ts does not warn them as ignored). */
export const CITATION_KEYS = ['bibliography', 'csl', 'references', 'reference-section-title', 'suppress-bibliography'];

/** What the compiler needs to print citations and the bibliography. */
export interface CompileCitations extends FormattedCitations {
  /** The heading of a bibliography printed at the end (no `::: {#refs}` div); `reference-section-title`. */
  title: string | undefined;
  /** `suppress-bibliography: true`: citations only. */
  suppressBibliography: boolean;
}

/** What a conversion is given besides its markdown for citations. */
export interface CitationInput {
  /**
   * The bibliography sent with the request (the command line's --bibliography files: several); in place of the front
   * matter's `bibliography` files.
   */
  bibliography?: BibliographyInput | readonly BibliographyInput[] | undefined;
  /** A CSL style sent with the request: a bundled style's name or a CSL file's XML; in place of the front matter's. */
  csl?: string | undefined;
  /** The files beside the markdown, where the front matter's `bibliography` and `csl` files are read. */
  files?: ImageSource | undefined;
}

function refuse(message: string): ConvertInputError {
  return new ConvertInputError('bibliography_invalid', message);
}

/** A front matter path as a relative one inside the markdown's folder; undefined: it leads out (absolute, `..`). */
function relativePath(path: string): string | undefined {
  const slashed = path.trim().replace(/\\/g, '/');
  if (slashed === '' || slashed.startsWith('/') || /^[a-z]:/i.test(slashed) || slashed.includes('\0')) return undefined;
  const parts: string[] = [];
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.length > 0 ? parts.join('/') : undefined;
}

/** A file the front matter names: the bibliography or the CSL style, its command-line flag, and its limit. */
interface BesideFile {
  what: 'the bibliography' | 'the CSL style';
  flag: '--bibliography FILE' | '--csl FILE';
  limit: number;
  /** Said after "was not found beside the markdown file". */
  notFound?: string;
}

const BIBLIOGRAPHY_FILE: BesideFile = {
  what: 'the bibliography',
  flag: '--bibliography FILE',
  limit: CITATION_LIMITS.bibliographyChars,
};
const STYLE_FILE: BesideFile = {
  what: 'the CSL style',
  flag: '--csl FILE',
  limit: CITATION_LIMITS.styleChars,
  notFound: `; the bundled styles are ${BUNDLED_STYLES.slice(0, -1).join(', ')} and ${BUNDLED_STYLES.at(-1) ?? ''}, else name a .csl file (--csl FILE on the command line)`,
};

/**
 * Reads a file the front matter names beside the markdown (confined to its folder, like images: the markdown may not
 * be the reader's own, docs/captions-references.md), as text. One missing from the files sent with a request (a
 * multipart one's images) is said as when nothing is sent beside: it is to be sent as its own field or part.
 */
function readBeside(files: ImageSource | undefined, path: string, file: BesideFile): string {
  const { what, flag, limit } = file;
  const outside = `${what} ${path} is outside the markdown file's folder; give a file from elsewhere with ${flag} on the command line, or send it with the request`;
  const relative = relativePath(path);
  if (relative === undefined) throw refuse(outside);
  const notHere = refuse(
    `${what} ${path} cannot be read here: send it with the request (docs/captions-references.md), give it with ${flag} on the command line, or convert the file from disk`,
  );
  if (!files) throw notHere;
  const read = files.read(relative, limit);
  if (read.ok) return new TextDecoder().decode(read.bytes);
  if (read.reason === 'missing' && files.sent) throw notHere;
  if (read.reason === 'outside') throw refuse(outside);
  if (read.reason === 'too_large') throw refuse(`${what} ${path} is more than ${Math.round(limit / 1024)} KB`);
  throw refuse(`${what} ${path} was not found beside the markdown file${file.notFound ?? ''}`);
}

/** The front matter as a mapping, if the tree starts with one that YAML reads as such. */
function frontMatterOf(tree: Root): Record<string, unknown> {
  const first = tree.children[0];
  if (first?.type !== 'yaml') return {};
  try {
    const data: unknown = parseYaml(first.value, { maxAliasCount: 100, logLevel: 'error' });
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  } catch {
    // front-matter.ts keeps it as text and warns.
    return {};
  }
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** The style to format with: the request's, the front matter's `csl` (a bundled name or a file beside), else APA. */
function styleOf(input: CitationInput, value: unknown): StyleInput {
  const given = input.csl ?? (typeof value === 'string' ? value : undefined);
  if (given === undefined) return { name: DEFAULT_STYLE };
  if ((BUNDLED_STYLES as readonly string[]).includes(given)) return { name: given };
  if (input.csl !== undefined) {
    if (given.trimStart().startsWith('<')) return { xml: cslStyle(given, 'the CSL style sent') };
    throw refuse(`csl must be one of ${BUNDLED_STYLES.join(', ')} or a CSL style's XML`);
  }
  const bundled = /^([a-z0-9]+)\.csl$/i.exec(given)?.[1];
  let xml: string;
  try {
    xml = readBeside(input.files, given, STYLE_FILE);
  } catch (error) {
    // `csl: apa.csl` where no such file is beside: the bundled style of that name.
    if (bundled !== undefined && (BUNDLED_STYLES as readonly string[]).includes(bundled)) return { name: bundled };
    throw error;
  }
  return { xml: cslStyle(xml, `the CSL style ${given}`) };
}

/** The CSL namespace a style's root `<style>` declares. */
const CSL_NAMESPACE = 'http://purl.org/net/xbiblio/csl';

/**
 * A CSL file's XML, if it is a CSL style: its root `<style>` in CSL's namespace, with the `<citation>` citeproc-js
 * formats citations with. Else refused in one sentence (citeproc-js would fail inside with a JavaScript error).
 */
export function cslStyle(xml: string, what: string): string {
  // The root: the first element after the declaration, comments, processing instructions and a doctype.
  const rest = xml.replace(/^\uFEFF?(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)*/i, '');
  const root = /^<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)([^>]*)>/.exec(rest);
  if (!root) throw refuse(`${what} is not a CSL style (it has no XML root element)`);
  const [, prefix = '', name = '', attributes = ''] = root;
  const xmlns = new RegExp(`\\sxmlns${prefix ? `:${prefix.slice(0, -1)}` : ''}\\s*=\\s*["']([^"']*)["']`).exec(
    attributes,
  )?.[1];
  if (name !== 'style') throw refuse(`${what} is not a CSL style (its root is <${prefix}${name}>, not CSL's <style>)`);
  if (xmlns !== CSL_NAMESPACE)
    throw refuse(`${what} is not a CSL style (its <style> is not in CSL's namespace ${CSL_NAMESPACE})`);
  if (!new RegExp(`<${prefix}citation[\\s>/]`).test(rest))
    throw refuse(`${what} is not a usable CSL style (it has no <citation> element, which formats the citations)`);
  return xml;
}

/**
 * Finds the citations of a document that has a bibliography (the request's, the front matter's `bibliography` files or
 * its `references`) and formats them; undefined when it has none (then `@word` stays text, as without `--citeproc`).
 */
export async function prepareCitations(
  tree: Root,
  source: string,
  input: CitationInput,
): Promise<CompileCitations | undefined> {
  const front = frontMatterOf(tree);
  const files = asList(front.bibliography);
  const inline = front.references;
  if (input.bibliography === undefined && files.length === 0 && inline === undefined) return undefined;
  if (!source.includes('@') || findCitations(tree, source) === 0) return undefined;
  const items: CslItem[] = [];
  if (inline !== undefined) items.push(...cslItems(inline, 'the front matter references'));
  if (input.bibliography !== undefined)
    for (const sent of asList(input.bibliography) as BibliographyInput[]) items.push(...(await readBibliography(sent)));
  else
    for (const file of files) {
      if (typeof file !== 'string')
        throw refuse('bibliography in the front matter must be a file name or a list of them');
      const text = readBeside(input.files, file, BIBLIOGRAPHY_FILE);
      const format = formatOfPath(file);
      items.push(...(await readBibliography({ text, ...(format ? { format } : {}) }, `the bibliography ${file}`)));
    }
  if (items.length > CITATION_LIMITS.entries)
    throw refuse(`the bibliographies have ${items.length} entries, more than ${CITATION_LIMITS.entries}`);
  const lang = typeof front.lang === 'string' ? front.lang : undefined;
  const formatted = await formatCitations(citationsOf(tree), items, styleOf(input, front.csl), lang);
  if (formatted.note) placeNotes(tree, formatted.texts);
  const title = front['reference-section-title'];
  return {
    ...formatted,
    title: typeof title === 'string' && title.trim() !== '' ? title.trim() : undefined,
    suppressBibliography: front['suppress-bibliography'] === true,
  };
}

/**
 * A note style's citations become footnotes (compile/handlers/citation.ts): each formatted `[@key]` of the text takes
 * its mark where pandoc puts it, after the punctuation that follows it and without the space before it
 * (`a claim [@key].` → `a claim.¹`). In a footnote a citation is printed in the note's text, its period not doubled.
 */
function placeNotes(tree: Root, texts: ReadonlyMap<Citation, string>): void {
  const stack: [Parent, boolean][] = [[tree, false]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [parent, inNote] = next;
    const children = parent.children as Nodes[];
    for (let k = 0; k < children.length; k++) {
      const child = children[k] as Nodes;
      const html = child.type === 'citation' ? texts.get(child) : undefined;
      if (html !== undefined && (inNote || (child.type === 'citation' && child.mode === 'narrative'))) {
        // Printed in the text (in a footnote, or a narrative `@key`): a note's period ends it, the sentence's is not
        // doubled.
        const after = children[k + 1];
        if (after?.type === 'text' && after.value.startsWith('.') && /\.(?:<\/[^>]+>)*$/.test(html))
          after.value = after.value.slice(1);
      } else if (child.type === 'citation' && child.mode === 'normal' && html !== undefined) {
        const before = children[k - 1];
        if (before?.type === 'text') before.value = before.value.replace(/[ \t\n]+$/, '');
        const after = children[k + 1];
        const punctuation = after?.type === 'text' ? /^[.,;:!?]+/.exec(after.value)?.[0] : undefined;
        if (after?.type === 'text' && punctuation !== undefined) {
          after.value = after.value.slice(punctuation.length);
          if (before?.type === 'text') before.value += punctuation;
          else {
            children.splice(k, 0, { type: 'text', value: punctuation });
            k += 1;
          }
        }
      } else if ('children' in child) stack.push([child, inNote || child.type === 'footnoteDefinition']);
    }
  }
}
