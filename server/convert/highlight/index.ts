// Syntax highlighting of fenced code, as the engine uses it: the languages a document's code is in are found first
// (languages.ts), and only then is the highlighter (lowlight) loaded, with those languages' grammars alone.
import type { Root } from 'mdast';
import { findStyle, type TemplateStyle } from '../template/styles.ts';
import { languageOf, languagesIn } from './languages.ts';
import { TOKEN_KINDS, type Highlighted, type TokenKind } from './tokens.ts';

/** What the compiler is given to highlight a conversion's code. */
export interface CodeHighlighting {
  /** A block's tokens, or the warning why it stays plain; undefined: its language is none highlighted (plain). */
  highlight(code: string, lang: string | null | undefined): Highlighted | undefined;
  /** The template's style id of each token kind: its own style of the kind's name, else the kind's name (added). */
  styles: Readonly<Record<TokenKind, string>>;
}

/** `KeywordTok` → `Keyword Tok`: the name a template made by hand in Word may give pandoc's style. */
const spaced = (kind: string): string => kind.replace(/Tok$/, ' Tok');

/** The template's character style of a token kind, by pandoc's name (`KeywordTok`, also `Keyword Tok`) or id. */
export function templateTokenStyle(styles: readonly TemplateStyle[], kind: TokenKind): TemplateStyle | undefined {
  for (const name of [kind, spaced(kind)]) {
    const style = findStyle(styles, name);
    if (style?.type === 'character') return style;
  }
  return undefined;
}

/**
 * The highlighting of one conversion's code, or undefined when the document has no fenced code in a language
 * highlighted: then nothing of the highlighter is loaded.
 */
export async function codeHighlighting(
  tree: Root,
  templateStyles: readonly TemplateStyle[],
): Promise<CodeHighlighting | undefined> {
  const languages = languagesIn(tree);
  if (languages.size === 0) return undefined;
  const { Highlighter, loadLanguages } = await import('./highlighter.ts');
  await loadLanguages(languages);
  const highlighter = new Highlighter();
  const styles = Object.fromEntries(
    TOKEN_KINDS.map((kind) => [kind, templateTokenStyle(templateStyles, kind)?.id ?? kind]),
  ) as Record<TokenKind, string>;
  return {
    highlight: (code, lang) => {
      const name = languageOf(lang);
      return name === undefined ? undefined : highlighter.highlight(code, name);
    },
    styles,
  };
}
