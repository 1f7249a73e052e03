import { basedOnChain } from '../template/styles.ts';
import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { NO_REWRITES, rewriteBody, type BodySegment } from './body.ts';
import {
  children,
  descendants,
  isW,
  parsePart,
  prefixOf,
  serializePart,
  setWAttr,
  wAttr,
  wChild,
  wElementsIn,
  withDeclaration,
} from './dom.ts';
import { serializeAroundAll } from './serialize.ts';
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
/**
 * Word reads list ids as 32-bit integers. Ours come after the template's, so the template's ids count only below
 * this ceiling: the room above it holds more lists than a document within the markdown limit (10 MB) can have.
 */
const ID_CEILING = 2 ** 31 - 1 - 2 ** 24;
/**
 * The largest id of `els` our new ones must come after. An id at the top of 32 bits or past them (a hostile or
 * broken template) is left out: ours stay plain decimals Word reads (counting past it would write 2147483648 or
 * `1e+23`), and never reach it.
 */
export const maxId = (els: Element[], attr: string): number =>
  els.reduce((max, e) => {
    const id = Number(wAttr(e, attr));
    return Number.isInteger(id) && id > max && id <= ID_CEILING ? id : max;
  }, 0);
const val = (el: Element | undefined): string => (el ? wAttr(el, 'val') : '');

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

/**
 * Where a merge inserts into a numbering part's root, in schema order (abstractNum*, num*, numIdMacAtCleanup?): new
 * abstract numberings before its first w:num (else its w:numIdMacAtCleanup, else last), new instances before its
 * w:numIdMacAtCleanup (else last). Null: at the end.
 */
export function insertionPoints(root: Element): { abstracts: Element | null; nums: Element | null } {
  const cleanup = children(root).find((c) => isW(c, 'numIdMacAtCleanup')) ?? null;
  return { abstracts: children(root).find((c) => isW(c, 'num')) ?? cleanup, nums: cleanup };
}

/**
 * What a merge adds to the target numbering part. Ids are the target's next free ones; `from` names docx's definition
 * by its own id.
 */
export interface NumberingPlan {
  /** docx's abstract numberings the lists use, in docx's order, with their new ids: inserted before the first w:num. */
  abstracts: { from: string; id: string }[];
  /** New w:num elements, in this order, before w:numIdMacAtCleanup (else last): a list whose style carries numbering
   * gets one on the style's abstract numbering (`styled`: docx's w:lvlOverride children of `from` copied); the other
   * lists docx's own (`from` with `id`, its abstract reference renumbered to `abstractId` when that is one of ours). */
  nums: (
    | { styled: true; from: string; id: string; abstractNumId: string }
    | { styled: false; from: string; id: string; abstractId: string | undefined }
  )[];
}

/** docx's numbering as a merge reads it: its w:num ids with the abstract numbering each refers to, its abstract ids. */
export interface GeneratedNumbering {
  /** docx's w:num ids, in its order, each with its w:abstractNumId's value. */
  nums: ReadonlyMap<string, string>;
  /** docx's w:abstractNum ids, in its order. */
  abstracts: readonly string[];
}

/**
 * Plans the merge of docx's numbering into `target` (the template's part, or docx's own emptied when the template
 * has none) and renumbers the sites; `template` is the template's part (null: none), read for the numbering its
 * paragraph styles carry.
 */
export function planNumbering(
  target: XmlDocument,
  template: XmlDocument | null,
  generated: GeneratedNumbering,
  numPrs: readonly NumberingSite[],
  styles: XmlDocument | null,
): NumberingPlan {
  const styleNumbering = styleNumberingOf(styles, template);
  let abstractNext = maxId(abstractsOf(target), 'abstractNumId');
  let numNext = maxId(numsOf(target), 'numId');
  const nums: NumberingPlan['nums'] = [];
  const styledNumIds = new Map<string, string>();
  const plain: NumberingSite[] = [];
  for (const site of numPrs) {
    const old = site.numId ?? '';
    if (site.numId === null || !generated.nums.has(old)) continue;
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
      nums.push({ styled: true, from: old, id, abstractNumId: own.abstractNumId });
    }
    site.setNumId(id);
    if (site.ilvl !== null && own.ilvl > 0) site.setIlvl(String(level));
  }
  // docx's own definitions, in docx's order, for the other lists.
  const used = new Set(plain.map((site) => site.numId ?? ''));
  const usedNums = [...generated.nums].filter(([id]) => used.has(id));
  const usedAbstracts = new Set(usedNums.map(([, abstract]) => abstract));
  const abstractIds = new Map<string, string>();
  const abstracts: NumberingPlan['abstracts'] = [];
  for (const old of generated.abstracts) {
    if (!usedAbstracts.has(old)) continue;
    const id = String(++abstractNext);
    abstractIds.set(old, id);
    abstracts.push({ from: old, id });
  }
  const numIds = new Map<string, string>();
  for (const [old, abstract] of usedNums) {
    const id = String(++numNext);
    numIds.set(old, id);
    nums.push({ styled: false, from: old, id, abstractId: abstractIds.get(abstract) });
  }
  for (const site of plain) site.setNumId(numIds.get(site.numId ?? '') ?? site.numId ?? '');
  return { abstracts, nums };
}

