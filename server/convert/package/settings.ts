import type { Document as XmlDocument } from '@xmldom/xmldom';
import { descendants, setWAttr, wAttr } from './dom.ts';
import { declareNamespaces, NS } from './namespaces.ts';

/**
 * The template's settings, made schema-valid where Word itself writes them loosely: Word for Mac saves
 * `<w:zoom w:val="bestFit"/>` without the w:percent the schema requires (python-docx's default template has it), and
 * a strict reader refuses the document for it. Returns true when the part changed.
 */
export function repairSettings(settings: XmlDocument): boolean {
  let changed = false;
  for (const zoom of descendants(settings, NS.w, 'zoom')) {
    if (wAttr(zoom, 'percent') !== '') continue;
    setWAttr(zoom, 'percent', '100');
    changed = true;
  }
  if (changed) declareNamespaces(settings);
  return changed;
}
