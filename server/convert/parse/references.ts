import type { Node, Parents, PhrasingContent, Root, Text } from 'mdast';
import { heldCaption } from './captions.ts';

// pandoc's `@key` syntax (citations, and pandoc-crossref's cross-references `@fig:label`): recognised here, in one
// place. `referenceGroups` finds every `@key` and `[…@key…; …]` group of a text; `crossReferences` turns the groups
// whose keys all carry a cross-reference prefix into `crossReference` nodes. Citations (issue 34, item 4) take the
// other groups from the same recogniser.

/** The key prefixes of cross-references (pandoc-crossref's), each to the kind of thing it names. */
export const CROSS_REFERENCE_PREFIXES = {
  fig: 'figure',
  tbl: 'table',
  eq: 'equation',
  lst: 'listing',
  sec: 'section',
} as const;
export type ReferencePrefix = keyof typeof CROSS_REFERENCE_PREFIXES;

/** One `@key` of a group, with the text written before and after it inside brackets (`[see @fig:a, left]`). */
export interface ReferenceItem {
  key: string;
  /** Text before the key inside a bracketed group (`see `), empty for a bare key. */
  prefix: string;
  /** Text after the key inside a bracketed group (`, p. 3`). */
  suffix: string;
  /** `-@key`: pandoc's "suppress author" (citations only). */
  suppressAuthor: boolean;
}

/** A reference as written: a bare `@key`, or a bracketed group `[@a; @b]`. */
export interface ReferenceGroup {
  /** Offsets of the group in the text (the brackets included). */
  start: number;
  end: number;
  bracketed: boolean;
  items: ReferenceItem[];
}

