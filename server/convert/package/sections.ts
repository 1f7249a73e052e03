// The template's sections that stay around our content: those that hold something of the template's own, and the
// one our content lands in. An earlier section with nothing in it would print as a page showing only its header.
import type { Element, Node } from '@xmldom/xmldom';
import { children, isW, setWAttr, wAttr, wChild } from './dom.ts';
import { NS } from './namespaces.ts';

/** A section of the template's body: its nodes in order (its break paragraph last), and its properties. */
interface Section {
  nodes: Node[];
  sectPr: Element;
  /** The paragraph whose properties end the section; none for the last section (the body's own w:sectPr). */
  breakParagraph?: Element;
}

/** What a reader sees of a paragraph or a block: these show on the page whatever text they have. */
const SHOWN = new Set([
  'tbl',
  'drawing',
  'pict',
  'object',
  'fldSimple',
  'fldChar',
  'sym',
  'footnoteReference',
  'endnoteReference',
  'sdt',
  'altChunk',
]);
/** Properties, not content: a paragraph's (its section break among them) and a run's. */
const PROPERTIES = new Set(['pPr', 'rPr', 'sectPr', 'tblPr', 'trPr', 'tcPr']);

/**
 * True when a node holds something of the template's own to show: text that is not blank, a table, a picture or
 * other drawing, a field, a symbol, a note reference, a content control, an equation. An empty paragraph (however
 * styled, with a page break or a bookmark) and a bare section break hold nothing.
 */
export function holdsContent(node: Node): boolean {
  const stack: Node[] = [node];
  for (let n = stack.pop(); n; n = stack.pop()) {
    if (n.nodeType !== 1) continue;
    const el = n as Element;
    if (el.namespaceURI === NS.w) {
      const name = el.localName ?? '';
      if (PROPERTIES.has(name)) continue;
      if (SHOWN.has(name)) return true;
      if ((name === 't' || name === 'instrText') && /\S/.test(el.textContent ?? '')) return true;
    } else if (el.namespaceURI === NS.m && (el.localName === 'oMath' || el.localName === 'oMathPara')) return true;
    for (let c = el.firstChild; c; c = c.nextSibling) stack.push(c);
  }
  return false;
}

/** The body's sections in order; none when the body has no final w:sectPr (then it has one section, untouched). */
function sectionsOf(body: Element): Section[] {
  const sections: Section[] = [];
  let nodes: Node[] = [];
  for (let n: Node | null = body.firstChild; n; n = n.nextSibling) {
    nodes.push(n);
    const sectPr = isW(n, 'p') ? wChild(wChild(n, 'pPr'), 'sectPr') : isW(n, 'sectPr') ? n : undefined;
    if (!sectPr) continue;
    sections.push({ nodes, sectPr, ...(sectPr === n ? {} : { breakParagraph: n as Element }) });
    nodes = [];
  }
  const last = sections.at(-1);
  if (!last || last.breakParagraph) return [];
  last.nodes.push(...nodes);
  return sections;
}

/** A header or footer reference's slot: header or footer, of which pages (default, first, even). */
const slotOf = (ref: Element): string => `${ref.localName ?? ''}:${wAttr(ref, 'type') || 'default'}`;

/** A section's header and footer references by slot. */
function referencesOf(sectPr: Element): Map<string, Element> {
  const refs = new Map<string, Element>();
  for (const c of children(sectPr)) if (isW(c, 'headerReference') || isW(c, 'footerReference')) refs.set(slotOf(c), c);
  return refs;
}

/**
 * Keeps, of the template's body (changed in place), the sections that hold content of the template's own
 * (holdsContent) and the one `marker` (where our content goes) stands in; the others' paragraphs go with their
 * section breaks. A kept section keeps the headers and footers it showed: one it inherited from a section that goes
 * is referenced by it explicitly (Word takes a missing reference from the section before). When the last section
 * goes, the last kept one's properties end the document in its place. The header and footer parts only removed
 * sections referred to stay in the package, unreferenced (their relationships still point at them).
 */
