import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { optimisationsEnabled } from '../optimisations.ts';
import { findStyle, type TemplateStyle } from '../template/styles.ts';
import { parsePart, setWAttr, wAttr, wElementsIn } from './dom.ts';
import { declareNamespaces, NS } from './namespaces.ts';

/**
 * Styles that docx refers to by fixed ids, with the Word name to find them by in the template and a definition to
 * add when the template has neither.
 */
const SUPPORT_STYLES = [
  {
    id: 'FootnoteReference',
    name: 'footnote reference',
    type: 'character',
    xml: '<w:style w:type="character" w:styleId="FootnoteReference"><w:name w:val="footnote reference"/><w:uiPriority w:val="99"/><w:unhideWhenUsed/><w:rPr><w:vertAlign w:val="superscript"/></w:rPr></w:style>',
  },
  {
    id: 'ListParagraph',
    name: 'List Paragraph',
    type: 'paragraph',
    xml: '<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:uiPriority w:val="34"/><w:qFormat/><w:pPr><w:ind w:left="720"/><w:contextualSpacing/></w:pPr></w:style>',
  },
] as const;

/**
 * Points the style ids docx writes by itself (footnote reference, List Paragraph) in `referrers` at the template's
 * styles of the same Word name, or adds their definitions to the template's styles when it has neither the name nor
 * the id. `open` gives the template's styles part to add to (parsed only then); returns it when it changed, else null.
 */
export function supportStyles(
  open: () => XmlDocument | null,
  templateStyles: readonly TemplateStyle[],
  referrers: readonly (XmlDocument | Element)[],
): XmlDocument | null {
  // A support style the template has by name under docx's own id needs nothing; when both do, no walk either.
  const needed = optimisationsEnabled()
    ? SUPPORT_STYLES.filter((support) => {
        const own = findStyle(templateStyles, support.name);
        return !own || own.type !== support.type || own.id !== support.id;
      })
    : SUPPORT_STYLES;
  if (needed.length === 0) return null;
  let styles: XmlDocument | null = null;
  let changed = false;
  const found = wElementsIn(
    referrers.map((r) => ('documentElement' in r ? r.documentElement : r)).filter((e): e is Element => !!e),
    ['pStyle', 'rStyle'],
  );
  const all = [...(found.get('pStyle') ?? []), ...(found.get('rStyle') ?? [])];
  for (const support of needed) {
    const references = all.filter((e) => wAttr(e, 'val') === support.id);
    if (references.length === 0) continue;
    const own = findStyle(templateStyles, support.name);
    if (own && own.type === support.type) {
      if (own.id !== support.id) for (const ref of references) setWAttr(ref, 'val', own.id);
    } else if (!templateStyles.some((s) => s.id === support.id) && (styles ??= open())?.documentElement) {
      const definition = parsePart(`<w:styles xmlns:w="${NS.w}">${support.xml}</w:styles>`, 'styles.xml')
        .documentElement?.firstChild;
      if (definition) styles.documentElement.appendChild(styles.importNode(definition, true));
      changed = true;
    }
  }
  if (!changed || !styles) return null;
  declareNamespaces(styles);
  return styles;
}
