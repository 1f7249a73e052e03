// xmldom's XMLSerializer, rewritten for the parts we write: the same bytes (test/convert/package/serialize.test.ts
// compares them on every part of every fixture and corpus document) at a fraction of the cost. xmldom copies the
// visible namespaces (30 on a document.xml root) for every element and walks through closures; this keeps one list
// and truncates it when an element closes. Anything it does not know (HTML, a doctype) goes to xmldom's own.
import { XMLSerializer, type Document as XmlDocument, type Element, type Node } from '@xmldom/xmldom';

const XMLNS = 'http://www.w3.org/2000/xmlns/';
const XML = 'http://www.w3.org/XML/1998/namespace';
const XHTML = 'http://www.w3.org/1999/xhtml';

/** A namespace in scope, as xmldom's serializer keeps it (the root's own default namespace has prefix null). */
interface Visible {
  prefix: string | null;
  namespace: string;
}

/** An element to close: its tag and the number of namespaces in scope before it. */
interface Close {
  tag: string;
  mark: number;
}

/** Thrown on a node this serializer leaves to xmldom. */
class Unsupported extends Error {}

const encode = (c: string): string =>
  c === '<'
    ? '&lt;'
    : c === '>'
      ? '&gt;'
      : c === '&'
        ? '&amp;'
        : c === '"'
          ? '&quot;'
          : `&#${String(c.charCodeAt(0))};`;

