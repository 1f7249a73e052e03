import { DOMImplementation } from '@xmldom/xmldom';
import type { DocumentProperties } from '../compile/index.ts';
import { stripForbiddenXmlChars } from '../xml.ts';
import { serializePart } from './dom.ts';
import { NS } from './namespaces.ts';

/**
 * docProps/core.xml with the front matter's properties (the template's author and dates belong to the template):
 * created is the front matter's date when it gives one, modified the conversion's time.
 */
export function corePropertiesXml(props: DocumentProperties, created: Date): string {
  const doc = new DOMImplementation().createDocument(NS.cp, 'cp:coreProperties', null);
  const root = doc.documentElement;
  if (!root) throw new Error('no root');
  for (const prefix of ['cp', 'dc', 'dcterms', 'dcmitype', 'xsi'] as const)
    root.setAttributeNS('http://www.w3.org/2000/xmlns/', `xmlns:${prefix}`, NS[prefix]);
  const add = (ns: string, qname: string, value: string | undefined, typed = false) => {
    if (value === undefined) return;
    const el = doc.createElementNS(ns, qname);
    if (typed) el.setAttributeNS(NS.xsi, 'xsi:type', 'dcterms:W3CDTF');
    // Front matter text as written may hold characters XML forbids: the part would not be XML.
    el.appendChild(doc.createTextNode(stripForbiddenXmlChars(value)));
    root.appendChild(el);
  };
  const date = created.toISOString().replace(/\.\d{3}Z$/, 'Z');
  add(NS.dc, 'dc:title', props.title);
  add(NS.dc, 'dc:subject', props.subject);
  add(NS.dc, 'dc:creator', props.creator);
  add(NS.cp, 'cp:keywords', props.keywords);
  add(NS.dc, 'dc:description', props.description);
  add(NS.dc, 'dc:language', props.language);
  add(NS.cp, 'cp:lastModifiedBy', 'Docwright');
  // The front matter's date is the document's (its day is printed in the title block); else the conversion's time.
  add(NS.dcterms, 'dcterms:created', props.created ?? date, true);
  add(NS.dcterms, 'dcterms:modified', date, true);
  return serializePart(doc);
}
