import type { Element } from '@xmldom/xmldom';

/** The WordprocessingML namespace. */
export const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** The element children of an element. */
export function childElements(el: Element): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) out.push(n as Element);
  return out;
}

/** The first WordprocessingML child element named `localName`. */
export function wChild(el: Element | undefined, localName: string): Element | undefined {
  return el ? childElements(el).find((c) => c.namespaceURI === W_NS && c.localName === localName) : undefined;
}
