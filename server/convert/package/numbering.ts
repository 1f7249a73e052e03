import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { adopt, children, descendants, isW, setWAttr, wAttr, wChild, wElement, wElementsIn } from './dom.ts';
import { optimisationsEnabled } from '../optimisations.ts';
import { declareNamespaces, NS } from './namespaces.ts';

/** The numbering a paragraph style carries: the template's abstract numbering and the level the style sits at. */
interface StyleNumbering {
  abstractNumId: string;
  ilvl: number;
  /** The levels the abstract numbering defines (Word's List Bullet is often single-level). */
  levels: ReadonlySet<number>;
}

const numsOf = (doc: XmlDocument | null): Element[] =>
  doc?.documentElement ? children(doc.documentElement).filter((c) => isW(c, 'num')) : [];
const abstractsOf = (doc: XmlDocument | null): Element[] =>
  doc?.documentElement ? children(doc.documentElement).filter((c) => isW(c, 'abstractNum')) : [];
const maxId = (els: Element[], attr: string): number => Math.max(0, ...els.map((e) => Number(wAttr(e, attr)) || 0));
const val = (el: Element | undefined): string => (el ? wAttr(el, 'val') : '');

/**
 * Merges the conversion's list numbering into the template's numbering part (or makes the part from docx's when the
 * template has none), with ids past the template's, and renumbers the references in `referrers` (the body and
 * footnotes we add). A list whose paragraph style carries numbering of its own (w:numPr in the style, directly, via
 * its base styles or via a numbering style link) gets its own w:num on the template's abstract numbering, restarting
 * where ours restarts (w:lvlOverride/w:startOverride): roman stays roman and the template's indents hold. Returns the
 * merged part, or null when no list is used.
 */
export function mergeNumbering(
  template: XmlDocument | null,
  generated: XmlDocument,
  referrers: readonly Element[],
  styles: XmlDocument | null,
): XmlDocument | null {
  return mergeNumberingSites(template, generated, numberingSites(referrers), styles);
}

/** A list paragraph's reference to a numbering (its w:numPr), read and renumbered through these. */
export interface NumberingSite {
  /** Its w:numId's value; null when it has no w:numId. */
  readonly numId: string | null;
  /** Its w:ilvl's value; null when it has no w:ilvl. */
  readonly ilvl: string | null;
  /** Its paragraph's style id ('' for none). */
  readonly styleId: string;
  setNumId(value: string): void;
  setIlvl(value: string): void;
}

/** The numbering references (w:numPr) within `referrers`, in document order. */
export function numberingSites(referrers: readonly Element[]): NumberingSite[] {
  return (wElementsIn(referrers, ['numPr']).get('numPr') ?? []).map((numPr) => {
    const numIdEl = wChild(numPr, 'numId');
    const ilvl = wChild(numPr, 'ilvl');
    const paragraph = numPr.parentNode?.parentNode as Element | null;
    return {
      numId: numIdEl ? val(numIdEl) : null,
      ilvl: ilvl ? val(ilvl) : null,
      styleId: val(wChild(wChild(paragraph, 'pPr'), 'pStyle')),
      setNumId: (value: string) => {
        if (numIdEl) setWAttr(numIdEl, 'val', value);
      },
      setIlvl: (value: string) => {
        if (ilvl) setWAttr(ilvl, 'val', value);
      },
    };
  });
}

