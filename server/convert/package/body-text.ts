// The generated body as text (body-stream.ts writes it): the template's document (small) stays a DOM with a marker
// where the text goes, and the values decided once the whole body is written are holes in the text.
import type { Document as XmlDocument, Element, Node } from '@xmldom/xmldom';
import { encodeUtf8 } from '../xml.ts';
import { children, wChild } from './dom.ts';
import type { TemplateBody } from './document.ts';
import { collectNamespaces, declaredOn, NS } from './namespaces.ts';

/** What docx writes before its document element. */
export const DOCX_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

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

  /**
   * `before`, the chunks filled (each holds whole tokens) and `after`, as UTF-8, without ever making the whole text
   * one string (5 M characters at 1.2 MB of markdown).
   */
  fillUtf8(before: string, chunks: readonly string[], after: string): Uint8Array {
    const encoded = [encodeUtf8(before), ...chunks.map((chunk) => encodeUtf8(this.fill(chunk))), encodeUtf8(after)];
    const out = new Uint8Array(encoded.reduce((sum, piece) => sum + piece.length, 0));
    let at = 0;
    for (const piece of encoded) {
      out.set(piece, at);
      at += piece.length;
    }
    return out;
  }
}
