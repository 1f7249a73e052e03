import { BookmarkEnd, BookmarkStart, InternalHyperlink, type ParagraphChild } from 'docx';
import GithubSlugger from 'github-slugger';
import type { Heading, Node, Nodes, Root } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { stripForbiddenXmlChars } from '../xml.ts';
import type { Anchor } from '../parse/html-anchors.ts';

/**
 * Links inside the document (issue 15): every heading gets a bookmark named from its GitHub slug, explicit HTML
 * anchors (`<a name>`, `<a id>`) get one too, and `[text](#slug)` links to it. The targets are collected in a first
 * pass over the whole tree, so a link may point to a heading further down.
 */

/** A heading as a table of contents lists it. */
export interface HeadingEntry {
  level: number;
  text: string;
  bookmark: string;
  /** Its number (`1.2.`) when the headings are numbered by us (heading-numbers.ts). */
  number?: string;
}

/** Word refuses bookmark names longer than this. */
export const MAX_BOOKMARK_NAME = 40;
/** Characters kept of a slug in front of the hash, so the name stays within MAX_BOOKMARK_NAME with a counter. */
const HASHED_PREFIX = 26;

/** FNV-1a (32 bits) of a string's UTF-16 code units, as 8 hex digits: short, stable, and the same on every platform. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * The bookmark name of a target (a slug or an explicit anchor name), unique among `taken` (lower-cased: Word compares
 * bookmark names without case). Word accepts names of at most 40 characters, starting with a letter, of letters,
 * digits and underscores. A target that is already such a name once `-` becomes `_` keeps it (`getting-started` →
 * `getting_started`); any other (non-ASCII, too long, starting with a digit, or taken) becomes its ASCII letters and
 * digits (at most 26) and the FNV-1a hash of the whole target (`h_1a2b3c4d` for `语言无关`); a name still taken gets
 * `_2`, `_3`, … (its letters shortened when the counter would take it past 40 characters). `next` remembers, per
 * hashed name, the counter to try next, so a target repeated n times costs n probes, not n²/2 (20,000 `<a name="x">`
 * took 105 s). Deterministic: the same document always gives the same names.
 */
export function bookmarkName(target: string, taken: ReadonlySet<string>, next?: Map<string, number>): string {
  const readable = target.replaceAll('-', '_');
  if (/^[A-Za-z][A-Za-z0-9_]*$/.test(readable) && readable.length <= MAX_BOOKMARK_NAME) {
    if (!taken.has(readable.toLowerCase())) return readable;
  }
  const prefix = target
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^[^A-Za-z]+/, '')
    .slice(0, HASHED_PREFIX)
    .replace(/_+$/, '');
  const hash = fnv1a(target);
  const hashed = `${prefix || 'h'}_${hash}`;
  if (!taken.has(hashed.toLowerCase())) return hashed;
  const key = hashed.toLowerCase();
  let n = next?.get(key) ?? 2;
  let name = numbered(prefix, hash, n);
  while (taken.has(name.toLowerCase())) name = numbered(prefix, hash, ++n);
  next?.set(key, n + 1);
  return name;
}

/** `prefix_hash_n`, the prefix shortened so the name keeps within MAX_BOOKMARK_NAME. */
function numbered(prefix: string, hash: string, n: number): string {
  const tail = `_${hash}_${String(n)}`;
  const kept = prefix.slice(0, MAX_BOOKMARK_NAME - tail.length).replace(/_+$/, '');
  return `${kept || 'h'}${tail}`;
}

/** The link targets of a document and the bookmarks that stand for them. */
export class AnchorIndex {
  /** Bookmark names by target (slug or explicit name), the first of a target winning as in HTML. */
  private readonly targets = new Map<string, string>();
  /** The bookmark of each heading and explicit anchor node. */
  private readonly names = new Map<Node, string>();
  private readonly taken = new Set<string>();
  /** The counter each hashed name tries next when it is taken again (bookmarkName). */
  private readonly nextSuffix = new Map<string, number>();
  /** Every heading a table of contents lists (all but `.unlisted` ones), in document order. */
  readonly headings: HeadingEntry[] = [];
  /** Every heading's text by its bookmark (a cross-reference's pre-filled text: compile/captions.ts). */
  readonly headingTexts = new Map<string, string>();
  private nextId = 0;
  private readonly pending: Anchor[] = [];

