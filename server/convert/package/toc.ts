import type { Document as XmlDocument, Element, Node } from '@xmldom/xmldom';
import type { HeadingEntry } from '../compile/anchors.ts';
import type { TocRequest } from '../compile/toc.ts';
import { firstStrong } from '../bidi.ts';
import { findStyle, type TemplateStyle } from '../template/styles.ts';
import { children, descendants, isW, setWAttr, wAttr, wChild, wElement } from './dom.ts';
import { declareNamespaces, NS } from './namespaces.ts';

/**
 * Writes the table of contents the compiler marked (compile/toc.ts): a TOC field pre-filled with the headings as
 * internal hyperlinks (so it reads right before Word updates it), in the template's "toc 1".."toc 9" styles when it
 * has them. A TOC the template keeps (a content control whose gallery is "Table of Contents", or a TOC field) is filled
 * instead of adding a second one; a template TOC that went with the template's text is reused as the shell of ours.
 */

/** What a table of contents is written with. */
export interface TocContext {
  request: TocRequest;
  styles: readonly TemplateStyle[];
}

/** The field instruction for headings 1..depth: entries as hyperlinks, no page numbers in web view, outline levels. */
export function tocInstruction(depth: number): string {
  return ` TOC \\o "1-${depth}" \\h \\z \\u `;
}

/** The instruction of the first field of a paragraph: a simple field's w:instr, or the w:instrText before its result. */
function instructionsOf(p: Element): string {
  const simple = descendants(p, NS.w, 'fldSimple')[0];
  if (simple) return wAttr(simple, 'instr');
  const parts: string[] = [];
  let depth = 0;
  const stack = [p];
  for (let el = stack.pop(); el; el = stack.pop()) {
    const name = el.namespaceURI === NS.w ? el.localName : null;
    if (name === 'fldChar') {
      const type = wAttr(el, 'fldCharType');
      if (type === 'begin') depth += 1;
      else if (depth === 1) break;
      else depth -= type === 'end' ? 1 : 0;
    } else if (depth === 1 && name === 'instrText') parts.push(el.textContent ?? '');
    const kids = children(el);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as Element);
  }
  return parts.join('');
}

const isTocInstruction = (text: string): boolean => /^\s*TOC(\s|$)/i.test(text);

function isTocSdt(el: Element): boolean {
  if (!isW(el, 'sdt')) return false;
  const gallery = wChild(wChild(wChild(el, 'sdtPr'), 'docPartObj'), 'docPartGallery');
  return gallery !== undefined && wAttr(gallery, 'val') === 'Table of Contents';
}

/** The index range [first, last] of the paragraphs a TOC field spans, or undefined when none starts in `paras`. */
function fieldRange(paras: readonly Element[]): [number, number] | undefined {
  const first = paras.findIndex((p) => isW(p, 'p') && isTocInstruction(instructionsOf(p)));
  if (first < 0) return undefined;
  let depth = 0;
  for (let i = first; i < paras.length; i++) {
    const p = paras[i];
    if (!p) break;
    for (const fld of descendants(p, NS.w, 'fldChar')) {
      const type = wAttr(fld, 'fldCharType');
      if (type === 'begin') depth += 1;
      else if (type === 'end') depth -= 1;
      if (depth === 0 && type === 'end') return [first, i];
    }
    // A TOC written as a simple field ends in its paragraph.
    if (depth === 0) return [first, i];
  }
  return [first, paras.length - 1];
}

/**
 * A copy of the TOC of the template's text, to be the shell of ours: without the section breaks in it (they stay in the
 * template's body) and without bookmarks that stand between its paragraphs (their other end is gone).
 */
