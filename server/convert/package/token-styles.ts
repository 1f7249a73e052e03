import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { templateTokenStyle } from '../highlight/index.ts';
import { CODE_FONT, CODE_HALF_POINTS, TOKEN_KINDS, TOKEN_THEME } from '../highlight/tokens.ts';
import { findStyle, type TemplateStyle } from '../template/styles.ts';
import { children, isW, wAttr, wElement } from './dom.ts';
import { declareNamespaces } from './namespaces.ts';

/** ST_OnOff's values for on. */
const ON = new Set(['1', 'true', 'on']);

/**
 * The style the added token styles are based on: the template's code character style by pandoc's name ("Verbatim
 * Char"), else its default character style; undefined: none (Word's defaults then, as the template has no other).
 */
function tokenBase(styles: XmlDocument, templateStyles: readonly TemplateStyle[]): string | undefined {
  const verbatim = findStyle(templateStyles, 'Verbatim Char');
  if (verbatim?.type === 'character') return verbatim.id;
  const root = styles.documentElement;
  const fallback = root
    ? children(root).find((s) => isW(s, 'style') && wAttr(s, 'type') === 'character' && ON.has(wAttr(s, 'default')))
    : undefined;
  return fallback && wAttr(fallback, 'styleId') !== '' ? wAttr(fallback, 'styleId') : undefined;
}

/** A token kind's character style in pandoc's default theme, as pandoc defines it (its name is its id). */
function tokenStyle(doc: XmlDocument, kind: (typeof TOKEN_KINDS)[number], basedOn: string | undefined): Element {
  const style = wElement(doc, 'style', { type: 'character', customStyle: '1', styleId: kind });
  style.appendChild(wElement(doc, 'name', { val: kind }));
  if (basedOn !== undefined) style.appendChild(wElement(doc, 'basedOn', { val: basedOn }));
  style.appendChild(wElement(doc, 'uiPriority', { val: '99' }));
  const look = TOKEN_THEME[kind];
  const rPr = wElement(doc, 'rPr');
  // In the schema's order: font, bold, italic, colour, size (code's font and 9 pt: the runs carry neither).
  const font = { ascii: CODE_FONT, hAnsi: CODE_FONT, eastAsia: CODE_FONT, cs: CODE_FONT };
  rPr.appendChild(wElement(doc, 'rFonts', font));
  const names = [...(look.bold ? ['b', 'bCs'] : []), ...(look.italics ? ['i', 'iCs'] : [])];
  for (const name of names) rPr.appendChild(wElement(doc, name));
  if (look.color !== undefined) rPr.appendChild(wElement(doc, 'color', { val: look.color }));
  for (const name of ['sz', 'szCs']) rPr.appendChild(wElement(doc, name, { val: String(CODE_HALF_POINTS) }));
  style.appendChild(rPr);
  return style;
}

/**
 * Adds to the template's styles (`open` parses them, only then) a style for every token kind the template has
 * neither by name (`KeywordTok`, `Keyword Tok`) nor by id, in pandoc's default theme and based on the template's own
 * code character style (tokenBase); returns the styles part when it changed, else null. All kinds, as pandoc adds
 * them: whoever restyles the document finds each.
 */
export function addTokenStyles(
  open: () => XmlDocument | null,
  templateStyles: readonly TemplateStyle[],
): XmlDocument | null {
  const missing = TOKEN_KINDS.filter(
    (kind) => templateTokenStyle(templateStyles, kind) === undefined && !templateStyles.some((s) => s.id === kind),
  );
  const styles = missing.length > 0 ? open() : null;
  const root = styles?.documentElement;
  if (!styles || !root) return null;
  const basedOn = tokenBase(styles, templateStyles);
  for (const kind of missing) root.appendChild(tokenStyle(styles, kind, basedOn));
  declareNamespaces(styles);
  return styles;
}
