// Numbered headings (front matter `number_sections`, the convert option): a multilevel list attached to the heading
// styles, Word's own way (w:numPr in each style, w:pStyle in each level), so a heading added in Word is numbered too.
import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { relsPath, siblingPath, type Template } from '../template/read.ts';
import { CONTENT_TYPE, ContentTypes } from './content-types.ts';
import { children, isW, parsePart, serializePart, wAttr, wChild, wElement } from './dom.ts';
import { insertionPoints, maxId } from './numbering.ts';
import { declareNamespaces, NS } from './namespaces.ts';
import { REL, Relationships } from './relationships.ts';
import { encodeUtf8 } from '../xml.ts';

/** Word's levels. */
const LEVELS = 9;

/** The numbering text of a level: `%1.`, `%1.%2.`, … (as the issue fixes them). */
export function levelText(level: number): string {
  return Array.from({ length: level + 1 }, (_, k) => `%${k + 1}.`).join('');
}

const variants = new WeakMap<Template, Map<string, Template>>();

/**
 * The template with its heading styles numbered: `styleIds[k]` is the paragraph style of heading level k + 1
 * (undefined: none). One abstract numbering and one instance are added to its numbering part (made when it has none),
 * with ids after the template's; each style gets w:numPr at its level. Made once per template and set of styles.
 */
export function withHeadingNumbering(template: Template, styleIds: readonly (string | undefined)[]): Template {
  const key = styleIds.map((id) => id ?? '').join('\u0000');
  let known = variants.get(template);
  if (!known) {
    known = new Map();
    variants.set(template, known);
  }
  const cached = known.get(key);
  if (cached) return cached;
  const variant = numbered(template, styleIds);
  known.set(key, variant);
  return variant;
}

function numbered(template: Template, styleIds: readonly (string | undefined)[]): Template {
  const main = template.mainPart;
  const stylesPath = siblingPath(main, 'styles.xml');
  const numberingPath = siblingPath(main, 'numbering.xml');
  const stylesData = template.parts.get(stylesPath);
  if (stylesData === undefined) return template;
  const styles = parsePart(stylesData, stylesPath);
  const byId = new Map(
    children(styles.documentElement ?? styles)
      .filter((s) => isW(s, 'style') && wAttr(s, 'type') === 'paragraph')
      .map((s) => [wAttr(s, 'styleId'), s]),
  );
  const levels: (string | undefined)[] = [];
  const seen = new Set<string>();
  for (const id of styleIds.slice(0, LEVELS)) {
    // A style two levels share is numbered at the first: one style, one level.
    levels.push(id !== undefined && byId.has(id) && !seen.has(id) ? id : undefined);
    if (id !== undefined) seen.add(id);
  }
  if (levels.every((id) => id === undefined)) return template;

  const parts = new Map(template.parts);
  const numberingData = template.parts.get(numberingPath);
  const numbering = parsePart(numberingData ?? `<w:numbering xmlns:w="${NS.w}"/>`, numberingPath);
  const root = numbering.documentElement;
  if (!root) return template;
  // After the template's ids, as lists' are (a hostile id at the top of 32 bits is passed over: numbering.ts).
  const nextId = (tag: string, attr: string): number =>
    maxId(
      children(root).filter((c) => isW(c, tag)),
      attr,
    ) + 1;
  const abstractId = String(nextId('abstractNum', 'abstractNumId'));
  const numId = String(nextId('num', 'numId'));
  const at = insertionPoints(root);
  root.insertBefore(abstractNum(numbering, abstractId, levels), at.abstracts);
  const num = wElement(numbering, 'num', { numId });
  num.appendChild(wElement(numbering, 'abstractNumId', { val: abstractId }));
  root.insertBefore(num, insertionPoints(root).nums);
  declareNamespaces(numbering);
  parts.set(numberingPath, encodeUtf8(serializePart(numbering)));

  levels.forEach((id, level) => {
    const style = id === undefined ? undefined : byId.get(id);
    if (style) setStyleNumbering(styles, style, numId, level);
  });
  parts.set(stylesPath, encodeUtf8(serializePart(styles)));

  if (numberingData === undefined) {
    const rels = new Relationships(template.parts.get(relsPath(main)), relsPath(main));
    if (!rels.list().some((r) => r.type === REL.numbering)) {
      rels.add(REL.numbering, numberingPath.slice(numberingPath.lastIndexOf('/') + 1));
      parts.set(relsPath(main), encodeUtf8(rels.toXml()));
    }
    const types = new ContentTypes(template.parts.get('[Content_Types].xml'));
    types.addOverride(`/${numberingPath}`, CONTENT_TYPE.numbering);
    if (types.changed) parts.set('[Content_Types].xml', encodeUtf8(types.toXml()));
  }
  return { ...template, parts };
}

