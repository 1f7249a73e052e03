import type { Document as XmlDocument, Element } from '@xmldom/xmldom';

const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

export type StyleType = 'paragraph' | 'character' | 'table' | 'numbering';

/** A style of a template as Word shows it: its name, id and type. */
export interface TemplateStyle {
  readonly id: string;
  readonly name: string;
  readonly type: StyleType;
  /** Alternative names Word accepts for the style (w:aliases). */
  readonly aliases: readonly string[];
}

const TYPES = new Set<string>(['paragraph', 'character', 'table', 'numbering']);

function child(el: Element, name: string): Element | undefined {
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).localName === name && (n as Element).namespaceURI === W_NS) return n as Element;
  }
  return undefined;
}

/** Reads the styles of a parsed styles.xml. */
export function readStyles(doc: XmlDocument): TemplateStyle[] {
  const out: TemplateStyle[] = [];
  const list = doc.getElementsByTagNameNS(W_NS, 'style');
  for (let i = 0; i < list.length; i++) {
    const el = list.item(i);
    if (!el) continue;
    const id = el.getAttributeNS(W_NS, 'styleId') ?? '';
    const type = el.getAttributeNS(W_NS, 'type') || 'paragraph';
    if (!id || !TYPES.has(type)) continue;
    const name = child(el, 'name')?.getAttributeNS(W_NS, 'val') || id;
    const aliases = (child(el, 'aliases')?.getAttributeNS(W_NS, 'val') ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    out.push({ id, name, type: type as StyleType, aliases });
  }
  return out;
}

const fold = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Finds a style the way Word does: by its name or an alias, ignoring case and extra spaces (Word's built-in names
 * such as "heading 1" are shown as "Heading 1"); a style id is accepted as a last resort.
 */
export function findStyle(styles: readonly TemplateStyle[], name: string): TemplateStyle | undefined {
  const exact = styles.find((s) => s.name === name);
  if (exact) return exact;
  const wanted = fold(name);
  return (
    styles.find((s) => fold(s.name) === wanted) ??
    styles.find((s) => s.aliases.some((a) => fold(a) === wanted)) ??
    styles.find((s) => s.id === name) ??
    styles.find((s) => fold(s.id) === wanted)
  );
}
