// Highlights fenced code with lowlight (highlight.js 11): loaded by the engine only for a document with fenced code in
// a language of languages.ts, so a conversion without any never pays for it. highlight.js has no time limit of its
// own, and some grammars are quadratic on hostile text (C's on 16 KB of bare identifiers: about 0.6 s, docs/elements.md),
// so a block is highlighted only up to MAX_BLOCK_CHARS and a document's blocks together up to MAX_DOCUMENT_CHARS;
// beyond, the code stays plain and a warning says so.
import type { ElementContent, Root } from 'hast';
import { createLowlight } from 'lowlight';
import { LANGUAGES } from './languages.ts';
import { scopeKind, type Highlighted, type Token, type TokenKind } from './tokens.ts';

/** The most characters of one code block highlighted; a longer block stays plain (with a warning). */
export const MAX_BLOCK_CHARS = 16 * 1024;
/** The most characters of code a document has highlighted; the blocks past it stay plain (with a warning). */
export const MAX_DOCUMENT_CHARS = 256 * 1024;

/**
 * Grammars that highlight other languages inside them count this many times their characters against both limits:
 * XML's (HTML's) highlights a `<script>`'s content as JavaScript and the rest again as XML, so 16 KB of `<script>`
 * took 13–15 s (the review of 2026-11-27); counted 4×, a block is highlighted up to 4 KB (under a second).
 */
const COST: Readonly<Record<string, number>> = { xml: 4 };

const lowlight = createLowlight();

/** Registers the grammars of `names` (languages.ts) not registered yet. */
export async function loadLanguages(names: Iterable<string>): Promise<void> {
  const wanted = [...names].filter((name) => Object.hasOwn(LANGUAGES, name) && !lowlight.registered(name));
  const grammars = await Promise.all(
    wanted.map(async (name) => ({ name, grammar: (await LANGUAGES[name]?.load())?.default })),
  );
  for (const { name, grammar } of grammars) if (grammar) lowlight.register(name, grammar);
}

/** The highlighter of one conversion: it counts the characters highlighted against MAX_DOCUMENT_CHARS. */
export class Highlighter {
  private highlighted = 0;

  /** The tokens of `code` in `language` (a name of languages.ts whose grammar is loaded). */
  highlight(code: string, language: string): Highlighted {
    const kb = (chars: number) => `${String(Math.ceil(chars / 1024))} KB`;
    const cost = COST[language] ?? 1;
    if (code.length * cost > MAX_BLOCK_CHARS)
      return {
        warning: `highlight_skipped: ${language} (a code block of ${kb(code.length)}; at most ${kb(MAX_BLOCK_CHARS / cost)} is highlighted)`,
      };
    if (this.highlighted + code.length * cost > MAX_DOCUMENT_CHARS)
      return {
        warning: `highlight_skipped: ${language} (the document's code past ${kb(MAX_DOCUMENT_CHARS)} is not highlighted)`,
      };
    this.highlighted += code.length * cost;
    let tree: Root;
    try {
      tree = lowlight.highlight(language, code, { prefix: '' });
    } catch {
      // A grammar that fails on this text (highlight.js reports it as an error): the code stays as written.
      return { warning: `highlight_skipped: ${language} (the highlighter failed on this block)` };
    }
    const lines = linesOf(tree);
    // Never lose a character: highlighting only colours what was written.
    if (lines.map((line) => line.map((t) => t.text).join('')).join('\n') !== code.replace(/\r\n?/g, '\n'))
      return { warning: `highlight_skipped: ${language} (the highlighter changed the text)` };
    return { lines };
  }
}

/** A hast element's kind: its scope (class names `title`, `function_` → `title.function`), else the one around it. */
function kindOf(classes: unknown, around: TokenKind): TokenKind {
  if (!Array.isArray(classes) || typeof classes[0] !== 'string') return around;
  const scope = classes.map((c) => String(c).replace(/_+$/, '')).join('.');
  // A sublanguage's wrapper (`language-css`) is no token: its content is the embedded language's.
  if (scope.startsWith('language-')) return 'NormalTok';
  return scopeKind(scope) ?? around;
}

const BLANK = /^[ \t]+$/;

/** The tokens of a highlighted tree, split into lines (a token across lines, a block comment, is cut at each). */
function linesOf(tree: Root): Token[][] {
  const lines: Token[][] = [[]];
  const push = (text: string, kind: TokenKind): void => {
    const parts = text.split(/\r\n|\r|\n/);
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      const line = lines[lines.length - 1];
      if (part === '' || !line) return;
      const last = line[line.length - 1];
      // White space shows no colour: it joins the token before it, and a token joins white space alone before it
      // (a line's indentation), so a line has fewer runs.
      if (last && (last.kind === kind || BLANK.test(part))) last.text += part;
      else if (last && BLANK.test(last.text)) Object.assign(last, { text: last.text + part, kind });
      else line.push({ text: part, kind });
    });
  };
  const stack: { node: ElementContent; kind: TokenKind }[] = [];
  for (let i = tree.children.length - 1; i >= 0; i--) {
    const child = tree.children[i];
    if (child && child.type !== 'doctype') stack.push({ node: child, kind: 'NormalTok' });
  }
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { node, kind } = item;
    if (node.type === 'text') push(node.value, kind);
    else if (node.type === 'element') {
      const inner = kindOf(node.properties.className, kind);
      for (let i = node.children.length - 1; i >= 0; i--) {
        const child = node.children[i];
        if (child) stack.push({ node: child, kind: inner });
      }
    }
  }
  return lines;
}
