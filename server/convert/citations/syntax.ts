import type { Literal, Nodes, Parent, Root, Text } from 'mdast';
import { heldCaption } from '../parse/captions.ts';

/** One source cited: its key, the words around it and its locator (`p. 33`), as pandoc's citation syntax writes them. */
export interface CiteItem {
  key: string;
  prefix: string;
  suffix: string;
  /** The locator's CSL label (`page`, `chapter`, …) and value, when the suffix starts with one. */
  label?: string;
  locator?: string;
  /** `[-@key]`: the author left out. */
  suppressAuthor: boolean;
}

/** A citation as the parser leaves it in the tree: `[@a; @b, p. 3]` (normal) or `@a` (narrative, in the text). */
export interface Citation extends Literal {
  type: 'citation';
  mode: 'normal' | 'narrative';
  items: CiteItem[];
  /** The markdown as written, printed when a key is unknown. */
  value: string;
}

declare module 'mdast' {
  interface PhrasingContentMap {
    citation: Citation;
  }
  interface RootContentMap {
    citation: Citation;
  }
}

/** Key prefixes of pandoc-crossref's cross-references (`@fig:label`): not citations. */
const CROSS_REFERENCE = /^(?:fig|tbl|eq|sec|lst):/;

/**
 * A citation key as pandoc reads it: a letter, digit or `_` first, then those and internal punctuation
 * (`:.#$%&-+?<>~/`), never ending in punctuation; or any text in braces (`@{a key}`).
 */