export function keepSectionsWithContent(body: Element, marker: Node): void {
  const sections = sectionsOf(body);
  const kept = sections.map((s) => s.nodes.includes(marker) || s.nodes.some((n) => holdsContent(n)));
  if (kept.every(Boolean)) return;
  // The references each section shows (its own, else the nearest earlier section's), and those kept sections show.
  const shown = new Map<string, Element>();
  const keptShown = new Map<string, Element>();
  sections.forEach((section, k) => {
    const own = referencesOf(section.sectPr);
    for (const [slot, ref] of own) shown.set(slot, ref);
    if (kept[k]) {
      // Header and footer references come first in a section's properties.
      let after: Node | null = section.sectPr.firstChild;
      while (after && (after.nodeType !== 1 || isW(after, 'headerReference') || isW(after, 'footerReference')))
        after = after.nextSibling;
      for (const [slot, ref] of shown) {
        const showing = keptShown.get(slot)?.getAttributeNS(NS.r, 'id');
        if (!own.has(slot) && showing !== ref.getAttributeNS(NS.r, 'id'))
          section.sectPr.insertBefore(ref.cloneNode(true), after);
      }
      for (const [slot, ref] of referencesOf(section.sectPr)) keptShown.set(slot, ref);
    }
  });
  sections.forEach((section, k) => {
    if (kept[k]) return;
    for (const n of section.nodes) if (isW(n, 'p') && n.parentNode === body) body.removeChild(n);
  });
  const final = sections.at(-1);
  const lastKept = sections.filter((_, k) => kept[k]).at(-1);
  if (final && lastKept && lastKept !== final && lastKept.breakParagraph) {
    // The last kept section's properties become the body's own, in place of the dropped last section's.
    const paragraph = lastKept.breakParagraph;
    wChild(paragraph, 'pPr')?.removeChild(lastKept.sectPr);
    body.replaceChild(lastKept.sectPr, final.sectPr);
    if (!holdsContent(paragraph)) body.removeChild(paragraph);
  }
}

/** The section properties our content ends with: the first section break from `marker` on (the body's own last). */
export function landingSectionProperties(marker: Node): Element | undefined {
  for (let n: Node | null = marker.nextSibling; n; n = n.nextSibling) {
    if (isW(n, 'sectPr')) return n;
    const sectPr = isW(n, 'p') ? wChild(wChild(n, 'pPr'), 'sectPr') : undefined;
    if (sectPr) return sectPr;
  }
  return undefined;
}

/** The section properties that belong to a document's first section only: a first page's own header, a restart. */
function dropFirstSectionOnly(sectPr: Element): void {
  for (const c of children(sectPr)) {
    if (c.namespaceURI !== NS.w) continue;
    if (c.localName === 'titlePg' || c.localName === 'type') sectPr.removeChild(c);
    else if (c.localName === 'pgNumType') c.removeAttributeNS(NS.w, 'start');
  }
}

/** Turns section properties landscape: the page's sides swapped, its margins turned with it (top becomes left). */
function turnLandscape(sectPr: Element): void {
  const size = wChild(sectPr, 'pgSz');
  const margins = wChild(sectPr, 'pgMar');
  const w = size ? wAttr(size, 'w') : '';
  const h = size ? wAttr(size, 'h') : '';
  if (size && w !== '' && h !== '' && Number(h) > Number(w)) {
    setWAttr(size, 'w', h);
    setWAttr(size, 'h', w);
    if (margins) {
      const [top, right, bottom, left] = ['top', 'right', 'bottom', 'left'].map((side) => wAttr(margins, side));
      const turned: [string, string | undefined][] = [
        ['left', top],
        ['right', bottom],
        ['top', right],
        ['bottom', left],
      ];
      for (const [side, value] of turned) if (value) setWAttr(margins, side, value);
    }
  }
  if (size) setWAttr(size, 'orient', 'landscape');
}

/** Namespaces a section break paragraph may write, by the prefixes the body's text binds them to (docx's). */
const SECTION_PREFIXES = new Map<string, string>([
  [NS.w, 'w'],
  [NS.r, 'r'],
]);

