import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { findStyle, type TemplateStyle } from '../template/styles.ts';
import { children, isW, parsePart, setWAttr, wAttr, wChild, wElement, wElementsIn } from './dom.ts';
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
  {
    // Bibliography entries (citations/): Word's built-in name; a hanging indent, as APA and pandoc's template set it.
    id: 'Bibliography',
    name: 'Bibliography',
    type: 'paragraph',
    xml: '<w:style w:type="paragraph" w:styleId="Bibliography"><w:name w:val="Bibliography"/><w:uiPriority w:val="37"/><w:unhideWhenUsed/><w:pPr><w:spacing w:after="120"/><w:ind w:left="720" w:hanging="720"/></w:pPr></w:style>',
  },
] as const;

/** The style ids docx writes by itself (see SUPPORT_STYLES). */
export const SUPPORT_STYLE_IDS: readonly string[] = SUPPORT_STYLES.map((s) => s.id);

/**
 * Points the style ids docx writes by itself (footnote reference, List Paragraph) in `referrers` at the template's
 * styles of the same Word name; returns the support styles referred to (addSupportStyles adds those the template
 * lacks).
 */
export function pointSupportStyles(
  templateStyles: readonly TemplateStyle[],
  referrers: readonly (XmlDocument | Element)[],
): Set<string> {
  const found = wElementsIn(
    referrers.map((r) => ('documentElement' in r ? r.documentElement : r)).filter((e): e is Element => !!e),
    ['pStyle', 'rStyle'],
  );
  const all = [...(found.get('pStyle') ?? []), ...(found.get('rStyle') ?? [])];
  const referenced = new Set<string>();
  for (const support of SUPPORT_STYLES) {
    const references = all.filter((e) => wAttr(e, 'val') === support.id);
    if (references.length === 0) continue;
    referenced.add(support.id);
    const to = supportStyleId(templateStyles, support.id);
    if (to !== undefined) for (const ref of references) setWAttr(ref, 'val', to);
  }
  return referenced;
}

/** The template's id for a support style id docx writes when it differs (the same style under another id), else undefined. */
export function supportStyleId(templateStyles: readonly TemplateStyle[], id: string): string | undefined {
  const support = SUPPORT_STYLES.find((s) => s.id === id);
  if (!support) return undefined;
  const own = findStyle(templateStyles, support.name);
  return own && own.type === support.type && own.id !== support.id ? own.id : undefined;
}

/**
 * Adds to the template's styles (`open` parses them, only then) the definitions of the support styles in
 * `referenced` that the template has neither by name nor by id, each based on the template's default style of its
 * type (its Normal, whatever its id), so it inherits the template's font, size and spacing rather than Word's defaults;
 * returns the styles part when it changed, else null.
 */
export function addSupportStyles(
  open: () => XmlDocument | null,
  templateStyles: readonly TemplateStyle[],
  referenced: ReadonlySet<string>,
): XmlDocument | null {
  let styles: XmlDocument | null = null;
  let changed = false;
  for (const support of SUPPORT_STYLES) {
    if (!referenced.has(support.id)) continue;
    const own = findStyle(templateStyles, support.name);
    if (own && own.type === support.type) continue;
    if (!templateStyles.some((s) => s.id === support.id) && (styles ??= open())?.documentElement) {
      const definition = parsePart(`<w:styles xmlns:w="${NS.w}">${support.xml}</w:styles>`, 'styles.xml')
        .documentElement?.firstChild;
      if (definition) {
        const added = styles.importNode(definition, true) as Element;
        const base = defaultStyleId(styles, support.type);
        if (base !== undefined)
          added.insertBefore(wElement(styles, 'basedOn', { val: base }), wChild(added, 'name')?.nextSibling ?? null);
        styles.documentElement.appendChild(added);
      }
      changed = true;
    }
  }
  if (!changed || !styles) return null;
  declareNamespaces(styles);
  return styles;
}

/** Run properties that follow w:lang in CT_RPr (ECMA-376 Part 1, 17.3.2.28): w:lang goes before the first of them. */
const AFTER_LANG = new Set(['eastAsianLayout', 'specVanish', 'oMath', 'rPrChange']);

/** Sets w:lang's w:val (and the attributes `lang` names) on run properties, adding the element in its place. */
function setRunLanguage(styles: XmlDocument, rPr: Element, lang: Record<string, string>): void {
  let element = wChild(rPr, 'lang');
  if (!element) {
    element = wElement(styles, 'lang');
    rPr.insertBefore(element, children(rPr).find((c) => AFTER_LANG.has(c.localName ?? '')) ?? null);
  }
  for (const [name, value] of Object.entries(lang)) setWAttr(element, name, value);
}

/**
 * The document's language (front matter `lang`) as the styles' document defaults give it to text: w:lang of
 * w:docDefaults (added with its parents where missing), and of the default paragraph style when it names one (it
 * would override the defaults). `lang` holds w:lang's attributes (val, and eastAsia or bidi for such languages).
 */
export function setDocumentLanguage(open: () => XmlDocument | null, lang: Record<string, string>): XmlDocument | null {
  const styles = open();
  const root = styles?.documentElement;
  if (!styles || !root) return null;
  let defaults = wChild(root, 'docDefaults');
  if (!defaults) {
    defaults = wElement(styles, 'docDefaults');
    root.insertBefore(defaults, root.firstChild);
  }
  let rPrDefault = wChild(defaults, 'rPrDefault');
  if (!rPrDefault) {
    rPrDefault = wElement(styles, 'rPrDefault');
    defaults.insertBefore(rPrDefault, defaults.firstChild);
  }
  let rPr = wChild(rPrDefault, 'rPr');
  if (!rPr) {
    rPr = wElement(styles, 'rPr');
    rPrDefault.appendChild(rPr);
  }
  setRunLanguage(styles, rPr, lang);
  const normal = defaultStyleId(styles, 'paragraph');
  const style = children(root).find((s) => isW(s, 'style') && normal !== undefined && wAttr(s, 'styleId') === normal);
  const styleRPr = wChild(style, 'rPr');
  if (styleRPr && wChild(styleRPr, 'lang')) setRunLanguage(styles, styleRPr, lang);
  return styles;
}

/** ST_OnOff's values for on. */
const ON = new Set(['1', 'true', 'on']);

/** The id of a styles part's default style of `type` (`w:default` on: Normal, Default Paragraph Font), if any. */
function defaultStyleId(styles: XmlDocument, type: string): string | undefined {
  const root = styles.documentElement;
  if (!root) return undefined;
  const style = children(root).find(
    (s) => isW(s, 'style') && wAttr(s, 'type') === type && ON.has(wAttr(s, 'default')) && wAttr(s, 'styleId') !== '',
  );
  return style ? wAttr(style, 'styleId') : undefined;
}

/** The language a styles part gives text: w:lang of its default paragraph style, else of its document defaults. */
export function languageOf(styles: XmlDocument | null): string | undefined {
  const root = styles?.documentElement;
  if (!styles || !root) return undefined;
  const normal = defaultStyleId(styles, 'paragraph');
  const style = children(root).find((s) => isW(s, 'style') && normal !== undefined && wAttr(s, 'styleId') === normal);
  const defaults = wChild(wChild(wChild(root, 'docDefaults'), 'rPrDefault'), 'rPr');
  for (const rPr of [wChild(style, 'rPr'), defaults]) {
    const lang = wChild(rPr, 'lang');
    if (lang && wAttr(lang, 'val')) return wAttr(lang, 'val');
  }
  return undefined;
}
