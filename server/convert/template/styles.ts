import type { Document as XmlDocument } from '@xmldom/xmldom';
import { W_NS, wChild } from './wordml.ts';

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
    const name = wChild(el, 'name')?.getAttributeNS(W_NS, 'val') || id;
    const aliases = (wChild(el, 'aliases')?.getAttributeNS(W_NS, 'val') ?? '')
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