const styleIndexes = new WeakMap<XmlDocument, ReadonlyMap<string, Element>>();

/**
 * A styles part's w:style elements by id. The template's styles part is parsed once per template and only read, so
 * its index is kept with it instead of walking every style again at every conversion.
 */
export function stylesById(styles: XmlDocument | null): ReadonlyMap<string, Element> {
  if (!styles) return new Map();
  const known = styleIndexes.get(styles);
  if (known) return known;
  const index = new Map(descendants(styles, NS.w, 'style').map((s) => [wAttr(s, 'styleId'), s]));
  styleIndexes.set(styles, index);
  return index;
}

/** A paragraph style's own indentation (its w:ind, or its nearest base style's), in twips. */
export interface StyleIndent {
  left?: number;
  right?: number;
  hanging?: number;
  firstLine?: number;
}

/**
 * The paragraph styles of a template that carry numbering of their own (in their w:pPr or through their base styles)
 * which the template's numbering part defines, each with its own indentation: a paragraph in one of them is numbered
 * without a w:numPr of its own. (LibreOffice drops a style's indentation where a paragraph turns its numbering off, so
 * the paragraph says it again; Word shows the same.)
 */
export function numberedStyles(
  styles: XmlDocument | null,
  numbering: XmlDocument | null,
): Map<string, StyleIndent | undefined> {
  const byId = stylesById(styles);
  const numberingOf = styleNumberingOf(styles, numbering);
  const out = new Map<string, StyleIndent | undefined>();
  for (const [id, style] of byId)
    if (wAttr(style, 'type') === 'paragraph' && numberingOf(id) !== undefined) out.set(id, styleIndent(byId, id));
  return out;
}

/** The id of the style a style (by id) is based on, if any. */
function baseOf(byId: ReadonlyMap<string, Element>, id: string): string | undefined {
  return val(wChild(byId.get(id), 'basedOn')) || undefined;
}

/** The first w:ind along a style's base styles, its twip values read (character units are left to the style). */
function styleIndent(byId: ReadonlyMap<string, Element>, styleId: string): StyleIndent | undefined {
  for (const id of basedOnChain(styleId, (at) => baseOf(byId, at))) {
    const ind = wChild(wChild(byId.get(id), 'pPr'), 'ind');
    if (!ind) continue;
    const twips = (...names: string[]): number | undefined => {
      for (const name of names) {
        const n = Number(wAttr(ind, name));
        if (wAttr(ind, name) !== '' && Number.isInteger(n)) return n;
      }
      return undefined;
    };
    const indent: StyleIndent = {};
    const left = twips('left', 'start');
    const right = twips('right', 'end');
    const hanging = twips('hanging');
    const firstLine = twips('firstLine');
    if (left !== undefined) indent.left = left;
    if (right !== undefined) indent.right = right;
    if (hanging !== undefined) indent.hanging = hanging;
    else if (firstLine !== undefined) indent.firstLine = firstLine;
    return Object.keys(indent).length > 0 ? indent : undefined;
  }
  return undefined;
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
    for (const id of basedOnChain(styleId, (at) => baseOf(byId, at))) {
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

/** A top-level element of docx's numbering text: where it stands, its id, and for a w:num its abstract numbering. */
interface TextElement {
  from: number;
  to: number;
  abstract: string;
}

/** docx's elements `tag` (w:abstractNum or w:num) in its numbering text, by their `idAttribute`, in order. */
function textElements(xml: string, tag: string, idAttribute: string): Map<string, TextElement> {
  const out = new Map<string, TextElement>();
  const open = new RegExp(`<${tag}[ >]`, 'g');
  const id = new RegExp(`\\s${idAttribute}="([^"]*)"`);
  for (let m = open.exec(xml); m; m = open.exec(xml)) {
    const startEnd = xml.indexOf('>', m.index);
    const close = xml.indexOf(`</${tag}>`, startEnd);
    if (startEnd < 0 || close < 0) throw new Error(`docx's numbering has an unclosed ${tag}`);
    const to = close + tag.length + 3;
    const abstract = /<w:abstractNumId w:val="([^"]*)"/.exec(xml.slice(startEnd, close))?.[1] ?? '';
    out.set(id.exec(xml.slice(m.index, startEnd + 1))?.[1] ?? '', { from: m.index, to, abstract });
    open.lastIndex = to;
  }
  return out;
}

