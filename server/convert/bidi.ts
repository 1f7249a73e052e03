import bidiJs, { type Bidi } from 'bidi-js';
import type { Nodes, Table } from 'mdast';

/** A base direction of text: HTML's `dir` values that set one. */
export type Direction = 'rtl' | 'ltr';

/** Where a node keeps the base direction a `dir` attribute of the raw HTML around it sets (parse/html-direction.ts). */
const DIRECTION = 'docwrightDirection';

/** The direction a `dir` attribute set on a node, if any. */
export function nodeDirection(node: Nodes): Direction | undefined {
  const value = (node.data as Record<string, unknown> | undefined)?.[DIRECTION];
  return value === 'rtl' || value === 'ltr' ? value : undefined;
}

/** Sets a node's direction, unless a `dir` closer to it already did. */
export function setNodeDirection(node: Nodes, direction: Direction): void {
  if (!nodeDirection(node)) node.data = { ...node.data, [DIRECTION]: direction };
}

// The package is CommonJS typed as an ES default export: at run time the default import is the factory itself.
const bidiFactory = bidiJs as unknown as () => Bidi;
/** The Unicode Bidirectional Algorithm (UAX #9) and its character classes, from bidi-js. */
const bidi = bidiFactory();

/** The direction of the first strong character (bidi classes L, R, AL), or undefined when there is none. */
export function firstStrong(text: string): Direction | undefined {
  for (const char of text) {
    const type = bidi.getBidiCharTypeName(char);
    if (type === 'L') return 'ltr';
    if (type === 'R' || type === 'AL') return 'rtl';
  }
  return undefined;
}

/** The direction of a node's text by its first strong character (UAX #9 rule P2), walking no further than needed. */
export function textDirection(node: Nodes): Direction | undefined {
  const stack: Nodes[] = [node];
  for (let current = stack.pop(); current; current = stack.pop()) {
    if ('value' in current && typeof current.value === 'string' && current.type !== 'html' && current.type !== 'yaml') {
      const direction = firstStrong(current.value);
      if (direction) return direction;
    } else if ((current.type === 'image' || current.type === 'imageReference') && current.alt) {
      const direction = firstStrong(current.alt);
      if (direction) return direction;
    }
    if ('children' in current)
      for (let i = current.children.length - 1; i >= 0; i--) stack.push(current.children[i] as Nodes);
  }
  return undefined;
}

/** A piece of text and whether it is written right to left (an odd embedding level). */
export interface BidiSegment {
  text: string;
  rtl: boolean;
}

/**
 * Splits the text of a right-to-left paragraph by resolved embedding level (UAX #9 with base level 1): Arabic or
 * Hebrew words are right to left, Latin words and numbers left to right, and neutrals go with their neighbours.
 */
export function bidiSegments(text: string): BidiSegment[] {
  const { levels } = bidi.getEmbeddingLevels(text, 'rtl');
  const out: BidiSegment[] = [];
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    const rtl = (levels[start] ?? 1) % 2 === 1;
    const code = text.charCodeAt(i);
    // A low surrogate stays with its high surrogate.
    const inPair = code >= 0xdc00 && code <= 0xdfff;
    if (i < text.length && (inPair || (levels[i] ?? 1) % 2 === (rtl ? 1 : 0))) continue;
    out.push({ text: text.slice(start, i), rtl });
    start = i;
  }
  return out;
}

/** The direction context of compilation: a `dir` of the HTML around, and whether the current paragraph is RTL. */
export interface DirectionContext {
  direction: Direction | undefined;
  rtl: boolean;
}

/** Nodes whose text decides their own direction: one Word paragraph each. */
const PARAGRAPH_LIKE = new Set(['paragraph', 'heading', 'tableCell']);

/**
 * Runs `fn` in the direction context of a block node: a `dir` from HTML holds for the node and what it contains; a
 * paragraph, heading or table cell is right to left by that `dir`, else by its first strong character; code is always
 * left to right.
 */
export function directed<T>(state: DirectionContext, node: Nodes, fn: () => T): T {
  const saved = { direction: state.direction, rtl: state.rtl };
  const own = nodeDirection(node);
  if (own) state.direction = own;
  if (node.type === 'code') state.rtl = false;
  else if (PARAGRAPH_LIKE.has(node.type)) state.rtl = (state.direction ?? textDirection(node)) === 'rtl';
  else state.rtl = state.direction === 'rtl';
  try {
    return fn();
  } finally {
    state.direction = saved.direction;
    state.rtl = saved.rtl;
  }
}

/** A table is laid out right to left (`w:bidiVisual`) when its header row is: by a `dir` around, else by its text. */
export function rightToLeftTable(state: DirectionContext, node: Table): boolean {
  const header = node.children[0];
  return (state.direction ?? (header ? textDirection(header) : undefined)) === 'rtl';
}
