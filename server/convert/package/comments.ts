import type { Document as XmlDocument } from '@xmldom/xmldom';
import { children, isW, wAttr } from './dom.ts';

/** Removes the template's comments that its kept body does not anchor; returns how many remain. */
export function pruneComments(doc: XmlDocument, keep: ReadonlySet<string>): number {
  const root = doc.documentElement;
  if (!root) return 0;
  let left = 0;
  for (const comment of children(root).filter((c) => isW(c, 'comment'))) {
    if (keep.has(wAttr(comment, 'id'))) left += 1;
    else root.removeChild(comment);
  }
  return left;
}
