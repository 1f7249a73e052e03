import { DOMParser, XMLSerializer, type Document as XmlDocument, type Element } from '@xmldom/xmldom';
import { ConvertInputError } from '../errors.ts';
import { encodeUtf8 } from '../xml.ts';

/** The package relationships namespace (the .rels parts). */
export const PACKAGE_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
/** The officeDocument relationships namespace (r:id, r:link, r:embed … in the parts). */
export const R_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

/** Parses an XML part; DTDs are refused outright so no entity is ever declared, let alone resolved. */
export function parseXml(xml: string, name: string): XmlDocument {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    throw new ConvertInputError(
      'template_invalid',
      `The template part ${name} declares a DTD or entities, which .docx files never do.`,
    );
  }
  try {
    return new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml');
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConvertInputError(
      'template_invalid',
      `The template part ${name} is not well-formed XML: ${String(detail)}`,
    );
  }
}

/** Decodes an XML part as its byte order mark says (UTF-16 LE/BE), else as UTF-8. */
export function decodeXmlPart(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  const text = new TextDecoder('utf-8').decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Serialises a changed part as UTF-8 with a UTF-8 declaration (whatever the part declared before). */
export function serializeXmlPart(doc: XmlDocument): Uint8Array {
  for (let n = doc.firstChild; n;) {
    const next = n.nextSibling;
    // The old declaration (kept by the parser as a processing instruction) may name UTF-16.
    if (n.nodeType === 7 && (n as unknown as { target: string }).target === 'xml') doc.removeChild(n);
    n = next;
  }
  return encodeUtf8(`${XML_DECLARATION}\n${new XMLSerializer().serializeToString(doc)}`);
}

/** Path of a part next to `part`, e.g. the styles.xml beside word/document.xml. */
export function siblingPath(part: string, name: string): string {
  const slash = part.lastIndexOf('/');
  return slash < 0 ? name : `${part.slice(0, slash + 1)}${name}`;
}

/** Path of the relationships part of `part`. */
export function relsPath(part: string): string {
  const slash = part.lastIndexOf('/');
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/** The part a relationships part belongs to (`word/_rels/settings.xml.rels` → `word/settings.xml`); '' for the package's. */
export function ownerOfRels(rels: string): string | null {
  const slash = rels.lastIndexOf('/');
  const folder = rels.slice(0, slash + 1);
  const file = rels.slice(slash + 1);
  // OPC part names compare without regard to case: word/_RELS/x.xml.RELS is a relationships part too.
  if (!folder.toLowerCase().endsWith('_rels/') || !file.toLowerCase().endsWith('.rels')) return null;
  return `${folder.slice(0, -'_rels/'.length)}${file.slice(0, -'.rels'.length)}`;
}

/** The stored name of part `name` compared as OPC does, ignoring case (`name` itself when no part matches). */
export function findPart(names: Iterable<string>, name: string): string {
  const wanted = name.toLowerCase();
  const all = [...names];
  if (all.includes(name)) return name;
  return all.find((candidate) => candidate.toLowerCase() === wanted) ?? name;
}

/** True for a relationships part name, in any case. */
export function isRelsPart(name: string): boolean {
  return name.toLowerCase().endsWith('.rels');
}

/** Resolves a relationship's internal target against the folder of its source part (OPC part names, no leading /). */
export function resolveTarget(owner: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const base = owner.includes('/') ? owner.slice(0, owner.lastIndexOf('/')).split('/') : [];
  for (const segment of target.split('/')) {
    if (segment === '..') base.pop();
    else if (segment !== '.' && segment !== '') base.push(segment);
  }
  return base.join('/');
}

/** Every element of a document, in document order. */
export function allElements(doc: XmlDocument): Element[] {
  return elementsOf(doc.getElementsByTagName('*'));
}

/** A live list of elements as an array. */
function elementsOf(list: { length: number; item(i: number): Element | null }): Element[] {
  const out: Element[] = [];
  for (let i = 0; i < list.length; i++) {
    const el = list.item(i);
    if (el) out.push(el);
  }
  return out;
}

/** True when the first byte that is not a BOM, NUL or whitespace is "<" (binary parts such as images never are). */
export function looksLikeXml(bytes: Uint8Array): boolean {
  // However much comes first: a part padded with white space is still read as XML (by us and by Word), so every
  // check that asks this must see it (64 bytes of padding once hid a relationships part from the sanitiser).
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    if (!PROLOG_NOISE.has(b)) return b === 0x3c;
  }
  return false;
}

/** Bytes before the first markup of an XML part: NULs of UTF-16, byte order marks, whitespace. */
const PROLOG_NOISE = new Set([0x00, 0xef, 0xbb, 0xbf, 0xfe, 0xff, 0x09, 0x0a, 0x0d, 0x20]);

/** The package relationships of a relationships part (an element of that name in another namespace is none). */
export function relationships(doc: XmlDocument): Element[] {
  return elementsOf(doc.getElementsByTagNameNS(PACKAGE_REL_NS, 'Relationship'));
}

/** External: TargetMode="External", or a target that is an absolute URI or a network path whatever its mode says. */
export function isExternal(rel: Element): boolean {
  // Leading XML whitespace (a tab, a space) must not hide an absolute URI or a UNC path.
  const target = (rel.getAttribute('Target') ?? '').replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  return (
    (rel.getAttribute('TargetMode') ?? '').toLowerCase() === 'external' || /^[a-z][a-z0-9+.-]*:|^[\\/]{2}/i.test(target)
  );
}

/** A relationship type's last segment (`…/relationships/styles` → `styles`). */
export function relKind(type: string): string {
  return type.slice(type.lastIndexOf('/') + 1) || 'unknown';
}
