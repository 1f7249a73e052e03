// The generated body as text: docx's document.xml cut between the body's top-level elements, each slice parsed,
// rewritten and written out on its own, so no DOM of the whole generated body exists (it was 243 MB for 1.2 MB of
// markdown). The template's document (small) stays a DOM with a marker where the text goes.
import type { Document as XmlDocument, Element, Node } from '@xmldom/xmldom';
import { children, isW, parseGeneratedPart, wChild } from './dom.ts';
import type { TemplateBody } from './document.ts';
import { collectNamespaces, declaredOn, NS } from './namespaces.ts';

/** What docx writes before its document element. */
export const DOCX_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

const BODY_OPEN = '<w:body>';
const BODY_CLOSE = '</w:body></w:document>';

/** Characters of generated body parsed at a time: big enough that the per-slice costs vanish, small in memory. */
const SLICE_CHARS = 256 * 1024;

/** docx's document.xml cut into slices of whole top-level body elements. */
export interface SlicedBody {
  /** The text before `<w:body>`: the declaration and the root's start tag. */
  readonly head: string;
  /** The namespaces docx's root declares (prefix → URI). */
  readonly declared: ReadonlyMap<string, string>;
  readonly slices: readonly string[];
}

/**
 * Cuts docx's document.xml between the body's top-level elements, or undefined when it is not in the shape docx
 * writes. docx escapes `<` and `>` in every text and attribute value and writes no comments, CDATA or processing
 * instructions in the body, so the tags are found by their angle brackets alone (checked: anything else, no cut).
 */
export function sliceBody(xml: string): SlicedBody | undefined {
  if (!xml.startsWith(`${DOCX_DECLARATION}<w:document `)) return undefined;
  const open = xml.indexOf(BODY_OPEN);
  const end = xml.length - BODY_CLOSE.length;
  if (open < 0 || !xml.endsWith(BODY_CLOSE) || end < open + BODY_OPEN.length) return undefined;
  const start = open + BODY_OPEN.length;
  const special = xml.indexOf('<!', start);
  if ((special >= 0 && special < end) || xml.lastIndexOf('<?', end) > 0) return undefined;
  const head = xml.slice(0, open);
  const root = parseGeneratedPart(`${head}</w:document>`, 'word/document.xml').documentElement;
  if (root?.namespaceURI !== NS.w || root.tagName !== 'w:document') return undefined;
  const slices: string[] = [];
  let sliceStart = start;
  let depth = 0;
  for (let pos = start; pos < end;) {
    const lt = xml.indexOf('<', pos);
    // Text at the body's top level is not docx's.
    if (lt < 0 || lt >= end || (depth === 0 && lt !== pos)) return undefined;
    const gt = xml.indexOf('>', lt);
    if (gt < 0 || gt >= end) return undefined;
    if (xml[lt + 1] === '/') depth -= 1;
    else if (xml[gt - 1] !== '/') depth += 1;
    if (depth < 0) return undefined;
    pos = gt + 1;
    if (depth === 0 && (pos - sliceStart >= SLICE_CHARS || pos === end)) {
      slices.push(xml.slice(sliceStart, pos));
      sliceStart = pos;
    }
  }
  if (depth !== 0 || sliceStart !== end) return undefined;
  return { head, declared: declaredOn(root), slices };
}

/** The top-level elements of a slice but docx's section properties (the template's stay). */
export function parseSlice(body: SlicedBody, slice: string): Element[] {
  const doc = parseGeneratedPart(`${body.head}${BODY_OPEN}${slice}${BODY_CLOSE}`, 'word/document.xml');
  return children(wChild(doc.documentElement, 'body') ?? doc).filter((c) => !isW(c, 'sectPr'));
}

/** The template's document for one conversion: a copy, with a marker where the body's text goes. */
export interface Shell {
  readonly document: XmlDocument;
  readonly marker: Node;
  /** The template's kept body elements. */
  readonly kept: Element[];
}

/**
 * A copy of the template's prepared document to write the body's text into, or undefined when the DOM merge could
 * write something else: a root or body not in docx's form (docx's root and body are the ones kept there), a prefix
 * the template binds to another namespace than docx does (declarations would move), or nothing kept of its body.
 */
export function templateShell(body: TemplateBody, declared: ReadonlyMap<string, string>): Shell | undefined {
  const templateRoot = body.body.parentNode as Element | null;
  const source = templateRoot?.ownerDocument;
  if (!templateRoot || !source || templateRoot.tagName !== 'w:document' || templateRoot.namespaceURI !== NS.w)
    return undefined;
  if (body.body.tagName !== 'w:body' || body.body.attributes.length > 0) return undefined;
  const used = declaredOn(templateRoot);
  collectNamespaces(templateRoot, used);
  for (const [prefix, uri] of used) {
    const ours = declared.get(prefix);
    if (ours !== undefined && ours !== uri) return undefined;
  }
  let index = 0;
  for (let n = body.body.firstChild; n && n !== body.marker; n = n.nextSibling) index += 1;
  const document = source.cloneNode(true) as XmlDocument;
  const copyBody = wChild(document.documentElement, 'body');
  const marker = copyBody?.childNodes.item(index);
  if (!copyBody || marker?.nodeType !== 8 || !document.documentElement) return undefined;
  // The DOM merge keeps the template root's elements only (its white space between them goes).
  const root = document.documentElement;
  for (let n = root.firstChild; n;) {
    const next = n.nextSibling;
    if (n.nodeType !== 1) root.removeChild(n);
    n = next;
  }
  // A body with nothing kept around empty content would be written `<w:body/>` by the DOM merge.
  const kept = children(copyBody);
  return kept.length > 0 ? { document, marker, kept } : undefined;
}

/**
 * Values written into the body's text after it is serialised (the ids decided once the whole body is read): a
 * token stands for each. NUL never occurs in docx's text (it drops control characters), so it delimits them.
 */
export class Holes {
  private readonly values: string[] = [];

  /** A new hole holding `value` for now; returns its token and a setter. */
  make(value: string): { token: string; set: (value: string) => void } {
    const k = this.values.push(value) - 1;
    return {
      token: `\u0000${String(k)}\u0000`,
      set: (v: string) => {
        this.values[k] = v;
      },
    };
  }

  /** The text with every token replaced by its value. */
  fill(text: string): string {
    if (this.values.length === 0) return text;
    const pieces = text.split('\u0000');
    for (let i = 1; i < pieces.length; i += 2) pieces[i] = this.values[Number(pieces[i])] ?? '';
    return pieces.join('');
  }
}