/**
 * mergeNumberingSites over docx's numbering as text (a long document's is hundreds of KB, which a DOM would take longer
 * to read than the rest of the merge): `template` is the template's part (null: none), parsed once and only read; the
 * part is written around docx's elements, copied as text with their new ids. Returns the part's text, or null when no
 * list is used.
 */
export function mergeNumberingText(
  template: XmlDocument | null,
  generated: string,
  numPrs: readonly NumberingSite[],
  styles: XmlDocument | null,
): string | null {
  if (numPrs.length === 0) return null;
  const bounds = partBounds(generated);
  const genAbstracts = textElements(generated, 'w:abstractNum', 'w:abstractNumId');
  const genNums = textElements(generated, 'w:num', 'w:numId');
  // Without a template part, docx's part emptied is the target (its root declares what its definitions use).
  const target = template
    ? (template.cloneNode(true) as XmlDocument)
    : parsePart(`${generated.slice(0, bounds.rootEnd + 1)}</w:numbering>`, 'numbering.xml');
  const root = target.documentElement;
  if (!root) return null;
  const plan = planNumbering(
    template ?? target,
    template,
    { nums: new Map([...genNums].map(([id, n]) => [id, n.abstract])), abstracts: [...genAbstracts.keys()] },
    numPrs,
    styles,
  );
  const written = (element: TextElement): BodySegment => {
    const body = rewriteBody(generated, bounds.declared, element.from, element.to, NO_REWRITES);
    body.fill(new Map());
    const [segment] = body.segments;
    if (!segment) throw new Error("docx's numbering could not be read");
    return segment;
  };
  const abstractsUsed = new Map<string, string>();
  const numsUsed = new Map<string, string>();
  const use = (into: Map<string, string>, used: ReadonlyMap<string, string>): void => {
    for (const [prefix, uri] of used) if (!into.has(prefix)) into.set(prefix, uri);
  };
  const abstracts = plan.abstracts.flatMap(({ from, id }) => {
    const element = genAbstracts.get(from);
    if (!element) return [];
    const { text, used } = written(element);
    use(abstractsUsed, used);
    return [text.replace(/ w:abstractNumId="[^"]*"/, ` w:abstractNumId="${id}"`)];
  });
  const w = prefixOf(root, NS.w, 'w');
  const nums = plan.nums.flatMap((planned) => {
    const element = genNums.get(planned.from);
    if (!element) return [];
    const { text, used } = written(element);
    if (planned.styled) {
      use(numsUsed, new Map([[w, NS.w]]));
      use(numsUsed, used);
      const overrides = text.match(/<w:lvlOverride\b[^>]*\/>|<w:lvlOverride\b[^>]*>[\s\S]*?<\/w:lvlOverride>/g) ?? [];
      const start = `<${w}:num ${w}:numId="${planned.id}"><${w}:abstractNumId ${w}:val="${planned.abstractNumId}"/>`;
      return [`${start}${overrides.join('')}</${w}:num>`];
    }
    use(numsUsed, used);
    let num = text.replace(/ w:numId="[^"]*"/, ` w:numId="${planned.id}"`);
    if (planned.abstractId !== undefined)
      num = num.replace(/(<w:abstractNumId w:val=")[^"]*"/, `$1${planned.abstractId}"`);
    return [num];
  });
  const at = insertionPoints(root);
  const abstractsAt = target.createComment('abstracts');
  const numsAt = target.createComment('nums');
  root.insertBefore(abstractsAt, at.abstracts);
  root.insertBefore(numsAt, at.nums);
  const places = [abstractsAt, numsAt];
  declareNamespaces(target, [
    { at: abstractsAt, used: abstractsUsed },
    { at: numsAt, used: numsUsed },
  ]);
  if (abstracts.length === 0 && nums.length === 0 && children(root).length === 0) {
    for (const place of places) root.removeChild(place);
    return serializePart(target);
  }
  const pieces = serializeAroundAll(target, places);
  const [before, between, after] = pieces ?? [];
  if (before === undefined || between === undefined || after === undefined)
    throw new Error('the numbering part could not be written');
  return withDeclaration(`${before}${abstracts.join('')}${between}${nums.join('')}${after}`);
}

/** Where docx's numbering root ends, and what it declares. */
function partBounds(xml: string): { rootEnd: number; declared: Map<string, string> } {
  const rootAt = xml.indexOf('<w:numbering');
  const rootEnd = xml.indexOf('>', rootAt);
  if (rootAt < 0 || rootEnd < 0) throw new Error("docx's numbering has no w:numbering");
  const declared = new Map<string, string>();
  for (const [, prefix, uri] of xml.slice(rootAt, rootEnd).matchAll(/ xmlns:([^\s=/>]+)="([^"]*)"/g))
    declared.set(prefix ?? '', uri ?? '');
  return { rootEnd, declared };
}
