// TeX math (issue 33): `$…$` and `$$…$$` in text by pandoc's rule, the `$$` fence by micromark-extension-math's. Its
// own text construct does not follow pandoc's rule (`costs $5 and $10` is math there, and `\$` closes the span), so
// the text construct here replaces it, making the same tokens for mdast-util-math to turn into `inlineMath` nodes.
import type { Code, Construct, Effects, State, Token, TokenizeContext } from 'micromark-util-types';

declare module 'micromark-util-types' {
  /** The tokens of micromark-extension-math's text construct, which the one here makes too. */
  interface TokenTypeMap {
    mathText: 'mathText';
    mathTextData: 'mathTextData';
    mathTextSequence: 'mathTextSequence';
  }
}

const DOLLAR = 36;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

const isLineEnding = (code: Code): boolean => code !== null && code < -2;
const isSpace = (code: Code): boolean => code === 32 || code === 9 || code === -2 || code === -1;
const isLetter = (code: Code): boolean => code !== null && ((code >= 97 && code <= 122) || (code >= 65 && code <= 90));
const isDigit = (code: Code): boolean => code !== null && code >= 48 && code <= 57;

/**
 * `$…$` (inline) and `$$…$$` (display) as pandoc's tex_math_dollars reads them: after a single `$` no white space,
 * white space never right before the closing `$` (so not before any `$`: the span fails there), no digit after it; a
 * backslash takes the next character with it (`\$` does not close), and `\text{…}` may hold dollars. A `$$` span ends
 * at the next `$$` and may hold anything but a blank line (which a paragraph's text never holds).
 */
export const pandocMathText: Construct = {
  name: 'mathText',
  tokenize: tokenizeMathText,
  previous(this: TokenizeContext, code: Code): boolean {
    // As micromark-extension-math: not right after a `$`, unless that one was escaped.
    return code !== DOLLAR || this.events.at(-1)?.[1].type === 'characterEscape';
  },
};

function tokenizeMathText(effects: Effects, ok: State, nok: State): State {
  /** Brace depth inside `\text{…}` (0: outside). */
  let textBraces = 0;
  /** The letters of the command the last backslash started (`text` then `{` opens text that may hold dollars). */
  let command = '';
  let sequence: Token | undefined;

  const start: State = (code) => {
    effects.enter('mathText');
    effects.enter('mathTextSequence');
    effects.consume(code);
    return afterFirst;
  };

  const afterFirst: State = (code) => {
    if (code === DOLLAR) {
      effects.consume(code);
      effects.exit('mathTextSequence');
      return displayStart;
    }
    effects.exit('mathTextSequence');
    if (code === null || isSpace(code) || isLineEnding(code)) return nok(code);
    effects.enter('mathTextData');
    return inlineData(code);
  };

  // Inline: `$…$`. A data token is open in these states.
  const inlineData: State = (code) => {
    if (code === null) return nok(code);
    if (isLineEnding(code)) return lineEnding(code);
    if (textBraces > 0) {
      if (code === OPEN_BRACE) textBraces += 1;
      else if (code === CLOSE_BRACE) textBraces -= 1;
      effects.consume(code);
      return inlineData;
    }
    const opensText = code === OPEN_BRACE && command === 'text';
    command = '';
    if (opensText) textBraces = 1;
    if (code === DOLLAR) {
      effects.exit('mathTextData');
      effects.enter('mathTextSequence');
      effects.consume(code);
      effects.exit('mathTextSequence');
      effects.exit('mathText');
      return afterClose;
    }
    effects.consume(code);
    if (code === BACKSLASH) return escaped;
    return isSpace(code) ? space : inlineData;
  };

  /** After a backslash: the next character is TeX's, whatever it is (a line ending stays a line ending). */
  const escaped: State = (code) => {
    if (code === null) return nok(code);
    if (isLineEnding(code)) return lineEnding(code);
    effects.consume(code);
    if (!isLetter(code)) return inlineData;
    command = String.fromCharCode(code);
    return commandName;
  };

  const commandName: State = (code) => {
    if (!isLetter(code)) return inlineData(code);
    if (command.length < 5) command += String.fromCharCode(code ?? 0);
    effects.consume(code);
    return commandName;
  };

  /** After white space: a `$` fails the span (pandoc: no space before the closing `$`). */
  const space: State = (code) => {
    if (code === DOLLAR) return nok(code);
    if (isSpace(code)) {
      effects.consume(code);
      return space;
    }
    return inlineData(code);
  };

  const lineEnding = (code: Code): State | undefined => {
    effects.exit('mathTextData');
    effects.enter('lineEnding');
    effects.consume(code);
    effects.exit('lineEnding');
    return afterLineEnding;
  };

  /** The next line of the paragraph: starting with a `$`, it fails the span (as pandoc reads it). */
  const afterLineEnding: State = (code) => {
    if (code === DOLLAR && textBraces === 0) return nok(code);
    effects.enter('mathTextData');
    return inlineData(code);
  };

  /** After the closing `$`: a digit makes it no math at all (`$5 … $10`). */
  const afterClose: State = (code) => (isDigit(code) ? nok(code) : ok(code));

  // Display: `$$…$$`, which ends at the next `$$`.
  const displayStart: State = (code) => (code === DOLLAR ? nok(code) : displayBetween(code));

  const displayBetween: State = (code) => {
    if (code === null) return nok(code);
    if (code === DOLLAR) {
      sequence = effects.enter('mathTextSequence');
      effects.consume(code);
      return displayClose;
    }
    if (isLineEnding(code)) {
      effects.enter('lineEnding');
      effects.consume(code);
      effects.exit('lineEnding');
      return displayBetween;
    }
    effects.enter('mathTextData');
    return displayData(code);
  };

  const displayData: State = (code) => {
    if (code === null || code === DOLLAR || isLineEnding(code)) {
      effects.exit('mathTextData');
      return displayBetween(code);
    }
    effects.consume(code);
    return displayData;
  };

  const displayClose: State = (code) => {
    if (code === DOLLAR) {
      effects.consume(code);
      effects.exit('mathTextSequence');
      effects.exit('mathText');
      return ok;
    }
    // A lone `$` inside is data (as micromark-extension-math turns a sequence of the wrong size into data).
    if (sequence) sequence.type = 'mathTextData';
    return displayData(code);
  };

  return start;
}

declare module 'mdast-util-math' {
  interface InlineMathData {
    /** Written `$$…$$` in a paragraph: display math where it stands (pandoc's DisplayMath). */
    display?: boolean;
  }
}

/** What a from-markdown handler's `this` holds that the handler below uses (mdast-util-from-markdown's CompileContext). */
interface CompileContext {
  stack: { type: string; data?: Record<string, unknown> }[];
  sliceSerialize(token: Token): string;
}

/** Marks `inlineMath` written with `$$` as display math (mdast-util-math makes both kinds `inlineMath`). */
export const displayMathFromMarkdown = {
  enter: {
    mathTextSequence(this: CompileContext, token: Token): void {
      const node = this.stack.at(-2);
      if (node?.type === 'inlineMath' && this.sliceSerialize(token).length === 2)
        node.data = { ...node.data, display: true };
    },
  },
};