export function tocShell(nodes: readonly Element[]): Element[] {
  const copies = nodes.map((n) => n.cloneNode(true) as Element);
  for (const copy of copies) {
    for (const sectPr of descendants(copy, NS.w, 'sectPr')) sectPr.parentNode?.removeChild(sectPr);
    for (const name of ['bookmarkStart', 'bookmarkEnd'])
      for (const b of descendants(copy, NS.w, name))
        if (!isW(b.parentNode, 'p') && !isW(b.parentNode, 'hyperlink')) b.parentNode?.removeChild(b);
  }
  return copies;
}

/** The template's TOC among body-level elements: a TOC content control, or the paragraphs of a TOC field. */
export function findToc(elements: readonly Element[]): Element[] | undefined {
  const sdt = elements.find(isTocSdt);
  if (sdt) return [sdt];
  const range = fieldRange(elements);
  return range ? elements.slice(range[0], range[1] + 1) : undefined;
}

/** The depth a TOC instruction lists (`\o "1-3"` → 3), if it says. */
function depthOf(instruction: string): number | undefined {
  const match = /\\o\s+"\s*\d+\s*-\s*(\d+)\s*"/.exec(instruction);
  return match?.[1] ? Number(match[1]) : undefined;
}

/** A run holding one child element. */
function run(doc: XmlDocument, child: Element): Element {
  const r = wElement(doc, 'r');
  r.appendChild(child);
  return r;
}

function fieldChar(doc: XmlDocument, type: 'begin' | 'separate' | 'end'): Element {
  return run(doc, wElement(doc, 'fldChar', { fldCharType: type }));
}

function instrText(doc: XmlDocument, text: string): Element {
  const el = wElement(doc, 'instrText');
  el.setAttribute('xml:space', 'preserve');
  el.appendChild(doc.createTextNode(text));
  return run(doc, el);
}

function textRun(doc: XmlDocument, text: string): Element {
  const t = wElement(doc, 't');
  t.setAttribute('xml:space', 'preserve');
  t.appendChild(doc.createTextNode(text));
  return run(doc, t);
}

/** The field paragraphs: one entry per heading within `depth`, the TOC field around them all. */
function fieldParagraphs(doc: XmlDocument, ctx: TocContext, instruction: string, depth: number): Element[] {
  const entries = ctx.request.headings.filter((h) => h.level <= depth);
  const paras = entries.map((entry) => entryParagraph(doc, ctx, entry));
  const first = paras[0] ?? wElement(doc, 'p');
  if (paras.length === 0) paras.push(first);
  const begin = [fieldChar(doc, 'begin'), instrText(doc, instruction), fieldChar(doc, 'separate')];
  const afterProps = wChild(first, 'pPr')?.nextSibling ?? first.firstChild;
  for (const r of begin) first.insertBefore(r, afterProps);
  paras.at(-1)?.appendChild(fieldChar(doc, 'end'));
  return paras;
}

/**
 * One entry: the heading's text as a hyperlink to its bookmark. Page numbers are Word's to fill when it updates the
 * field (on open): a number written now could only be a guess.
 */
function entryParagraph(doc: XmlDocument, ctx: TocContext, entry: HeadingEntry): Element {
  const p = wElement(doc, 'p');
  const pPr = wElement(doc, 'pPr');
  const style = findStyle(ctx.styles, `toc ${entry.level}`);
  // A right-to-left heading's entry reads right to left too (as the heading does: bidi.ts).
  const rightToLeft = firstStrong(entry.text) === 'rtl';
  if (style?.type === 'paragraph') pPr.appendChild(wElement(doc, 'pStyle', { val: style.id }));
  if (rightToLeft) pPr.appendChild(wElement(doc, 'bidi'));
  // Without the template's style, Word's own look: 11 pt further in per level.
  if (style?.type !== 'paragraph') pPr.appendChild(wElement(doc, 'ind', { left: String(220 * (entry.level - 1)) }));
  p.appendChild(pPr);
  const link = wElement(doc, 'hyperlink', { anchor: entry.bookmark, history: '1' });
  // A numbered heading's entry shows its number, as Word's updated TOC does.
  const text = textRun(doc, entry.number === undefined ? entry.text : `${entry.number} ${entry.text}`);
  if (rightToLeft) {
    const rPr = wElement(doc, 'rPr');
    rPr.appendChild(wElement(doc, 'rtl'));
    text.insertBefore(rPr, text.firstChild);
  }
  link.appendChild(text);
  p.appendChild(link);
  return p;
}