const ATTRIBUTE_SPECIAL = /[<>&"\t\n\r]/;
const attribute = (name: string, value: string): string =>
  ` ${name}="${ATTRIBUTE_SPECIAL.test(value) ? value.replace(/[<>&"\t\n\r]/g, encode) : value}"`;

/** xmldom's needNamespaceDefine. */
function needsDefinition(prefixOrNull: string | null, uri: string | null, visible: readonly Visible[]): boolean {
  const prefix = prefixOrNull ?? '';
  if (!uri) return false;
  if ((prefix === 'xml' && uri === XML) || uri === XMLNS) return false;
  for (let i = visible.length - 1; i >= 0; i--) {
    const ns = visible[i];
    if (ns?.prefix === prefix) return ns.namespace !== uri;
  }
  return true;
}

/** The tag xmldom writes for an element: an unprefixed one in a namespace declared elsewhere with a prefix gets it. */
function tagOf(el: Element, visible: readonly Visible[]): string {
  const nodeName = el.tagName;
  const uri = el.namespaceURI;
  if (el.prefix || !uri) return nodeName;
  let defaultNs: string | undefined;
  for (let i = 0; i < el.attributes.length; i++) {
    const a = el.attributes.item(i);
    if (a?.name === 'xmlns') {
      defaultNs = a.value;
      break;
    }
  }
  if (!defaultNs)
    for (let i = visible.length - 1; i >= 0; i--) {
      const ns = visible[i];
      if (ns && ns.prefix === '' && ns.namespace === uri) {
        defaultNs = ns.namespace;
        break;
      }
    }
  if (defaultNs === uri) return nodeName;
  for (let i = visible.length - 1; i >= 0; i--) {
    const ns = visible[i];
    if (ns?.namespace === uri) return ns.prefix ? `${ns.prefix}:${nodeName}` : nodeName;
  }
  return nodeName;
}

/** Opens an element (its attributes and the declarations xmldom would add); returns its tag. */
function openElement(el: Element, visible: Visible[], out: string[]): string {
  const tag = tagOf(el, visible);
  out.push(`<${tag}`);
  const attrs = el.attributes;
  for (let i = 0; i < attrs.length; i++) {
    const a = attrs.item(i);
    if (!a) continue;
    if (a.prefix === 'xmlns') visible.push({ prefix: a.localName, namespace: a.value });
    else if (a.nodeName === 'xmlns') visible.push({ prefix: '', namespace: a.value });
  }
  for (let i = 0; i < attrs.length; i++) {
    const a = attrs.item(i);
    if (!a) continue;
    if (needsDefinition(a.prefix, a.namespaceURI, visible)) {
      const prefix = a.prefix ?? '';
      const uri = a.namespaceURI ?? '';
      out.push(attribute(prefix ? `xmlns:${prefix}` : 'xmlns', uri));
      visible.push({ prefix, namespace: uri });
    }
    out.push(attribute(a.name, a.value));
  }
  if (tag === el.tagName && needsDefinition(el.prefix, el.namespaceURI, visible)) {
    const prefix = el.prefix ?? '';
    const uri = el.namespaceURI ?? '';
    out.push(attribute(prefix ? `xmlns:${prefix}` : 'xmlns', uri));
    visible.push({ prefix, namespace: uri });
  }
  return tag;
}

function serializeFast(doc: XmlDocument, splitAt?: ReadonlySet<Node>): string[] {
  if ((doc as { type?: string }).type === 'html') throw new Unsupported();
  const root = doc.documentElement;
  let visible: Visible[] = [];
  if (root?.namespaceURI && root.prefix == null && root.lookupPrefix(root.namespaceURI) == null)
    visible = [{ namespace: root.namespaceURI, prefix: null }];
  const top: Node[] = [];
  for (let c = doc.firstChild; c; c = c.nextSibling) top.push(c);
  return write(top, visible, splitAt);
}

/**
 * Writes nodes in order with `visible` namespaces in scope. At each node of `splitAt` the text is cut: the pieces
 * between them are returned, the nodes themselves not written.
 */
function write(nodes: readonly Node[], visible: Visible[], splitAt?: ReadonlySet<Node>): string[] {
  const pieces: string[] = [];
  let out: string[] = [];
  // null in `stack`: close the element on top of `closes`.
  const stack: (Node | null)[] = [];
  const closes: Close[] = [];
  const pushChildren = (n: Node): void => {
    for (let c = n.lastChild; c; c = c.previousSibling) stack.push(c);
  };
  for (let i = nodes.length - 1; i >= 0; i--) stack.push(nodes[i] ?? null);
  while (stack.length > 0) {
    const item = stack.pop();
    if (!item) {
      const close = closes.pop();
      if (!close) throw new Error('unbalanced serializer stack');
      out.push(`</${close.tag}>`);
      visible.length = close.mark;
      continue;
    }
    const n = item;
    if (splitAt?.has(n)) {
      pieces.push(out.join(''));
      out = [];
      continue;
    }
    switch (n.nodeType) {
      case 1: {
        const el = n as Element;
        if (el.namespaceURI === XHTML) throw new Unsupported();
        const mark = visible.length;
        const tag = openElement(el, visible, out);
        if (!el.firstChild) {
          out.push('/>');
          visible.length = mark;
        } else {
          out.push('>');
          closes.push({ tag, mark });
          stack.push(null);
          pushChildren(el);
        }
        break;
      }
      case 3:
        out.push((n as unknown as { data: string }).data.replace(/[<&>]/g, encode));
        break;
      case 4:
        out.push(`<![CDATA[${(n as unknown as { data: string }).data.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`);
        break;
      case 5:
        out.push(`&${n.nodeName};`);
        break;
      case 7: {
        const pi = n as unknown as { target: string; data: string };
        out.push(`<?${pi.target} ${pi.data}?>`);
        break;
      }
      case 8:
        out.push(`<!--${(n as unknown as { data: string }).data}-->`);
        break;
      default:
        throw new Unsupported();
    }
  }
  pieces.push(out.join(''));
  return pieces;
}

/**
 * A part's root element (prefixed) as xmldom's XMLSerializer writes it, cut at `at` (which is not written): the
 * text before and after, or undefined for a part this serializer leaves to xmldom.
 */
export function serializeAround(doc: XmlDocument, at: Node): [string, string] | undefined {
  const root = doc.documentElement;
  if (!root?.prefix) return undefined;
  try {
    const [before, after, ...rest] = write([root], [], new Set([at]));
    return before !== undefined && after !== undefined && rest.length === 0 ? [before, after] : undefined;
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

/**
 * A whole part as serializeDocument writes it, cut at each of `at` (in document order; not written): the pieces
 * before, between and after them, or undefined for a part this serializer leaves to xmldom.
 */
export function serializeAroundAll(doc: XmlDocument, at: readonly Node[]): string[] | undefined {
  try {
    const pieces = serializeFast(doc, new Set(at));
    return pieces.length === at.length + 1 ? pieces : undefined;
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

/** An attribute as the serializer writes it (with its leading space). */
export function attributeText(name: string, value: string): string {
  return attribute(name, value);
}

/** A whole part as xmldom's XMLSerializer writes it, byte for byte. */
export function serializeDocument(doc: XmlDocument): string {
  try {
    return serializeFast(doc).join('');
  } catch (error) {
    if (error instanceof Unsupported) return new XMLSerializer().serializeToString(doc);
    throw error;
  }
}
