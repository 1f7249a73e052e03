import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { findStyle, type TemplateStyle } from '../template/styles.ts';
import { descendants, parsePart, setWAttr, wAttr } from './dom.ts';
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
 * the id. Returns true when the styles part changed.
 */
export function supportStyles(styles: XmlDocument | null, templateStyles: readonly TemplateStyle[], referrers: readonly (XmlDocument | Element)[]): boolean {
  let changed = false;
  for (const support of SUPPORT_STYLES) {
    const references = referrers.flatMap((r) => [...descendants(r, NS.w, 'pStyle'), ...descendants(r, NS.w, 'rStyle')]).filter((e) => wAttr(e, 'val') === support.id);
    if (references.length === 0) continue;
    const own = findStyle(templateStyles, support.name);
    if (own && own.type === support.type) {
      if (own.id !== support.id) for (const ref of references) setWAttr(ref, 'val', own.id);
    } else if (styles?.documentElement && !templateStyles.some((s) => s.id === support.id)) {
      const definition = parsePart(`<w:styles xmlns:w="${NS.w}">${support.xml}</w:styles>`, 'styles.xml').documentElement?.firstChild;
      if (definition) styles.documentElement.appendChild(styles.importNode(definition, true));
      changed = true;
    }
  }
  if (changed && styles) declareNamespaces(styles);
  return changed;
}