/**
 * The title of our own TOC (front matter `toc-title`), as Word writes one: in the template's "TOC Heading" style (kept
 * out of the TOC), else bold 14 pt at body text's level, as the lists of figures' titles (compile/captions.ts).
 */
function titleParagraph(doc: XmlDocument, ctx: TocContext, title: string): Element {
  const p = wElement(doc, 'p');
  const pPr = wElement(doc, 'pPr');
  const style = findStyle(ctx.styles, 'TOC Heading');
  if (style?.type === 'paragraph') pPr.appendChild(wElement(doc, 'pStyle', { val: style.id }));
  pPr.appendChild(wElement(doc, 'keepNext'));
  if (style?.type !== 'paragraph') pPr.appendChild(wElement(doc, 'spacing', { before: '240', after: '120' }));
  p.appendChild(pPr);
  const r = textRun(doc, title);
  if (style?.type !== 'paragraph') {
    const rPr = wElement(doc, 'rPr');
    rPr.appendChild(wElement(doc, 'b'));
    rPr.appendChild(wElement(doc, 'sz', { val: '28' }));
    r.insertBefore(rPr, r.firstChild);
  }
  p.appendChild(r);
  return p;
}

/** Our own TOC: a "Table of Contents" content control around the field, as Word inserts one. */
function generatedToc(doc: XmlDocument, ctx: TocContext): Element {
  const sdt = wElement(doc, 'sdt');
  const sdtPr = wElement(doc, 'sdtPr');
  const partObj = wElement(doc, 'docPartObj');
  partObj.appendChild(wElement(doc, 'docPartGallery', { val: 'Table of Contents' }));
  partObj.appendChild(wElement(doc, 'docPartUnique'));
  sdtPr.appendChild(partObj);
  sdt.appendChild(sdtPr);
  const content = wElement(doc, 'sdtContent');
  if (ctx.request.title !== undefined) content.appendChild(titleParagraph(doc, ctx, ctx.request.title));
  const depth = ctx.request.depth;
  for (const p of fieldParagraphs(doc, ctx, tocInstruction(depth), depth)) content.appendChild(p);
  sdt.appendChild(content);
  return sdt;
}

/**
 * Fills a template TOC in place (`nodes` are in `doc`): the paragraphs of its field are replaced by ours, with its own
 * instruction (its levels) unless the front matter set `toc_depth`; its title paragraphs stay. Returns the nodes that
 * now stand for it.
 */
function fillToc(doc: XmlDocument, nodes: Element[], ctx: TocContext): Element[] {
  const sdt = nodes.length === 1 && nodes[0] && isW(nodes[0], 'sdt') ? nodes[0] : undefined;
  const container = sdt ? wChild(sdt, 'sdtContent') : undefined;
  const paras = container ? children(container) : nodes;
  const range = fieldRange(paras);
  const old = range ? (paras[range[0]] ?? null) : null;
  const instruction =
    old && !ctx.request.depthSet ? instructionsOf(old).trim() : tocInstruction(ctx.request.depth).trim();
  const depth = ctx.request.depthSet ? ctx.request.depth : (depthOf(instruction) ?? ctx.request.depth);
  const ours = fieldParagraphs(doc, ctx, ` ${instruction} `, depth);
  // Without a field (an empty TOC control): everything but its title (TOC Heading) paragraphs goes.
  const replaced = range
    ? paras.slice(range[0], range[1] + 1)
    : paras.filter((p) => !/^toc\s*heading$/i.test(styleName(p, ctx.styles)));
  const anchor = replaced.at(-1)?.nextSibling ?? null;
  const parent = (replaced[0]?.parentNode as Element | null) ?? container ?? null;
  if (!parent) return nodes;
  // A section break that ends a replaced paragraph stays, on our last paragraph.
  const last = ours.at(-1);
  for (const p of replaced) {
    const sectPr = wChild(wChild(p, 'pPr'), 'sectPr');
    const pPr = last ? wChild(last, 'pPr') : undefined;
    if (sectPr && pPr) pPr.appendChild(sectPr);
    parent.removeChild(p);
  }
  for (const p of ours) parent.insertBefore(p, anchor);
  if (sdt) return [sdt];
  return [...nodes.filter((n) => !replaced.includes(n)), ...ours];
}

