import type { Attr, Document as XmlDocument, Element, Node } from '@xmldom/xmldom';

/** The one namespace registry of the package (prefix → URI), as Word writes them. */
export const NS = {
  w: 'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  r: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  mc: 'http://schemas.openxmlformats.org/markup-compatibility/2006',
  m: 'http://schemas.openxmlformats.org/officeDocument/2006/math',
  wp: 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing',
  a: 'http://schemas.openxmlformats.org/drawingml/2006/main',
  pic: 'http://schemas.openxmlformats.org/drawingml/2006/picture',
  o: 'urn:schemas-microsoft-com:office:office',
  v: 'urn:schemas-microsoft-com:vml',
  w10: 'urn:schemas-microsoft-com:office:word',
  wne: 'http://schemas.microsoft.com/office/word/2006/wordml',
  w14: 'http://schemas.microsoft.com/office/word/2010/wordml',
  w15: 'http://schemas.microsoft.com/office/word/2012/wordml',
  w16: 'http://schemas.microsoft.com/office/word/2018/wordml',
  w16cex: 'http://schemas.microsoft.com/office/word/2018/wordml/cex',
  w16cid: 'http://schemas.microsoft.com/office/word/2016/wordml/cid',
  w16se: 'http://schemas.microsoft.com/office/word/2015/wordml/symex',
  w16sdtdh: 'http://schemas.microsoft.com/office/word/2020/wordml/sdtdatahash',
  wp14: 'http://schemas.microsoft.com/office/word/2010/wordprocessingDrawing',
  wpc: 'http://schemas.microsoft.com/office/word/2010/wordprocessingCanvas',
  wpg: 'http://schemas.microsoft.com/office/word/2010/wordprocessingGroup',
  wpi: 'http://schemas.microsoft.com/office/word/2010/wordprocessingInk',
  wps: 'http://schemas.microsoft.com/office/word/2010/wordprocessingShape',
  pkg: 'http://schemas.openxmlformats.org/package/2006/relationships',
  ct: 'http://schemas.openxmlformats.org/package/2006/content-types',
  cp: 'http://schemas.openxmlformats.org/package/2006/metadata/core-properties',
  dc: 'http://purl.org/dc/elements/1.1/',
  dcterms: 'http://purl.org/dc/terms/',
  dcmitype: 'http://purl.org/dc/dcmitype/',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
} as const;

const XMLNS = 'http://www.w3.org/2000/xmlns/';
const XML = 'http://www.w3.org/XML/1998/namespace';

/**
 * Office extension namespaces (Word 2010 and later): ECMA-376 readers do not know them, so a part that uses one must
 * list its prefix in mc:Ignorable.
 */
const EXTENSIONS: ReadonlySet<string> = new Set([
  NS.w14,
  NS.w15,
  NS.w16,
  NS.w16cex,
  NS.w16cid,
  NS.w16se,
  NS.w16sdtdh,
  NS.wp14,
  NS.wpc,
  NS.wpg,
  NS.wpi,
  NS.wps,
]);

/** True for a namespace of Word's extensions (w14, w15, w16…, wp14…), which readers may ignore. */
export function isExtension(uri: string): boolean {
  return EXTENSIONS.has(uri) || /^http:\/\/schemas\.microsoft\.com\/office\/(word|drawing)\/20(1\d|2\d)\//.test(uri);
}

function rootDeclarations(root: Element): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < root.attributes.length; i++) {
    const a = root.attributes.item(i);
    if (a && a.namespaceURI === XMLNS && a.prefix === 'xmlns') out.set(a.localName ?? '', a.value);
  }
  return out;
}

/**
 * The namespaces (prefix → URI) the elements and attributes of a part use, first use first. With `below`, the
 * declarations of the elements under the root are collected into it on the way (one walk instead of two). `inserted`
 * stands for elements written elsewhere: at its node (a placeholder in the tree) its namespaces count as used.
 */
function usedNamespaces(
  root: Element,
  below?: { el: Element; attr: Attr }[],
  inserted?: ReadonlyMap<Node, ReadonlyMap<string, string>>,
  used: Map<string, string> = new Map(),
): Map<string, string> {
  const stack: Node[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.nodeType !== 1) {
      for (const [prefix, uri] of inserted?.get(node) ?? []) if (!used.has(prefix)) used.set(prefix, uri);
      continue;
    }
    const el = node as Element;
    if (el.prefix && el.namespaceURI && !used.has(el.prefix)) used.set(el.prefix, el.namespaceURI);
    for (let i = 0; i < el.attributes.length; i++) {
      const a = el.attributes.item(i);
      if (below && a && el !== root && a.namespaceURI === XMLNS && a.prefix === 'xmlns') below.push({ el, attr: a });
      if (!a || !a.prefix || !a.namespaceURI || a.namespaceURI === XMLNS || a.namespaceURI === XML) continue;
      if (!used.has(a.prefix)) used.set(a.prefix, a.namespaceURI);
    }
    for (let n = el.lastChild; n; n = n.previousSibling) if (n.nodeType === 1 || inserted?.has(n)) stack.push(n);
  }
  return used;
}

/**
 * Elements written apart from a part's tree (the body's content, our list definitions), standing at a placeholder
 * node `at` in it (a part may have several).
 */
export interface InsertedContent {
  at: Node;
  /** The namespaces they use, first use first. */
  used: ReadonlyMap<string, string>;
}

/** Adds the namespaces (prefix → URI) `el` and its descendants use to `used`, first use first. */
export function collectNamespaces(el: Element, used: Map<string, string>): void {
  usedNamespaces(el, undefined, undefined, used);
}

/** The namespaces a part's root declares (prefix → URI). */
export function declaredOn(root: Element): Map<string, string> {
  return rootDeclarations(root);
}

/**
 * Makes a part declare, on its root, every namespace its elements and attributes use, and list in mc:Ignorable every
 * extension namespace it uses (keeping the entries it had that are still declared). The one place that writes
 * namespace declarations: every part the package writes into goes through it.
 */
export function declareNamespaces(doc: XmlDocument, inserted: readonly InsertedContent[] = []): void {
  const root = doc.documentElement;
  if (!root) return;
  const declared = rootDeclarations(root);
  const below: { el: Element; attr: Attr }[] = [];
  const used = usedNamespaces(root, below, new Map(inserted.map(({ at, used }) => [at, used])));
  for (const [prefix, uri] of used) {
    if (declared.has(prefix)) continue;
    root.setAttributeNS(XMLNS, `xmlns:${prefix}`, uri);
    declared.set(prefix, uri);
  }
  // Declarations below the root that repeat one of the root's go.
  for (const { el, attr } of below) if (declared.get(attr.localName ?? '') === attr.value) el.removeAttributeNode(attr);
  const current = (root.getAttributeNS(NS.mc, 'Ignorable') ?? '').split(/\s+/).filter(Boolean);
  const ignorable = current.filter((p) => declared.has(p));
  for (const [prefix, uri] of used)
    if (isExtension(uri) && declared.get(prefix) === uri && !ignorable.includes(prefix)) ignorable.push(prefix);
  if (ignorable.join(' ') === current.join(' ')) return;
  if (ignorable.length === 0) {
    root.removeAttributeNS(NS.mc, 'Ignorable');
    return;
  }
  const mcPrefix = [...declared].find(([, uri]) => uri === NS.mc)?.[0];
  if (mcPrefix === undefined) root.setAttributeNS(XMLNS, 'xmlns:mc', NS.mc);
  root.setAttributeNS(NS.mc, `${mcPrefix ?? 'mc'}:Ignorable`, ignorable.join(' '));
}
