// pandoc's superscript `^sup^` and subscript `~sub~` (issue 33, item 6; docs/elements.md). A caret or a single tilde
// is a sequence that pairs with the next one as GFM's strikethrough pairs its tildes (so code spans, links and raw HTML
// bind more tightly), by pandoc's rule: the text between is not empty and holds no unescaped white space (`\ ` is a
// space that does not break). Superscript is in both dialects (GFM gives a caret no meaning), subscript only in
// pandoc's, where a single tilde is not strikethrough (dialect.ts).
import type { Nodes, Parent, PhrasingContent } from 'mdast';
import type {
  Construct,
  Effects,
  Event,
  Extension,
  Resolver,
  State,
  Token,
  TokenizeContext,
} from 'micromark-util-types';

/** What a from-markdown handler's `this` holds that the handlers here use (mdast-util-from-markdown's CompileContext). */
export interface CompileContext {
  stack: Nodes[];
  enter(node: Nodes, token: Token): void;
  exit(token: Token): void;
}

declare module 'micromark-util-types' {
  interface TokenTypeMap {
    scriptSequenceTemporary: 'scriptSequenceTemporary';
    scriptSequence: 'scriptSequence';
    superscript: 'superscript';
    subscript: 'subscript';
    scriptText: 'scriptText';
  }
}

const CARET = 94;
const TILDE = 126;

/** Events' splice, in pieces: a spread of a long list would overflow the stack. */
export function spliceEvents(events: Event[], start: number, remove: number, items: Event[]): void {
  if (items.length < 10_000) {
    events.splice(start, remove, ...items);
    return;
  }
  const rest = events.splice(start);
  rest.splice(0, remove);
  for (let i = 0; i < items.length; i += 10_000) events.push(...items.slice(i, i + 10_000));
  for (let i = 0; i < rest.length; i += 10_000) events.push(...rest.slice(i, i + 10_000));
}

/** The `insideSpan` resolvers (attention, strikethrough, these) run on the events of a span's text. */
export function resolveInsideSpan(events: Event[], context: TokenizeContext): Event[] {
  let result = events;
  const called: Resolver[] = [];
  for (const construct of context.parser.constructs.insideSpan.null ?? []) {
    const resolve = construct.resolveAll;
    if (resolve && !called.includes(resolve)) {
      result = resolve(result, context);
      called.push(resolve);
    }
  }
  return result;
}

/** Token types whose text counts for pandoc's no-space rule (code spans and raw HTML are one inline each). */
const SPACED = new Set(['data', 'lineEnding', 'whitespace', 'lineSuffix', 'linePrefix']);

/**
 * The opener of the closing sequence at `index`: the nearest unpaired one, the text between not empty and holding no
 * white space outside code spans and raw HTML; -1 for none. The scan stops at white space or a finished span of its
 * kind, so a paragraph costs what its words do, not its length for each marker.
 */
function openerOf(events: Event[], index: number, marker: number, type: string, context: TokenizeContext): number {
  let opaque = 0;
  for (let i = index - 1; i >= 0; i--) {
    const [kind, token] = events[i] as Event;
    if (token.type === 'codeText' || token.type === 'htmlText') {
      opaque += kind === 'exit' ? 1 : -1;
      continue;
    }
    if (opaque > 0) continue;
    if (kind === 'exit' && token.type === 'scriptSequenceTemporary' && token._marker === marker)
      return i === index - 1 ? -1 : i;
    if (kind === 'exit' && token.type === type) return -1;
    if (kind === 'enter' && SPACED.has(token.type) && /\s/.test(context.sliceSerialize(token).replace(/\\ /g, '')))
      return -1;
  }
  return -1;
}

/** The syntax of one script: a single `marker` (not next to another) as a sequence that resolveAll pairs. */
function scriptConstruct(marker: number, type: 'superscript' | 'subscript'): Construct {
  const resolveAll: Resolver = (events, context) => {
    for (let index = 0; index < events.length; index++) {
      const close = events[index] as Event;
      if (close[0] !== 'enter' || close[1].type !== 'scriptSequenceTemporary' || close[1]._marker !== marker) continue;
      const open = openerOf(events, index, marker, type, context);
      const opener = events[open];
      if (!opener) continue;
      opener[1].type = 'scriptSequence';
      close[1].type = 'scriptSequence';
      const span = { type: type, start: { ...opener[1].start }, end: { ...close[1].end } };
      const text = { type: 'scriptText' as const, start: { ...opener[1].end }, end: { ...close[1].start } };
      const next: Event[] = [
        ['enter', span, context],
        ['enter', opener[1], context],
        ['exit', opener[1], context],
        ['enter', text, context],
        ...resolveInsideSpan(events.slice(open + 1, index), context),
        ['exit', text, context],
        ['enter', close[1], context],
        ['exit', close[1], context],
        ['exit', span, context],
      ];
      spliceEvents(events, open - 1, index - open + 3, next);
      index = open - 1 + next.length - 1;
    }
    for (const event of events)
      if (event[1].type === 'scriptSequenceTemporary' && event[1]._marker === marker) event[1].type = 'data';
    return events;
  };
  function tokenize(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
    const previous = this.previous;
    const last = this.events.at(-1);
    const start: State = (code) => {
      // Not right after the same marker (unless escaped): `~~` is strikethrough's, `^^` text.
      if (previous === marker && last?.[1].type !== 'characterEscape') return nok(code);
      effects.enter('scriptSequenceTemporary', { _marker: marker });
      effects.consume(code);
      return after;
    };
    const after: State = (code) => {
      if (code === marker) return nok(code);
      effects.exit('scriptSequenceTemporary');
      return ok(code);
    };
    return start;
  }
  return { name: type, tokenize, resolveAll };
}

declare module 'micromark-util-types' {
  interface Token {
    /** The character of a script's sequence (scripts.ts). */
    _marker?: number;
  }
}

const superscriptConstruct = scriptConstruct(CARET, 'superscript');
const subscriptConstruct = scriptConstruct(TILDE, 'subscript');

/** Superscript's syntax: a caret. */
export const superscriptSyntax: Extension = {
  text: { [CARET]: superscriptConstruct },
  insideSpan: { null: [superscriptConstruct] },
};

/** Subscript's syntax: a single tilde (it fails on two, which strikethrough, asked for two only, takes). */
export const subscriptSyntax: Extension = {
  text: { [TILDE]: subscriptConstruct },
  insideSpan: { null: [subscriptConstruct] },
};

/** `\ ` in a script's text is pandoc's space that does not break (code keeps it as written). */
function escapedSpaces(node: Parent): void {
  const stack: Parent[] = [node];
  for (let parent = stack.pop(); parent; parent = stack.pop())
    for (const child of parent.children) {
      if (child.type === 'text') child.value = child.value.replace(/\\ /g, '\u00a0');
      else if ('children' in child) stack.push(child);
    }
}

function enterScript(this: CompileContext, token: Token): void {
  const type = token.type === 'subscript' ? 'subscript' : 'superscript';
  this.enter({ type, children: [] as PhrasingContent[] }, token);
}
function exitScript(this: CompileContext, token: Token): void {
  const node = this.stack.at(-1);
  if (node && 'children' in node) escapedSpaces(node);
  this.exit(token);
}

/** The `superscript` and `subscript` nodes (compile/handlers/script.ts). */
export const scriptsFromMarkdown = {
  canContainEols: ['superscript', 'subscript'],
  enter: { superscript: enterScript, subscript: enterScript },
  exit: { superscript: exitScript, subscript: exitScript },
};
