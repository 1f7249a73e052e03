import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { adopt, children, descendants, isW, setWAttr, wAttr } from './dom.ts';
import { declareNamespaces, NS } from './namespaces.ts';

/** Note types Word needs whatever the content: the separator lines between text and notes. */
const SEPARATORS = new Set(['separator', 'continuationSeparator', 'continuationNotice']);

/**
 * Removes the template's own notes (footnotes or endnotes) but its separators and those its kept body refers to:
 * the template's sample notes are not the document's.
 */
export function pruneNotes(doc: XmlDocument, kind: 'footnote' | 'endnote', keep: ReadonlySet<string>): boolean {
  const root = doc.documentElement;
  if (!root) return false;
  let changed = false;
  for (const note of children(root).filter((c) => isW(c, kind))) {
    if (SEPARATORS.has(wAttr(note, 'type')) || keep.has(wAttr(note, 'id'))) continue;
    root.removeChild(note);
    changed = true;
  }
  return changed;
}

/**
 * Appends the conversion's footnotes to the template's (after its separators), with ids past the template's, and
 * renumbers the references in `referrers` (the body) to match.
 */
export function mergeFootnotes(template: XmlDocument, generated: XmlDocument, referrers: readonly Element[]): void {
  const base = appendFootnotes(template, generated);
  if (base > 0) shiftFootnoteReferences(referrers, base);
}

/** The highest footnote id of a part (0 for none): ours are numbered past it. */
export function footnoteIdBase(template: XmlDocument): number {
  const root = template.documentElement;
  if (!root) return 0;
  // A reduce, not Math.max(...ids): a spread of many thousands of arguments overflows the stack.
  return children(root)
    .filter((c) => isW(c, 'footnote'))
    .reduce((max, c) => Math.max(max, Number(wAttr(c, 'id')) || 0), 0);
}

/** Appends docx's footnotes (ids > 0) to the template's with ids past its own; returns what they were shifted by. */
export function appendFootnotes(template: XmlDocument, generated: XmlDocument): number {
  const root = template.documentElement;
  const genRoot = generated.documentElement;
  if (!root || !genRoot) return 0;
  const base = footnoteIdBase(template);
  for (const note of children(genRoot).filter((c) => isW(c, 'footnote'))) {
    const id = Number(wAttr(note, 'id'));
    if (!(id > 0)) continue;
    const copy = adopt(template, note);
    setWAttr(copy, 'id', String(id + base));
    root.appendChild(copy);
  }
  declareNamespaces(template);
  return base;
}

/** Adds `base` to the footnote reference ids in `referrers`. */
export function shiftFootnoteReferences(referrers: readonly Element[], base: number): void {
  for (const referrer of referrers) {
    for (const ref of descendants(referrer, NS.w, 'footnoteReference'))
      setWAttr(ref, 'id', String(Number(wAttr(ref, 'id')) + base));
  }
}