  /** First pass: slugs every heading (GitHub's rules, duplicates `-1`, `-2`) and names every explicit anchor. */
  collect(tree: Root): void {
    const slugger = new GithubSlugger();
    const stack: Nodes[] = [tree];
    for (let node = stack.pop(); node; node = stack.pop()) {
      if (node.type === 'heading') this.addHeading(node, slugger);
      else if (node.type === 'anchor') this.add(node, node.name);
      if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Nodes);
    }
  }

  /** Explicit heading ids (`{#sec:x}`) seen so far, and those used a second time with the line (first pass). */
  private readonly explicitIds = new Set<string>();
  readonly duplicates: { warning: string; line: number | undefined }[] = [];

  private addHeading(node: Heading, slugger: GithubSlugger): void {
    // The heading's text as GitHub reads it (its rendered text: image alt text is not part of it).
    const text = toString(node, { includeImageAlt: false });
    const attributes = node.data?.attributes;
    const id = attributes?.id;
    if (id !== undefined && this.explicitIds.has(id))
      this.duplicates.push({ warning: `duplicate_label: ${id}`, line: node.position?.start.line });
    if (id !== undefined) this.explicitIds.add(id);
    // An explicit `{#id}` names the heading instead of its slug (pandoc's header_attributes).
    const name = this.add(node, attributes?.id ?? slugger.slug(text));
    // Its entry in a table of contents (package/toc.ts writes it as it is): characters XML forbids dropped.
    const entry = stripForbiddenXmlChars(text).replace(/\s+/g, ' ').trim();
    this.headingTexts.set(name, entry);
    // `.unlisted` keeps it out of a table of contents.
    if (!attributes?.classes.includes('unlisted'))
      this.headings.push({ level: node.depth, text: entry, bookmark: name });
  }

  private add(node: Node, target: string): string {
    const name = bookmarkName(target, this.taken, this.nextSuffix);
    this.taken.add(name.toLowerCase());
    this.names.set(node, name);
    if (!this.targets.has(target)) this.targets.set(target, name);
    return name;
  }

  /**
   * A bookmark name of ours (a caption number's `_Ref…`), made unique (`_2`, `_3`, …) within MAX_BOOKMARK_NAME; a
   * `#target` link (`#fig:cat`) jumps to it unless a heading or anchor took that target first.
   */
  reserve(wanted: string, target?: string): string {
    let name = wanted.slice(0, MAX_BOOKMARK_NAME);
    // The counter to try next for names of this beginning (every name tried is its first 38 characters or fewer and a
    // counter, and names are never freed, so those below it are taken): 10,000 labels sharing their first 40
    // characters cost 10,000 probes, not 50 million.
    const key = `reserve:${name.toLowerCase()}`;
    let n = this.taken.has(name.toLowerCase()) ? (this.nextSuffix.get(key) ?? 2) : 0;
    if (n > 0) {
      for (; ; n++) {
        const tail = `_${String(n)}`;
        name = `${wanted.slice(0, MAX_BOOKMARK_NAME - tail.length)}${tail}`;
        if (!this.taken.has(name.toLowerCase())) break;
      }
      this.nextSuffix.set(key, n + 1);
    }
    this.taken.add(name.toLowerCase());
    if (target !== undefined && !this.targets.has(target)) this.targets.set(target, name);
    return name;
  }

  /** The bookmark a `#fragment` jumps to: as written, percent-decoded, or in lower case (GitHub's slugs are). */
  resolve(fragment: string): string | undefined {
    let decoded = fragment;
    try {
      decoded = decodeURIComponent(fragment);
    } catch {
      // A lone `%` is no escape: the fragment stays as written.
    }
    for (const candidate of [fragment, decoded, decoded.toLowerCase()]) {
      const name = this.targets.get(candidate);
      if (name !== undefined) return name;
    }
    return undefined;
  }

  /** The bookmark name of a heading or anchor node. */
  nameOf(node: Node): string | undefined {
    return this.names.get(node);
  }

  /** A bookmark id (w:id), counted per conversion so the output is reproducible. */
  newId(): number {
    this.nextId += 1;
    return this.nextId;
  }

  /** The runs of a heading or an anchor wrapped in its bookmark. */
  bookmark(node: Node, runs: ParagraphChild[]): ParagraphChild[] {
    const name = this.names.get(node);
    if (name === undefined) return runs;
    const id = this.newId();
    const start = new BookmarkStart(name, id) as unknown as ParagraphChild;
    const end = new BookmarkEnd(id) as unknown as ParagraphChild;
    return [start, ...runs, end];
  }

  /** Keeps the bookmark of an anchor standing alone (an empty line in Word) for the next paragraph. */
  defer(node: Anchor): void {
    this.pending.push(node);
  }

  /** A paragraph's children with the deferred anchors' bookmarks in front. */
  withDeferred(children: ParagraphChild[]): ParagraphChild[] {
    if (this.pending.length === 0) return children;
    const anchors = this.pending.splice(0);
    return [...anchors.flatMap((anchor) => this.bookmark(anchor, [])), ...children];
  }

  /** Anchors deferred past the last paragraph, as paragraphs of their own. */
  leftOver(): ParagraphChild[] {
    return this.withDeferred([]);
  }
}

/** A `#fragment` link: an internal hyperlink to its bookmark, or its text with `broken_anchor` when none matches. */
export function internalLink(
  anchors: AnchorIndex,
  fragment: string,
  linkRuns: () => ParagraphChild[],
  plainRuns: () => ParagraphChild[],
  warn: (warning: string) => void,
): ParagraphChild[] {
  const name = anchors.resolve(fragment);
  if (name === undefined) {
    warn(`broken_anchor: #${fragment}`);
    return plainRuns();
  }
  const runs = linkRuns();
  if (runs.length === 0) return [];
  return [new InternalHyperlink({ anchor: name, children: runs })];
}