const escapeAttribute = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/>/g, '&gt;');

/** An element of section properties as text, with docx's prefixes; what is in no namespace of theirs is left out. */
function sectionXml(el: Element): string {
  const prefix = SECTION_PREFIXES.get(el.namespaceURI ?? '');
  if (prefix === undefined) return '';
  const name = `${prefix}:${el.localName ?? ''}`;
  let attributes = '';
  for (let k = 0; k < el.attributes.length; k++) {
    const attr = el.attributes.item(k);
    const attrPrefix = attr ? SECTION_PREFIXES.get(attr.namespaceURI ?? '') : undefined;
    if (attr && attrPrefix !== undefined)
      attributes += ` ${attrPrefix}:${attr.localName ?? ''}="${escapeAttribute(attr.value)}"`;
  }
  const inner = children(el).map(sectionXml).join('');
  return inner === '' ? `<${name}${attributes}/>` : `<${name}${attributes}>${inner}</${name}>`;
}

/**
 * The paragraphs that end a landscape div's section and the section before it, as text (package/body.ts writes them):
 * the first section break of the document keeps the first section's own properties (a first page's header, a
 * numbering start), the later ones continue it.
 */
export interface SectionBreaks {
  portrait: string;
  landscape: string;
  firstPortrait: string;
  firstLandscape: string;
  /**
   * Whether a landscape div at the very start of our content needs no section before it (nothing of the template's
   * comes before our content in its section): it then starts the document's first section, with no empty page before.
   */
  dropLeading: boolean;
  /**
   * Whether a landscape div at the very end of our content needs no section after it (nothing of the template's
   * follows our content in its section): the last section, `landing`, is turned landscape instead of an empty page.
   */
  dropTrailing: boolean;
}

/**
 * Section breaks around landscape divs (compile/sections.ts), from the section properties `landing` our content ends
 * with: the section before a div ends with a copy of them, the div's with a copy turned landscape (after the first
 * break, with no first-page header, numbering or start type of their own: they continue the document). `marker` is
 * our content's place in the template's body.
 */
export function landscapeBreaks(landing: Element, marker: Node): SectionBreaks {
  const paragraph = (sectPr: Element): string => `<w:p><w:pPr>${sectionXml(sectPr)}</w:pPr></w:p>`;
  const later = landing.cloneNode(true) as Element;
  dropFirstSectionOnly(later);
  const turned = (sectPr: Element): Element => {
    const copy = sectPr.cloneNode(true) as Element;
    turnLandscape(copy);
    return copy;
  };
  return {
    portrait: paragraph(later),
    landscape: paragraph(turned(later)),
    firstPortrait: paragraph(landing),
    firstLandscape: paragraph(turned(landing)),
    dropLeading: !templateContent(marker, 'previousSibling', landing),
    dropTrailing: !templateContent(marker, 'nextSibling', landing),
  };
}

/**
 * The last section, `landing`, once our body is written with `breaks` section breaks (body.ts): after the first
 * break it continues the document (no first-page properties); turned landscape where a landscape div ends our
 * content and the section after it was left out.
 */
export function finishLanding(landing: Element, breaks: number, endsLandscape: boolean): void {
  if (breaks > 0) dropFirstSectionOnly(landing);
  if (endsLandscape) turnLandscape(landing);
}

/**
 * Whether the template's body has content of its own beside our content's place (`marker`), in its section: walking
 * `way` from it to the section's edge (a paragraph holding section properties, or `landing`).
 */
function templateContent(marker: Node, way: 'previousSibling' | 'nextSibling', landing: Element): boolean {
  for (let n = marker[way]; n; n = n[way]) {
    if (n === landing || n === landing.parentNode?.parentNode) return false;
    if (isW(n, 'p')) {
      const props = wChild(n, 'pPr');
      if (wChild(props, 'sectPr')) return false;
      if (children(n).some((c) => c !== props)) return true;
    } else if (isW(n, 'tbl') || isW(n, 'sdt') || isW(n, 'customXml')) return true;
  }
  return false;
}
