// pandoc's inline notes `^[text with *markup*]` (issue 33, item 6; docs/elements.md), in both dialects: the brackets
// balance (nested `[…]`, a code span or an escaped bracket may hold a `]`), their text is markdown, and the note
// becomes a footnote like a `[^1]` one (inlineNotes: a reference where it stands, its definition at the end), numbered
// in the same sequence. GFM's reading wins where it has one: `^[text](url)`, `^[text][ref]`, `^[label]` of a defined
// link and `^[^1]` stay a caret before a link or a footnote call.
import type {
  FootnoteDefinition,
  FootnoteReference,
  InlineNote,
  Nodes,
  Paragraph,
  Parent,
  PhrasingContent,
  Root,
} from 'mdast';
import type { Code, Construct, Effects, Extension, State, Token, TokenizeContext } from 'micromark-util-types';
import type { CompileContext } from './scripts.ts';

declare module 'micromark-util-types' {
  interface TokenTypeMap {
    inlineNote: 'inlineNote';
    inlineNoteMarker: 'inlineNoteMarker';
  }
}

declare module 'mdast' {
  /** `^[…]` as parsed, before inlineNotes makes it a footnote. */
  interface InlineNote extends Parent {
    type: 'inlineNote';
    children: PhrasingContent[];
  }
  interface PhrasingContentMap {
    inlineNote: InlineNote;
  }
  interface RootContentMap {
    inlineNote: InlineNote;
  }
}

const CARET = 94;
const OPEN = 91;
const CLOSE = 93;
const BACKSLASH = 92;
const BACKTICK = 96;
const PAREN = 40;
/** At most this many `^[` inside one note (notes cannot nest in Word): each level would scan its text again. */
export const MAX_INNER_NOTES = 8;

const isLineEnding = (code: Code): boolean => code !== null && code < -2;
/** A character of the label as micromark normalizes it (virtual spaces of a tab are spaces). */
const charOf = (code: number): string => (code < 0 ? ' ' : String.fromCodePoint(code));
/** micromark's normalizeIdentifier: the key of `parser.defined`. */
const normalize = (label: string): string =>
  label
    .replace(/[\t\n\r ]+/g, ' ')
    .trim()
    .toLowerCase()
    .toUpperCase();

/** A code span's closing run of exactly `size` backticks ahead (checked only: pandoc skips code spans as one). */
function closingRun(size: number): Construct {
  return {
    partial: true,
    tokenize(effects: Effects, ok: State, nok: State): State {
      let run = 0;
      const scan: State = (code) => {
        if (code === null) return nok(code);
        if (code === BACKTICK) {
          run += 1;
          effects.consume(code);
          return scan;
        }
        if (run === size) return ok(code);
        run = 0;
        effects.consume(code);
        return scan;
      };
      return scan;
    },
  };
}

function tokenizeInlineNote(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
  const defined = this.parser.defined;
  let depth = 0;
  let inner = 0;
  let label = '';
  let ticks = 0;
  let run = 0;
  let chunk: Token | undefined;
  let previousChunk: Token | undefined;

  // The note's text is one chunk a line, linked, as a paragraph's are: each starts where its line's text does.
  const openChunk = (): void => {
    if (chunk) return;
    chunk = effects.enter('chunkText', { contentType: 'text', ...(previousChunk ? { previous: previousChunk } : {}) });
    if (previousChunk) previousChunk.next = chunk;
  };
  const closeChunk = (): void => {
    if (!chunk) return;
    previousChunk = effects.exit('chunkText');
    chunk = undefined;
  };
  const take = (code: number): void => {
    openChunk();
    label += charOf(code);
    effects.consume(code);
    if (isLineEnding(code)) closeChunk();
  };

  const start: State = (code) => {
    effects.enter('inlineNote');
    effects.enter('inlineNoteMarker');
    effects.consume(code);
    return bracket;
  };
  const bracket: State = (code) => {
    if (code !== OPEN) return nok(code);
    effects.consume(code);
    effects.exit('inlineNoteMarker');
    return first;
  };
  // `^[]` is no note, and `^[^1]` a caret before a footnote call.
  const first: State = (code) => (code === CLOSE || code === CARET ? nok(code) : content(code));
  const content: State = (code) => {
    if (code === null) return nok(code);
    if (code === CLOSE && depth === 0) {
      closeChunk();
      effects.enter('inlineNoteMarker');
      effects.consume(code);
      effects.exit('inlineNoteMarker');
      effects.exit('inlineNote');
      return after;
    }
    if (code === OPEN) {
      depth += 1;
      if (label.endsWith('^') && ++inner > MAX_INNER_NOTES) return nok(code);
    } else if (code === CLOSE) depth -= 1;
    take(code);
    if (code === BACKSLASH) return escaped;
    if (code === BACKTICK) {
      ticks = 1;
      return openingRun;
    }
    return content;
  };
  const escaped: State = (code) => {
    if (code === null || isLineEnding(code)) return content(code);
    take(code);
    return content;
  };
  const openingRun: State = (code) => {
    if (code === BACKTICK) {
      ticks += 1;
      take(code);
      return openingRun;
    }
    // Without its closing run the backticks are text, as in a code span.
    return effects.check(closingRun(ticks), inCode, content)(code);
  };
  const inCode: State = (code) => {
    if (code === null) return nok(code);
    if (code === BACKTICK) {
      run = 0;
      return closing(code);
    }
    take(code);
    return inCode;
  };
  const closing: State = (code) => {
    if (code === BACKTICK) {
      run += 1;
      take(code);
      return closing;
    }
    return run === ticks ? content(code) : inCode(code);
  };
  // A link's destination or reference after the brackets, or the label of a defined link: GFM's link.
  const after: State = (code) => {
    if (code === PAREN || code === OPEN || defined.includes(normalize(label))) return nok(code);
    return ok(code);
  };
  return start;
}