/** mergeNumbering over numbering references however they are held (see NumberingSite). */
export function mergeNumberingSites(
  template: XmlDocument | null,
  generated: XmlDocument,
  numPrs: readonly NumberingSite[],
  styles: XmlDocument | null,
): XmlDocument | null {
  if (numPrs.length === 0) return null;
  const genNums = new Map(numsOf(generated).map((n) => [wAttr(n, 'numId'), n]));
  const genAbstracts = new Map(abstractsOf(generated).map((a) => [wAttr(a, 'abstractNumId'), a]));
  // Without a template part, docx's part emptied is the target (its root declares what its definitions use).
  if (!template) for (const c of children(generated.documentElement ?? generated)) c.parentNode?.removeChild(c);
  const target = template ?? generated;
  const root = target.documentElement;
  if (!root) return null;
  const styleNumbering = styleNumberingOf(styles, template);
  let abstractNext = maxId(abstractsOf(target), 'abstractNumId');
  let numNext = maxId(numsOf(target), 'numId');
  const newNums: Element[] = [];
  const styledNumIds = new Map<string, string>();
  const plain: NumberingSite[] = [];
  for (const site of numPrs) {
    const old = site.numId ?? '';
    const genNum = genNums.get(old);
    if (site.numId === null || !genNum) continue;
    const styleId = site.styleId;
    const own = styleId ? styleNumbering(styleId) : undefined;
    const level = (own?.ilvl ?? 0) + (Number(site.ilvl ?? '') || 0);
    // A level the template's numbering does not define (a nested item under a single-level style) keeps ours.
    if (!own || !own.levels.has(level)) {
      plain.push(site);
      continue;
    }
    // The style's numbering, restarted for this list.
    let id = styledNumIds.get(old);
    if (id === undefined) {
      id = String(++numNext);
      styledNumIds.set(old, id);
      const num = wElement(target, 'num', { numId: id });
      num.appendChild(wElement(target, 'abstractNumId', { val: own.abstractNumId }));
      for (const override of children(genNum).filter((c) => isW(c, 'lvlOverride')))
        num.appendChild(target.importNode(override, true));
      newNums.push(num);
    }
    site.setNumId(id);
    if (site.ilvl !== null && own.ilvl > 0) site.setIlvl(String(level));
  }
  // docx's own definitions, in docx's order, for the other lists.
  const used = new Set(plain.map((site) => site.numId ?? ''));
  const usedNums = [...genNums].filter(([id]) => used.has(id));
  const usedAbstracts = new Set(usedNums.map(([, n]) => val(wChild(n, 'abstractNumId'))));
  const abstractIds = new Map<string, string>();
  const newAbstracts: Element[] = [];
  for (const [old, abstract] of genAbstracts) {
    if (!usedAbstracts.has(old)) continue;
    const id = String(++abstractNext);
    abstractIds.set(old, id);
    const copy = adopt(target, abstract);
    setWAttr(copy, 'abstractNumId', id);
    newAbstracts.push(copy);
  }
  const numIds = new Map<string, string>();
  for (const [old, genNum] of usedNums) {
    const id = String(++numNext);
    numIds.set(old, id);
    const num = adopt(target, genNum);
    setWAttr(num, 'numId', id);
    const ref = wChild(num, 'abstractNumId');
    const abstractId = abstractIds.get(val(ref));
    if (ref && abstractId !== undefined) setWAttr(ref, 'val', abstractId);
    newNums.push(num);
  }
  for (const site of plain) site.setNumId(numIds.get(site.numId ?? '') ?? site.numId ?? '');
  // Schema order: abstractNum*, num*, numIdMacAtCleanup?.
  const cleanup = children(root).find((c) => isW(c, 'numIdMacAtCleanup')) ?? null;
  const firstNum = children(root).find((c) => isW(c, 'num')) ?? cleanup;
  for (const a of newAbstracts) root.insertBefore(a, firstNum);
  for (const n of newNums) root.insertBefore(n, cleanup);
  declareNamespaces(target);
  return target;
}

const styleIndexes = new WeakMap<XmlDocument, ReadonlyMap<string, Element>>();

/**
 * A styles part's w:style elements by id. The template's styles part is parsed once per template and only read, so
 * its index is kept with it instead of walking every style again at every conversion.
 */
export function stylesById(styles: XmlDocument | null): ReadonlyMap<string, Element> {
  if (!styles) return new Map();
  const optimised = optimisationsEnabled();
  const known = optimised ? styleIndexes.get(styles) : undefined;
  if (known) return known;
  const index = new Map(descendants(styles, NS.w, 'style').map((s) => [wAttr(s, 'styleId'), s]));
  if (optimised) styleIndexes.set(styles, index);
  return index;
}

/** Finds the numbering a paragraph style carries, looking through its base styles and numbering style links. */
function styleNumberingOf(
  styles: XmlDocument | null,
  numbering: XmlDocument | null,
): (styleId: string) => StyleNumbering | undefined {
  const byId = stylesById(styles);
  const nums = new Map(numsOf(numbering).map((n) => [wAttr(n, 'numId'), n]));
  const abstracts = new Map(abstractsOf(numbering).map((a) => [wAttr(a, 'abstractNumId'), a]));
  const abstractOfNum = (numId: string, depth: number): Element | undefined => {
    const abstractId = val(wChild(nums.get(numId), 'abstractNumId'));
    const abstract = abstracts.get(abstractId);
    if (!abstract) return undefined;
    // A numbering style link: the definition is the numbering style's own.
    const link = val(wChild(abstract, 'numStyleLink'));
    if (link && depth < 4) {
      const linked = wChild(wChild(wChild(byId.get(link), 'pPr'), 'numPr'), 'numId');
      return linked ? abstractOfNum(val(linked), depth + 1) : undefined;
    }
    return abstract;
  };
  return (styleId) => {
    const seen = new Set<string>();
    for (
      let id: string | undefined = styleId;
      id && !seen.has(id);
      id = val(wChild(byId.get(id), 'basedOn')) || undefined
    ) {
      seen.add(id);
      const numPr = wChild(wChild(byId.get(id), 'pPr'), 'numPr');
      const numId = val(wChild(numPr, 'numId'));
      if (!numPr || !numId) continue;
      if (numId === '0') return undefined;
      const abstract = abstractOfNum(numId, 0);
      if (!abstract) return undefined;
      const levels = new Set(
        children(abstract)
          .filter((c) => isW(c, 'lvl'))
          .map((l) => Number(wAttr(l, 'ilvl'))),
      );
      return { abstractNumId: wAttr(abstract, 'abstractNumId'), ilvl: Number(val(wChild(numPr, 'ilvl'))) || 0, levels };
    }
    return undefined;
  };
}