// A key as pandoc reads it: a letter, digit or `_` first, then those and inner punctuation followed by one of them.
const KEY = String.raw`[\p{L}\p{N}_](?:[\p{L}\p{N}_]|[:.#$%&\-+?<>~/](?=[\p{L}\p{N}_]))*`;
/** A bare `@key`, not inside a word (an email address's `@` follows a letter or digit). */
const BARE = new RegExp(String.raw`(?<![\p{L}\p{N}_@\\])@(${KEY})`, 'gu');
/** A bracketed group: `[` then text with at least one `@`, no brackets inside, then `]` not opening a link. */
const BRACKETED = /\[([^[\]]*@[^[\]]*)\](?![([{])/gu;
const ITEM = new RegExp(String.raw`^(.*?)(-?)@(${KEY})(.*)$`, 'su');

/** Every reference group of `text`, in order: bracketed groups, then the bare keys outside them. */
export function referenceGroups(text: string): ReferenceGroup[] {
  if (!text.includes('@')) return [];
  const groups: ReferenceGroup[] = [];
  for (const match of text.matchAll(BRACKETED)) {
    const items = (match[1] ?? '').split(';').map((part) => {
      const item = ITEM.exec(part);
      const before = item?.[1] ?? '';
      // The key starts a word of the item (`see @a`, not `x@a`), and an item holds one key.
      if (!item || (before !== '' && !/[\s([]$/u.test(before)) || (item[4] ?? '').includes('@')) return undefined;
      return {
        key: item[3] ?? '',
        prefix: (item[1] ?? '').trimStart(),
        suffix: (item[4] ?? '').trimEnd(),
        suppressAuthor: item[2] === '-',
      };
    });
    if (items.some((item) => item === undefined)) continue;
    const start = match.index;
    groups.push({ start, end: start + match[0].length, bracketed: true, items: items as ReferenceItem[] });
  }
  for (const match of text.matchAll(BARE)) {
    const start = match.index;
    if (groups.some((g) => g.bracketed && start >= g.start && start < g.end)) continue;
    const item = { key: match[1] ?? '', prefix: '', suffix: '', suppressAuthor: false };
    groups.push({ start, end: start + match[0].length, bracketed: false, items: [item] });
  }
  return groups.sort((a, b) => a.start - b.start);
}

/** A cross-reference key with its prefix in lower case (`Fig:cat` → `fig:cat`). */
export function crossReferenceKey(key: string): string {
  const colon = key.indexOf(':');
  return `${key.slice(0, colon).toLowerCase()}${key.slice(colon)}`;
}

/** The cross-reference prefix of a key (`fig` of `fig:cat`), if it has one. */
export function crossReferencePrefix(key: string): ReferencePrefix | undefined {
  // `@Fig:x` (pandoc-crossref's capitalised form, for a sentence's start) is `@fig:x`.
  const prefix = /^([A-Za-z][a-z]*):./.exec(key)?.[1]?.toLowerCase();
  return prefix !== undefined && prefix in CROSS_REFERENCE_PREFIXES ? (prefix as ReferencePrefix) : undefined;
}

/** A cross-reference as written: its items (every key with a prefix), and its text, kept where a key is unknown. */
export interface CrossReference extends Node {
  type: 'crossReference';
  bracketed: boolean;
  items: ReferenceItem[];
  /** The reference as written (`[@fig:a; @fig:b]`). */
  value: string;
}

declare module 'mdast' {
  interface PhrasingContentMap {
    crossReference: CrossReference;
  }
  interface RootContentMap {
    crossReference: CrossReference;
  }
}

/** Parents whose text may hold references (not links: their text is the link's; code is no text node). */
const SKIPPED = new Set(['link', 'linkReference']);

/** The number of backslashes right before `offset` in `text`. */
function backslashesBefore(text: string, offset: number): number {
  let n = 0;
  while (offset - n - 1 >= 0 && text[offset - n - 1] === '\\') n += 1;
  return n;
}

/**
 * Turns the cross-reference groups of every text node into `crossReference` nodes: groups whose keys all carry a
 * cross-reference prefix, written as they read in `source` (`\@fig:x` and `\[@fig:x]` stay text).
 */
export function crossReferences(tree: Root, source: string): void {
  if (!source.includes('@')) return;
  const stack: Parents[] = [tree];
  for (let parent = stack.pop(); parent; parent = stack.pop()) {
    const children = parent.children as Node[];
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as Node;
      if (child.type === 'text') {
        const replaced = split(child as Text, source);
        if (replaced) {
          children.splice(i, 1, ...replaced);
          i += replaced.length - 1;
        }
      } else if ('children' in child && !SKIPPED.has(child.type)) stack.push(child as Parents);
      // A table's or a figure's caption, held in its data, is text too.
      const caption = heldCaption(child);
      if (caption) stack.push(caption as Parents);
    }
  }
}

/** A text node cut at its cross-references, or undefined when it has none. */
function split(node: Text, source: string): PhrasingContent[] | undefined {
  // A bracketed group mixing cross-references and citations (`[see @fig:a; @doe2020, p. 4]`) is owned here too: its
  // cross-references become nodes, its citations stay text in brackets of their own, for the citations to read.
  const groups = referenceGroups(node.value).filter((g) =>
    g.bracketed
      ? g.items.some((item) => crossReferencePrefix(item.key) !== undefined)
      : crossReferencePrefix(g.items[0]?.key ?? '') !== undefined,
  );
  if (groups.length === 0) return undefined;
  const from = node.position?.start.offset;
  const to = node.position?.end.offset;
  const written = from !== undefined && to !== undefined ? source.slice(from, to) : undefined;
  const out: PhrasingContent[] = [];
  let at = 0;
  let searchFrom = 0;
  // Each piece keeps where it was written (its offsets in `source`), as later passes (the citations, the warnings of
  // syntax left as text) look there for escapes and lines.
  const start = node.position?.start;
  const point = (offset: number) => {
    const before = source.slice(from ?? 0, offset);
    const lines = before.split('\n');
    const last = lines[lines.length - 1] ?? '';
    return {
      line: (start?.line ?? 1) + lines.length - 1,
      column: lines.length === 1 ? (start?.column ?? 1) + last.length : last.length + 1,
      offset,
    };
  };
  const placed = (a: number, b: number) =>
    from === undefined ? {} : { position: { start: point(from + a), end: point(from + b) } };
  for (const group of groups) {
    const text = node.value.slice(group.start, group.end);
    // Where the group stands in the source: an escaped `@` or `[` before it keeps it text.
    const where = written?.indexOf(text, searchFrom) ?? -1;
    if (written === undefined || where < 0 || backslashesBefore(written, where) % 2 === 1) continue;
    if (group.bracketed && backslashesBefore(written, where + text.indexOf('@')) % 2 === 1) continue;
    if (group.start > at)
      out.push({ type: 'text', value: node.value.slice(at, group.start), ...placed(searchFrom, where) });
    searchFrom = where + text.length;
    out.push(...groupNodes(group, text, placed(where, where + text.length)));
    at = group.end;
  }
  if (at === 0) return undefined;
  if (at < node.value.length)
    out.push({ type: 'text', value: node.value.slice(at), ...placed(searchFrom, written?.length ?? searchFrom) });
  return out;
}

/**
 * The nodes of one group: a cross-reference; or, for a group mixing cross-references and citations, each run of
 * cross-references a node and each run of citations a bracketed citation's text (`[@doe2020, p. 4]`), in the written
 * order, joined by `; ` as written. The citations' text keeps the group's line but no offsets (it is not the source's).
 */
function groupNodes(group: ReferenceGroup, text: string, placed: Pick<Node, 'position'>): PhrasingContent[] {
  const reference = (items: ReferenceItem[], value: string): CrossReference => ({
    type: 'crossReference',
    bracketed: group.bracketed,
    items,
    value,
    ...placed,
  });
  if (group.items.every((item) => crossReferencePrefix(item.key) !== undefined)) return [reference(group.items, text)];
  const line = placed.position?.start.line;
  const at = line === undefined ? {} : { position: { start: { line, column: 1 }, end: { line, column: 1 } } };
  const runs: ReferenceItem[][] = [];
  for (const item of group.items) {
    const last = runs[runs.length - 1];
    const isReference = crossReferencePrefix(item.key) !== undefined;
    if (last && (crossReferencePrefix(last[0]?.key ?? '') !== undefined) === isReference) last.push(item);
    else runs.push([item]);
  }
  const written = (item: ReferenceItem) =>
    `${item.prefix}${item.suppressAuthor ? '-' : ''}@${item.key}${item.suffix}`.trim();
  return runs.flatMap((items, k): PhrasingContent[] => {
    const value = `[${items.map(written).join('; ')}]`;
    const node: PhrasingContent =
      crossReferencePrefix(items[0]?.key ?? '') !== undefined
        ? reference(items, value)
        : { type: 'text', value, ...at };
    return k > 0 ? [{ type: 'text', value: '; ', ...at }, node] : [node];
  });
}