/** The nine-level decimal list: level k numbered `%1.…%k+1.`, linked to its heading style, restarting below. */
function abstractNum(doc: XmlDocument, id: string, levels: readonly (string | undefined)[]): Element {
  const abstract = wElement(doc, 'abstractNum', { abstractNumId: id });
  abstract.appendChild(wElement(doc, 'multiLevelType', { val: 'multilevel' }));
  for (let level = 0; level < LEVELS; level++) {
    const lvl = wElement(doc, 'lvl', { ilvl: String(level) });
    lvl.appendChild(wElement(doc, 'start', { val: '1' }));
    lvl.appendChild(wElement(doc, 'numFmt', { val: 'decimal' }));
    const style = levels[level];
    if (style !== undefined) lvl.appendChild(wElement(doc, 'pStyle', { val: style }));
    // A space after the number, as pandoc's "1 Introduction" reads: a tab (Word's default) stops at the next tab stop,
    // which a centred heading has not, and LibreOffice prints "1.Introduction". No indent: the style's own stays.
    lvl.appendChild(wElement(doc, 'suff', { val: 'space' }));
    lvl.appendChild(wElement(doc, 'lvlText', { val: levelText(level) }));
    lvl.appendChild(wElement(doc, 'lvlJc', { val: 'left' }));
    abstract.appendChild(lvl);
  }
  return abstract;
}

/** w:pPr children that come before w:numPr (CT_PPrBase's order). */
const BEFORE_NUMPR = new Set(['pStyle', 'keepNext', 'keepLines', 'pageBreakBefore', 'framePr', 'widowControl']);
/** w:style children that come before w:pPr (CT_Style's order). */
const BEFORE_PPR = new Set([
  'name',
  'aliases',
  'basedOn',
  'next',
  'link',
  'autoRedefine',
  'hidden',
  'uiPriority',
  'semiHidden',
  'unhideWhenUsed',
  'qFormat',
  'locked',
  'personal',
  'personalCompose',
  'personalReply',
  'rsid',
]);

/** Puts w:numPr (this level of the list) into a style's w:pPr, in schema order, replacing one it had. */
function setStyleNumbering(doc: XmlDocument, style: Element, numId: string, level: number): void {
  let pPr = wChild(style, 'pPr');
  if (!pPr) {
    pPr = wElement(doc, 'pPr');
    const after = children(style).find((c) => c.namespaceURI !== NS.w || !BEFORE_PPR.has(c.localName ?? ''));
    style.insertBefore(pPr, after ?? null);
  }
  const old = wChild(pPr, 'numPr');
  if (old) pPr.removeChild(old);
  const numPr = wElement(doc, 'numPr');
  numPr.appendChild(wElement(doc, 'ilvl', { val: String(level) }));
  numPr.appendChild(wElement(doc, 'numId', { val: numId }));
  const after = children(pPr).find((c) => c.namespaceURI !== NS.w || !BEFORE_NUMPR.has(c.localName ?? ''));
  pPr.insertBefore(numPr, after ?? null);
}
