import { DOMParser, XMLSerializer, type Document as XmlDocument, type Element } from '@xmldom/xmldom';
import { ConvertInputError } from '../errors.ts';
import { decodeUtf8 } from '../xml.ts';
import { readStyles, type TemplateStyle } from './styles.ts';
import { childElements, W_NS, wChild } from './wordml.ts';
import { unzipPackage } from './zip.ts';

export { TEMPLATE_LIMITS } from './zip.ts';

const REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_DOCUMENT_REL = /\/officeDocument$/;
const CONTENT_MARKER = 'DOCWRIGHT_CONTENT';
const PLACEHOLDER = '{{content}}';

/** A .docx template read once and reused for every conversion that names it. */
export interface Template {
  /** Every part of the package by its path, as bytes. */
  readonly parts: ReadonlyMap<string, Uint8Array>;
  /** Path of the main document part, normally `word/document.xml`. */
  readonly mainPart: string;
  /** The template's styles, in styles.xml order. */
  readonly styles: readonly TemplateStyle[];
  /** document.xml up to where the converted content goes. */
  readonly documentHead: string;
  /** document.xml from where the converted content ends (kept body, final sectPr, closing tags). */
  readonly documentTail: string;
  /** True when the body held a `{{content}}` paragraph and the rest of the body is kept. */
  readonly hasPlaceholder: boolean;
  /** Width of the text area of the section the content lands in, in twentieths of a point. */
  readonly textWidthTwips: number;
}

/** Reads a .docx (or .dotx) template. Throws ConvertInputError when it is not a usable WordprocessingML package. */
export function readTemplate(bytes: Uint8Array): Template {
  const parts = unzipPackage(bytes);
  refuseDtds(parts);
  const contentTypes = requirePart(parts, '[Content_Types].xml');
  if (/macroEnabled|vbaProject/i.test(contentTypes) || [...parts.keys()].some((p) => /vbaProject\.bin$/i.test(p))) {
    throw new ConvertInputError('template_invalid', 'The template is macro-enabled (.docm/.dotm); save it as a .docx without macros.');
  }
  const mainPart = findMainPart(parts);
  const documentXml = requirePart(parts, mainPart);
  const stylesXml = optionalPart(parts, siblingPath(mainPart, 'styles.xml'));
  const styles = stylesXml === null ? [] : readStyles(parseXml(stylesXml, 'styles.xml'));
  const doc = parseXml(documentXml, mainPart);
  const { head, tail, hasPlaceholder, textWidthTwips } = splitBody(doc, mainPart);
  return { parts, mainPart, styles, documentHead: head, documentTail: tail, hasPlaceholder, textWidthTwips };
}

/** Parses an XML part; DTDs are refused outright so no entity is ever declared, let alone resolved. */
export function parseXml(xml: string, name: string): XmlDocument {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    throw new ConvertInputError('template_invalid', `The template part ${name} declares a DTD or entities, which .docx files never do.`);
  }
  try {
    return new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml');
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConvertInputError('template_invalid', `The template part ${name} is not well-formed XML: ${detail}`);
  }
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

/** Any XML part (UTF-8 or UTF-16) that declares a DTD or entities is refused, whether or not Docwright reads it. */
function refuseDtds(parts: ReadonlyMap<string, Uint8Array>): void {
  for (const [name, bytes] of parts) {
    if (!looksLikeXml(bytes)) continue;
    // Latin-1 with NULs dropped reads the markup of UTF-8 and of both UTF-16s alike.
    if (/<!DOCTYPE|<!ENTITY/i.test(latin1.decode(bytes).replace(/\u0000/g, ''))) {
      throw new ConvertInputError('template_invalid', `The template part ${name} declares a DTD or entities, which .docx files never do.`);
    }
  }
}

const latin1 = new TextDecoder('latin1');
/** Bytes before the first markup of an XML part: NULs of UTF-16, byte order marks, whitespace. */
const PROLOG_NOISE = new Set([0x00, 0xef, 0xbb, 0xbf, 0xfe, 0xff, 0x09, 0x0a, 0x0d, 0x20]);

/** True when the first byte that is not a BOM, NUL or whitespace is "<" (binary parts such as images never are). */
function looksLikeXml(bytes: Uint8Array): boolean {
  for (let i = 0; i < Math.min(bytes.length, 64); i++) {
    const b = bytes[i] ?? 0;
    if (!PROLOG_NOISE.has(b)) return b === 0x3c;
  }
  return false;
}

