// Syntax highlighting of fenced code, as the engine uses it: the languages a document's code is in are found first
// (languages.ts), and only then is the highlighter (lowlight) loaded, with those languages' grammars alone.
import type { Root } from 'mdast';
import { parseXml, siblingPath, type Template } from '../template/read.ts';
import { findStyle, type TemplateStyle } from '../template/styles.ts';
import { W_NS, wChild } from '../template/wordml.ts';
import { decodeUtf8 } from '../xml.ts';
import { languageOf, languagesIn } from './languages.ts';
import { CODE_FONT, CODE_HALF_POINTS, TOKEN_KINDS, type Highlighted, type TokenKind } from './tokens.ts';

/** What the compiler is given to highlight a conversion's code. */
export interface CodeHighlighting {
  /** A block's tokens, or the warning why it stays plain; undefined: its language is none highlighted (plain). */
  highlight(code: string, lang: string | null | undefined): Highlighted | undefined;
  /** The template's style of each token kind (tokenStylesOf); `own`: the runs carry code's font and size. */
  styles: Readonly<Record<TokenKind, { id: string; own: boolean }>>;
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

/** The template's style of each token kind, by template (worked out once: templates are reused). */
const tokenStyles = new WeakMap<Template, Readonly<Record<TokenKind, { id: string; own: boolean }>>>();

/**
 * The style of each token kind in a template: the template's own (by name, else by id), else ours (the kind's name,
 * added by the package step). `own`: a style that does not itself give code's font and size (Consolas, 9 pt, as
 * Docwright's token styles do), so the runs carry them.
 */
function tokenStylesOf(template: Template): Readonly<Record<TokenKind, { id: string; own: boolean }>> {
  const known = tokenStyles.get(template);
  if (known) return known;
  const xml = template.parts.get(siblingPath(template.mainPart, 'styles.xml'));
  const codeSized = new Set<string>();
  if (xml !== undefined)
    for (const style of Array.from(parseXml(decodeUtf8(xml), 'styles.xml').getElementsByTagNameNS(W_NS, 'style'))) {
      const rPr = wChild(style, 'rPr');
      const size = wChild(rPr, 'sz')?.getAttributeNS(W_NS, 'val');
      const font = wChild(rPr, 'rFonts')?.getAttributeNS(W_NS, 'ascii');
      if (size === String(CODE_HALF_POINTS) && font === CODE_FONT)
        codeSized.add(style.getAttributeNS(W_NS, 'styleId') ?? '');
    }
  const styles = Object.fromEntries(
    TOKEN_KINDS.map((kind) => {
      const own = templateTokenStyle(template.styles, kind) ?? template.styles.find((s) => s.id === kind);
      return [kind, own ? { id: own.id, own: !codeSized.has(own.id) } : { id: kind, own: false }];
    }),
  ) as Record<TokenKind, { id: string; own: boolean }>;
  tokenStyles.set(template, styles);
  return styles;
}

/**
 * The highlighting of one conversion's code, or undefined when the document has no fenced code in a language
 * highlighted: then nothing of the highlighter is loaded.
 */
export async function codeHighlighting(tree: Root, template: Template): Promise<CodeHighlighting | undefined> {
  const languages = languagesIn(tree);
  if (languages.size === 0) return undefined;
  const { Highlighter, loadLanguages } = await import('./highlighter.ts');
  await loadLanguages(languages);
  const highlighter = new Highlighter();
  return {
    highlight: (code, lang) => {
      const name = languageOf(lang);
      return name === undefined ? undefined : highlighter.highlight(code, name);
    },
    styles: tokenStylesOf(template),
  };
}
