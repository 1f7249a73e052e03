import { DOMParser, type Document as XmlDocument, type Element, type Node } from '@xmldom/xmldom';
import { unescapeBraces } from '../braces.ts';
import { parseXml } from '../template/read.ts';
import { textOf } from '../xml.ts';
import { NS } from './namespaces.ts';
import { serializeDocument } from './serialize.ts';
import '../xml-regexps.ts';

const DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Parses a part (bytes or text). */
export function parsePart(data: Uint8Array | string, name: string): XmlDocument {
  return parseXml(textOf(data), name);
}

/**
 * Parses a part docx wrote from our own compile (trusted, well-formed, no DTD). Without xmldom's locator: it gives
 * every node a line and column and every attribute a locator object, which nothing here reads (about 8 % of the DOM
 * of a long document.xml). The user's braces come back as they were (braces.ts): docx has replaced its placeholders.
 */
export function parseGeneratedPart(data: Uint8Array | string, name: string): XmlDocument {
  const xml = unescapeBraces(textOf(data));
  const doc = parseWithoutLocator(xml);
  // Not well-formed, or with a DTD, after all: parsed again the usual way, for the usual error.
  return doc && !doc.doctype ? doc : parsePart(xml, name);
}

/** A well-formed document, else null. */
function parseWithoutLocator(xml: string): XmlDocument | null {
  try {
    return new DOMParser({
      locator: false,
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml');
  } catch {
    return null;
  }
}

/** Writes a part back, with its XML declaration. */
export function serializePart(doc: XmlDocument): string {
  return withDeclaration(serializeDocument(doc));
}

/** A part's text with the XML declaration in front when it has none (as serializePart writes every part). */
export function withDeclaration(xml: string): string {
  return xml.startsWith('<?xml') ? xml : `${DECLARATION}${xml}`;
}

/** The element children of a node. */
export function children(node: Node): Element[] {
  const out: Element[] = [];
  for (let n = node.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) out.push(n as Element);
  return out;
}

/** Descendant elements of a node by namespace and local name, in document order. */
export function descendants(node: XmlDocument | Element, ns: string, localName: string): Element[] {
  const list = node.getElementsByTagNameNS(ns, localName);
  const out: Element[] = [];
  for (let i = 0; i < list.length; i++) {
    const el = list.item(i);
    if (el) out.push(el);
  }
  return out;
}

/** True when an element is the WordprocessingML element `localName`. */
export function isW(node: Node | null | undefined, localName: string): node is Element {
  return (
    !!node &&
    node.nodeType === 1 &&
    (node as Element).namespaceURI === NS.w &&
    (node as Element).localName === localName
  );
}

/** The first WordprocessingML child named `localName`. */
export function wChild(el: Element | null | undefined, localName: string): Element | undefined {
  return el ? children(el).find((c) => isW(c, localName)) : undefined;
}

/** A w: attribute. */
export function wAttr(el: Element, name: string): string {
  return el.getAttributeNS(NS.w, name) ?? '';
}

/**
 * The prefix a part binds to `ns` where `el` stands, else `fallback`. A default namespace (xmldom's lookupPrefix gives
 * '' for it) cannot qualify an attribute, so it counts as none.
 */
export function prefixOf(el: Element | null | undefined, ns: string, fallback: string): string {
  return el?.lookupPrefix(ns) || fallback;
}

/** Sets a w: attribute, with the prefix the element's part uses for w. */
export function setWAttr(el: Element, name: string, value: string): void {
  // An attribute it has already takes the new value where it stands (as setAttributeNS would put it), without looking
  // the prefix up through every ancestor.
  const held = el.getAttributeNodeNS(NS.w, name);
  if (held?.prefix === 'w') {
    (held as { value: string }).value = value;
    (held as { nodeValue: string | null }).nodeValue = value;
    return;
  }
  const prefix = prefixOf(el, NS.w, 'w');
  el.setAttributeNS(NS.w, `${prefix}:${name}`, value);
}

/** Creates a w: element in a part. */
export function wElement(doc: XmlDocument, localName: string, attrs: Record<string, string> = {}): Element {
  const prefix = prefixOf(doc.documentElement, NS.w, 'w');
  const el = doc.createElementNS(NS.w, `${prefix}:${localName}`);
  for (const [name, value] of Object.entries(attrs)) el.setAttributeNS(NS.w, `${prefix}:${name}`, value);
  return el;
}

/** The visible text of a paragraph (its w:t runs). */
export function paragraphText(p: Element): string {
  return descendants(p, NS.w, 't')
    .map((t) => t.textContent ?? '')
    .join('');
}

/** The w: elements named in `localNames` within `nodes` (themselves included), in one walk, by name. */
export function wElementsIn(nodes: readonly Element[], localNames: readonly string[]): Map<string, Element[]> {
  const out = new Map<string, Element[]>(localNames.map((n) => [n, []]));
  const stack = [...nodes].reverse();
  for (let el = stack.pop(); el; el = stack.pop()) {
    if (el.namespaceURI === NS.w) out.get(el.localName ?? '')?.push(el);
    for (let n = el.lastChild; n; n = n.previousSibling) if (n.nodeType === 1) stack.push(n as Element);
  }
  return out;
}

/**
 * Moves a node of a part we made and no longer need (docx's numbering, its footnotes) into `doc`: importNode would
 * copy it node by node, which for a long document's hundreds of list definitions costs more than the whole merge.
 */
export function adopt<T extends Node>(doc: XmlDocument, node: T): T {
  node.parentNode?.removeChild(node);
  const stack: Node[] = [node];
  for (let n = stack.pop(); n; n = stack.pop()) {
    (n as { ownerDocument: XmlDocument }).ownerDocument = doc;
    if (n.nodeType === 1) {
      const attrs = (n as Element).attributes;
      for (let i = 0; i < attrs.length; i++) {
        const a = attrs.item(i);
        if (a) stack.push(a);
      }
    }
    for (let c = n.firstChild; c; c = c.nextSibling) stack.push(c);
  }
  return node;
}