function requirePart(parts: ReadonlyMap<string, Uint8Array>, name: string): string {
  const text = optionalPart(parts, name);
  if (text === null) throw new ConvertInputError('template_invalid', `The template is not a Word document: it has no ${name}.`);
  return text;
}

function optionalPart(parts: ReadonlyMap<string, Uint8Array>, name: string): string | null {
  const bytes = parts.get(name);
  return bytes === undefined ? null : decodeUtf8(bytes);
}

function findMainPart(parts: ReadonlyMap<string, Uint8Array>): string {
  const rels = optionalPart(parts, '_rels/.rels');
  if (rels !== null) {
    const doc = parseXml(rels, '_rels/.rels');
    const list = doc.getElementsByTagNameNS(REL_NS, 'Relationship');
    for (let i = 0; i < list.length; i++) {
      const rel = list.item(i);
      if (rel && OFFICE_DOCUMENT_REL.test(rel.getAttribute('Type') ?? '') && rel.getAttribute('TargetMode') !== 'External') {
        const target = (rel.getAttribute('Target') ?? '').replace(/^\//, '');
        if (parts.has(target)) return target;
      }
    }
  }
  if (parts.has('word/document.xml')) return 'word/document.xml';
  throw new ConvertInputError('template_invalid', 'The template is not a Word document: it has no main document part.');
}

/** The visible text of a paragraph (its w:t runs), for finding the placeholder. */
function paragraphText(p: Element): string {
  const ts = p.getElementsByTagNameNS(W_NS, 't');
  let text = '';
  for (let i = 0; i < ts.length; i++) text += ts.item(i)?.textContent ?? '';
  return text;
}

function splitBody(doc: XmlDocument, mainPart: string) {
  const root = doc.documentElement;
  const body = wChild(root ?? undefined, 'body');
  if (!root || !body) throw new ConvertInputError('template_invalid', `The template's ${mainPart} has no w:body.`);
  const children = childElements(body);
  const last = children[children.length - 1];
  const sectPr = last && last.namespaceURI === W_NS && last.localName === 'sectPr' ? last : undefined;
  const placeholder = children.find((c) => c.namespaceURI === W_NS && c.localName === 'p' && paragraphText(c).trim() === PLACEHOLDER);
  // The content takes the page of the section it lands in: the first section break from the placeholder on.
  const from = placeholder ? children.indexOf(placeholder) : children.length;
  const landing = children.slice(from).map((c) => wChild(wChild(c, 'pPr'), 'sectPr')).find((s) => s !== undefined) ?? sectPr;
  const marker = doc.createComment(CONTENT_MARKER);
  if (placeholder) {
    body.replaceChild(marker, placeholder);
  } else {
    // Everything goes (paragraphs, tables, text and comments between them) but the section properties.
    for (let n = body.firstChild; n; ) {
      const next = n.nextSibling;
      if (n !== sectPr) body.removeChild(n);
      n = next;
    }
    if (sectPr) body.insertBefore(marker, sectPr);
    else body.appendChild(marker);
  }
  const xml = new XMLSerializer().serializeToString(doc);
  const at = xml.indexOf(`<!--${CONTENT_MARKER}-->`);
  const head = xml.slice(0, at).replace(/^(?!<\?xml)/, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n');
  const tail = xml.slice(at + CONTENT_MARKER.length + 7);
  return { head, tail, hasPlaceholder: placeholder !== undefined, textWidthTwips: textWidth(landing) };
}

function twips(el: Element | undefined, attr: string, fallback: number): number {
  const value = el?.getAttributeNS(W_NS, attr);
  const n = value ? Number.parseInt(value, 10) : Number.NaN;
  return Number.isFinite(n) ? n : fallback;
}

/** Text width from w:pgSz and w:pgMar (A4/Letter-ish default when absent), at least 1 inch. */
function textWidth(sectPr: Element | undefined): number {
  const pgSz = wChild(sectPr, 'pgSz');
  const pgMar = wChild(sectPr, 'pgMar');
  const orientLandscape = pgSz?.getAttributeNS(W_NS, 'orient') === 'landscape';
  const width = twips(pgSz, 'w', orientLandscape ? 16838 : 11906);
  const left = twips(pgMar, 'left', 1440);
  const right = twips(pgMar, 'right', 1440);
  return Math.max(1440, width - left - right);
}