const inlineNoteConstruct: Construct = { name: 'inlineNote', tokenize: tokenizeInlineNote };

/** The syntax of inline notes: at a caret, before superscript's sequence is tried. */
export const inlineNoteSyntax: Extension = { text: { [CARET]: inlineNoteConstruct } };

/** The `inlineNote` nodes. */
export const inlineNoteFromMarkdown = {
  // Its text's line endings are kept, as a paragraph's.
  canContainEols: ['inlineNote'],
  enter: {
    inlineNote(this: CompileContext, token: Token): void {
      this.enter({ type: 'inlineNote', children: [] }, token);
    },
  },
  exit: {
    inlineNote(this: CompileContext, token: Token): void {
      this.exit(token);
    },
  },
};

/** The identifier of the nth inline note: with spaces, which no `[^label]` has, so it meets none. */
const noteIdentifier = (n: number): string => `^ inline ${String(n)}`;

/** A note's text in parentheses, for a note inside a note. */
function inParentheses(note: InlineNote): PhrasingContent[] {
  const inner = [...note.children];
  const first = inner[0];
  if (first?.type === 'text') inner[0] = { ...first, value: `(${first.value}` };
  else inner.unshift({ type: 'text', value: '(' });
  const last = inner.at(-1);
  if (last?.type === 'text') inner[inner.length - 1] = { ...last, value: `${last.value})` };
  else inner.push({ type: 'text', value: ')' });
  return inner;
}

/**
 * Makes each inline note a footnote: a reference where it stands and its definition (a paragraph of its text) at the
 * end of the document, so it is numbered with the `[^1]` notes in document order. A note inside a note (Word has no
 * notes in notes) is its text in parentheses; `nested` gets the line of each.
 */
export function inlineNotes(tree: Root, nested: (line: number | undefined) => void): void {
  const definitions: FootnoteDefinition[] = [];
  // Document order: children are pushed last first. The notes' own text is walked after, as inside a note.
  const stack: { node: Nodes; inNote: boolean }[] = [{ node: tree, inNote: false }];
  const walk = (): void => {
    for (let entry = stack.pop(); entry; entry = stack.pop()) {
      const { node, inNote } = entry;
      if (!('children' in node)) continue;
      const children = node.children as Nodes[];
      for (let i = 0; i < children.length; i++) {
        const child = children[i] as Nodes;
        if (child.type !== 'inlineNote') continue;
        if (inNote) {
          nested(child.position?.start.line);
          const inner = inParentheses(child);
          children.splice(i, 1, ...inner);
          i -= 1;
          continue;
        }
        const identifier = noteIdentifier(definitions.length + 1);
        const position = child.position ? { position: child.position } : {};
        const reference: FootnoteReference = { type: 'footnoteReference', identifier, label: identifier, ...position };
        children[i] = reference;
        const paragraph: Paragraph = { type: 'paragraph', children: child.children, ...position };
        definitions.push({
          type: 'footnoteDefinition',
          identifier,
          label: identifier,
          children: [paragraph],
          ...position,
        });
      }
      const inside = inNote || node.type === 'footnoteDefinition';
      for (let i = children.length - 1; i >= 0; i--) {
        const child = children[i] as Nodes;
        if ('children' in child) stack.push({ node: child, inNote: inside });
      }
    }
  };
  walk();
  for (let i = definitions.length - 1; i >= 0; i--) stack.push({ node: definitions[i] as Nodes, inNote: true });
  walk();
  tree.children.push(...definitions);
}