const KEY = /^(?:\{([^{}]{1,200})\}|([\p{L}\p{N}_](?:[\p{L}\p{N}_]|[:.#$%&+?<>~/-](?=[\p{L}\p{N}_])){0,199}))/u;

/** pandoc's locator terms (its English list) and the CSL label each names. */
const LOCATORS: [RegExp, string][] = [
  [/^(?:pp?\.|pages?)$/i, 'page'],
  [/^(?:ch\.|chaps?\.|chapters?)$/i, 'chapter'],
  [/^(?:sec\.|secs\.|sections?|§§?)$/i, 'section'],
  [/^(?:vols?\.|volumes?)$/i, 'volume'],
  [/^(?:figs?\.|figures?)$/i, 'figure'],
  [/^(?:paras?\.|paragraphs?|¶¶?)$/i, 'paragraph'],
  [/^(?:ll?\.|lines?)$/i, 'line'],
  [/^(?:nn?\.|notes?)$/i, 'note'],
  [/^(?:bk\.|bks\.|books?)$/i, 'book'],
  [/^(?:no\.|nos\.|numbers?)$/i, 'issue'],
  [/^(?:pts?\.|parts?)$/i, 'part'],
  [/^(?:cols?\.|columns?)$/i, 'column'],
];

/** The label and locator a suffix starts with (`, p. 33, my note` → page 33 and `, my note`), as pandoc splits it. */
function splitLocator(suffix: string): Pick<CiteItem, 'label' | 'locator' | 'suffix'> {
  // A locator with no term (`, 33`, `, 33-35`): a page, pandoc's default label.
  const bare = /^,\s*(\p{N}[\p{N}\-–]*)(?=$|,\s)(.*)$/su.exec(suffix);
  if (bare) return { label: 'page', locator: bare[1] ?? '', suffix: (bare[2] ?? '').trim() };
  const match = /^,?\s*(\S+)\s+([\p{N}ivxlcdm][\p{N}\p{L}\-–,:]*?)(?=$|,\s|\s)(.*)$/su.exec(suffix);
  if (!match) return { suffix };
  const [, term = '', locator = '', rest = ''] = match;
  const label = LOCATORS.find(([pattern]) => pattern.test(term))?.[1];
  if (label === undefined) return { suffix };
  return { label, locator: locator.replace(/,$/, ''), suffix: rest.trim() };
}

/** Whether the character before `@` lets a citation start there (not inside a word: an email address). */
function startsCitation(before: string | undefined): boolean {
  return before === undefined || !/[\p{L}\p{N}_.+-]/u.test(before);
}

/** The key at `text[at]` (just after `@`), with its length; undefined: none, or a cross-reference's. */
function keyAt(text: string, at: number): { key: string; length: number } | undefined {
  const match = KEY.exec(text.slice(at, at + 210));
  if (!match) return undefined;
  const key = match[1] ?? match[2] ?? '';
  if (CROSS_REFERENCE.test(key)) return undefined;
  return { key, length: match[0].length };
}

/** The items of a bracketed citation's inside (`see @a; @b, ch. 2`); undefined: not a citation (an item lacks a key). */
function bracketItems(inside: string): CiteItem[] | undefined {
  const items: CiteItem[] = [];
  for (const part of inside.split(';')) {
    const at = /(^|[^\p{L}\p{N}_.+-])(-?)@/u.exec(part);
    if (!at) return undefined;
    const start = at.index + (at[1] ?? '').length;
    const found = keyAt(part, start + (at[2] ?? '').length + 1);
    if (!found) return undefined;
    const after = start + (at[2] ?? '').length + 1 + found.length;
    items.push({
      key: found.key,
      prefix: part.slice(0, start).trim(),
      suppressAuthor: at[2] === '-',
      ...splitLocator(part.slice(after).trim()),
    });
  }
  return items.length > 0 ? items : undefined;
}

/** The text's characters that were written escaped (`\@`), by index in the value: the source is walked beside it. */
function escapedIndexes(value: string, source: string): Set<number> {
  const escaped = new Set<number>();
  if (source.length === value.length) return escaped;
  for (let i = 0, j = 0; i < source.length && j < value.length;) {
    if (source[i] === '\\' && source[i + 1] === value[j] && /[!-/:-@[-`{-~]/.test(value[j] ?? '')) {
      escaped.add(j);
      i += 2;
      j += 1;
    } else if (source[i] === value[j]) {
      i += 1;
      j += 1;
    } else if (source[i] === '&') {
      // An entity: its source runs to the `;`, its value is the character(s) it names.
      const end = source.indexOf(';', i);
      i = end < 0 ? i + 1 : end + 1;
      j += 1;
    } else i += 1;
  }
  return escaped;
}

/** Splits one text node into text and citations; undefined when it holds none. */
function splitText(node: Text, source: string): (Text | Citation)[] | undefined {
  const value = node.value;
  if (!value.includes('@')) return undefined;
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  const escaped =
    start === undefined || end === undefined ? new Set<number>() : escapedIndexes(value, source.slice(start, end));
  const out: (Text | Citation)[] = [];
  let done = 0;
  const cite = (from: number, to: number, mode: Citation['mode'], items: CiteItem[]) => {
    if (from > done) out.push({ type: 'text', value: value.slice(done, from) });
    out.push({ type: 'citation', mode, items, value: value.slice(from, to), ...position(node, value, from) });
    done = to;
  };
  for (let i = value.indexOf('@'); i >= 0 && i < value.length; i = value.indexOf('@', Math.max(i + 1, done))) {
    if (escaped.has(i)) continue;
    // A bracketed citation: the `[` before it on this node, its `]` after, no other bracket between.
    const open = value.lastIndexOf('[', i);
    if (open >= done && !value.slice(open + 1, i).includes(']') && !escaped.has(open)) {
      const close = value.indexOf(']', i);
      if (close > i && !value.slice(open + 1, close).includes('[') && !escaped.has(close)) {
        const items = bracketItems(value.slice(open + 1, close));
        if (items) {
          cite(open, close + 1, 'normal', items);
          continue;
        }
      }
    }
    if (!startsCitation(i > 0 ? value[i - 1] : undefined)) continue;
    const found = keyAt(value, i + 1);
    if (!found) continue;
    let to = i + 1 + found.length;
    const item: CiteItem = { key: found.key, prefix: '', suffix: '', suppressAuthor: false };
    // `@key [p. 33]`: the brackets after a narrative citation hold its locator and suffix.
    const bracket = /^ ?\[([^\][@]*)\]/.exec(value.slice(to));
    if (bracket && !escaped.has(to + bracket[0].indexOf('['))) {
      Object.assign(item, splitLocator(`, ${bracket[1] ?? ''}`));
      to += bracket[0].length;
    }
    cite(i, to, 'narrative', [item]);
  }
  if (out.length === 0) return undefined;
  if (done < value.length) out.push({ type: 'text', value: value.slice(done) });
  return out;
}

/** The citation's position: its text node's, on the line it starts on (a text node spans soft line breaks). */
function position(node: Text, value: string, from: number): Pick<Citation, 'position'> {
  if (!node.position) return {};
  const lines = value.slice(0, from).split('\n').length - 1;
  const line = node.position.start.line + lines;
  return { position: { start: { line, column: 1 }, end: { line, column: 1 } } };
}

/**
 * Finds pandoc's citations (`[@key]`, `[see @a, p. 3; -@b]`, `@key`) in the text of the tree and makes them
 * `citation` nodes; returns how many. Not in links, code or math; `\@key` stays text, and so do emails and
 * cross-references (`@fig:label`). A bracketed citation whose text is split by other markup (`[*see* @a]`) stays text.
 */
export function findCitations(tree: Root, source: string): number {
  let count = 0;
  const stack: [Parent, string][] = [[tree, source]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [parent, source] = next;
    const children = parent.children as Nodes[];
    for (let k = children.length - 1; k >= 0; k--) {
      const child = children[k];
      if (!child) continue;
      if (child.type === 'text') {
        const parts = splitText(child, source);
        if (!parts) continue;
        count += parts.filter((p) => p.type === 'citation').length;
        children.splice(k, 1, ...(parts as Nodes[]));
      } else if ('children' in child && child.type !== 'link' && child.type !== 'linkReference')
        stack.push([child, source]);
      // A table's or a figure's caption, held in its data, is text too; the front matter's abstract, in its own source.
      const caption = heldCaption(child);
      if (caption) stack.push([caption as Parent, source]);
      if (child.type === 'yaml' && child.data?.abstract)
        stack.push([child.data.abstract.tree, child.data.abstract.source]);
    }
  }
  return count;
}

/** The citations of a tree in document order. */
export function citationsOf(tree: Root): Citation[] {
  const found: Citation[] = [];
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'citation') found.push(node);
    else if ('children' in node)
      for (let k = node.children.length - 1; k >= 0; k--) stack.push(node.children[k] as Nodes);
    // A caption held in data: a table's is printed above it (taken first), a figure's after its picture.
    const caption = heldCaption(node);
    if (caption) stack.push(caption as Nodes);
    if (node.type === 'yaml' && node.data?.abstract) stack.push(node.data.abstract.tree);
  }
  return found;
}