function styleName(p: Element, styles: readonly TemplateStyle[]): string {
  const id = wAttr(wChild(wChild(p, 'pPr'), 'pStyle') ?? p, 'val');
  return styles.find((s) => s.id === id)?.name ?? id;
}

/**
 * writeToc for a body written as text: `places` are nodes of `doc` where the marker paragraphs stood (cut out of the
 * text). The TOC goes before each (as writeToc writes it in place of its marker), or the template's kept TOC is filled.
 * Returns the elements written at each place.
 */
export function writeTocAt(
  doc: XmlDocument,
  places: readonly Node[],
  kept: readonly Element[],
  shell: readonly Element[] | undefined,
  ctx: TocContext,
): Element[][] {
  const inTemplate = findToc(kept);
  const written = places.map((place, i) => {
    const parent = place.parentNode;
    if (!parent || inTemplate) return [];
    const clones = i === 0 && shell ? shell.map((n) => doc.importNode(n, true)) : undefined;
    if (clones) for (const n of clones) parent.insertBefore(n, place);
    const nodes = clones ? fillToc(doc, clones, ctx) : [generatedToc(doc, ctx)];
    if (!clones) for (const n of nodes) parent.insertBefore(n, place);
    return nodes;
  });
  if (inTemplate) fillToc(doc, inTemplate, ctx);
  return written;
}

/** Elements of CT_Settings that come after w:updateFields (the schema's sequence), where it goes in front of. */
const AFTER_UPDATE_FIELDS = new Set([
  'hdrShapeDefaults',
  'footnotePr',
  'endnotePr',
  'compat',
  'docVars',
  'rsids',
  'mathPr',
  'attachedSchema',
  'themeFontLang',
  'clrSchemeMapping',
  'doNotIncludeSubdocsInStats',
  'doNotAutoCompressPictures',
  'forceUpgrade',
  'captions',
  'readModeInkLockDown',
  'smartTagType',
  'schemaLibrary',
  'shapeDefaults',
  'doNotEmbedSmartTags',
  'decimalSymbol',
  'listSeparator',
]);

/** Sets `w:updateFields` in settings.xml (Word then updates the TOC's page numbers on open), in schema order. */
export function requestFieldUpdate(settings: XmlDocument): void {
  const root = settings.documentElement;
  if (!root) return;
  const existing = wChild(root, 'updateFields');
  if (existing) {
    setWAttr(existing, 'val', 'true');
    return;
  }
  const el = wElement(settings, 'updateFields', { val: 'true' });
  const next = children(root).find((c) => c.localName !== null && AFTER_UPDATE_FIELDS.has(c.localName));
  root.insertBefore(el, next ?? null);
  declareNamespaces(settings);
}

/** What our bookmark ids are shifted by: past the kept template body's (undefined when it has none). */
export function bookmarkIdOffset(kept: readonly Element[]): number | undefined {
  let max = -1;
  for (const el of kept) {
    for (const b of [...(isW(el, 'bookmarkStart') ? [el] : []), ...descendants(el, NS.w, 'bookmarkStart')])
      max = Math.max(max, Number(wAttr(b, 'id')) || 0);
  }
  return max < 0 ? undefined : max + 1;
}
