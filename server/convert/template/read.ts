import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { ConvertInputError } from '../errors.ts';
import { decodeUtf8 } from '../xml.ts';
import { rememberXmlRegexps } from '../xml-regexps.ts';
import { zipSync } from 'fflate';
import {
  allElements,
  decodeXmlPart,
  findPart,
  looksLikeXml,
  PACKAGE_REL_NS,
  parseXml,
  resolveTarget,
  siblingPath,
} from './parts.ts';
import { renameRoleParts } from './role-parts.ts';
import { sanitizeTemplate } from './sanitize.ts';
import { readStyles, type TemplateStyle } from './styles.ts';
import { childElements, W_NS, wChild } from './wordml.ts';
import { unzipPackage } from './zip.ts';

export { TEMPLATE_LIMITS } from './zip.ts';
export { TEMPLATE_CAPS } from './sanitize.ts';
export { parseXml, relsPath, siblingPath } from './parts.ts';

const OFFICE_DOCUMENT_REL = /\/officeDocument$/;
/** Content types of a WordprocessingML main part: a document or a template (.docx / .dotx). */
const MAIN_CONTENT_TYPES = new Set([
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml',
]);
const PLACEHOLDER = '{{content}}';

/** A .docx template read once and reused for every conversion that names it. */
export interface Template {
  /** Every part of the package by its path, as bytes (sanitised: see sanitize.ts). */
  readonly parts: ReadonlyMap<string, Uint8Array>;
  /** Path of the main document part, normally `word/document.xml`. */
  readonly mainPart: string;
  /** The template's styles, in styles.xml order. */
  readonly styles: readonly TemplateStyle[];
  /**
   * Width of the text the content lands in, in twentieths of a point: its section's text area, or in a section set in
   * columns its narrowest column (tables and pictures are sized to it).
   */
  readonly textWidthTwips: number;
  /** The text width of the template's last section turned landscape (a `::: {.landscape}` div's section). */
  readonly landscapeTextWidthTwips: number;
  /** What sanitising removed or renamed (external relationships, style ids, font names); empty for a clean template. */
  readonly warnings: readonly string[];
}

/**
 * Reads a .docx (or .dotx) template, sanitised (sanitize.ts). Throws ConvertInputError when it is not a usable
 * WordprocessingML package: not a zip, a broken package root, DTDs, macros, more styles than the caps allow.
 */
export function readTemplate(bytes: Uint8Array): Template {
  rememberXmlRegexps();
  const raw = unzipPackage(bytes);
  refuseDtds(raw);
  const mainPart = checkPackageRoot(raw);
  // Renamed first, so the caps and the sanitiser see each role's part under the name the packaging reads.
  const renamed = renameRoleParts(raw, mainPart);
  const { parts, warnings } = sanitizeTemplate(raw);
  warnings.unshift(...renamed);
  const documentXml = requirePart(parts, mainPart);
  const stylesXml = optionalPart(parts, siblingPath(mainPart, 'styles.xml'));
  const numberingXml = optionalPart(parts, siblingPath(mainPart, 'numbering.xml'));
  const styles =
    stylesXml === null
      ? []
      : readStyles(
          parseXml(stylesXml, 'styles.xml'),
          numberingXml === null ? undefined : numberingForStyles(numberingXml),
        );
  const doc = parseXml(documentXml, mainPart);
  const landing = landingSection(doc, mainPart);
  const textWidthTwips = textWidth(landing);
  const landscapeTextWidthTwips = landscapeTextWidth(landing);
  return { parts, mainPart, styles, textWidthTwips, landscapeTextWidthTwips, warnings };
}

/** numbering.xml for telling numbered styles apart; one that does not parse only leaves them untold (the packaging says why). */
function numberingForStyles(xml: string): XmlDocument | undefined {
  try {
    return parseXml(xml, 'numbering.xml');
  } catch {
    return undefined;
  }
}

/** The bytes to store for an uploaded template: the upload itself when sanitising changed nothing, else the clean parts. */
export function sanitizedBytes(original: Uint8Array, template: Template): Uint8Array {
  if (template.warnings.length === 0) return original;
  const files: Record<string, Uint8Array> = {};
  // [Content_Types].xml first, as Word writes it.
  for (const name of [
    '[Content_Types].xml',
    ...[...template.parts.keys()].filter((p) => p !== '[Content_Types].xml'),
  ]) {
    const bytes = template.parts.get(name);
    if (bytes) files[name] = bytes;
  }
  return zipSync(files, { level: 6, mtime: new Date('2000-01-01T00:00:00Z') });
}

/** Any XML part (UTF-8 or UTF-16) that declares a DTD or entities is refused, whether or not Docwright reads it. */
function refuseDtds(parts: ReadonlyMap<string, Uint8Array>): void {
  for (const [name, bytes] of parts) {
    if (!looksLikeXml(bytes)) continue;
    // Latin-1 with NULs dropped reads the markup of UTF-8 and of both UTF-16s alike.
    if (/<!DOCTYPE|<!ENTITY/i.test(latin1.decode(bytes).replace(/\u0000/g, ''))) {
      throw new ConvertInputError(
        'template_invalid',
        `The template part ${name} declares a DTD or entities, which .docx files never do.`,
      );
    }
  }
}

const latin1 = new TextDecoder('latin1');

function broken(detail: string): never {
  throw new ConvertInputError('template_invalid', `The template is not a usable Word document: ${detail}.`);
}

/**
 * The package root Word itself requires: [Content_Types].xml, _rels/.rels with an internal officeDocument
 * relationship to a part that exists, and that part typed as a WordprocessingML document or template.
 * Returns the main part's name.
 */
function checkPackageRoot(parts: ReadonlyMap<string, Uint8Array>): string {
  const typesBytes = parts.get(findPart(parts.keys(), '[Content_Types].xml'));
  if (!typesBytes || !looksLikeXml(typesBytes)) broken('it has no [Content_Types].xml');
  const relsBytes = parts.get(findPart(parts.keys(), '_rels/.rels'));
  if (!relsBytes || !looksLikeXml(relsBytes))
    broken('it has no _rels/.rels (the package relationships that name its main document)');
  const rels = allElements(parseXml(decodeXmlPart(relsBytes), '_rels/.rels')).filter(
    (el) =>
      el.namespaceURI === PACKAGE_REL_NS &&
      el.localName === 'Relationship' &&
      OFFICE_DOCUMENT_REL.test(el.getAttribute('Type') ?? ''),
  );
  if (rels.length !== 1) broken(`_rels/.rels names ${rels.length} main documents instead of one`);
  const rel = rels[0];
  if (!rel || (rel.getAttribute('TargetMode') ?? '').toLowerCase() === 'external')
    broken('its main document is outside the package');
  // Part names ignore case (OPC): the main part is named as stored.
  const mainPart = findPart(parts.keys(), resolveTarget('', rel.getAttribute('Target') ?? ''));
  const mainBytes = parts.get(mainPart);
  if (!mainBytes)
    broken(
      `it has no main document part (_rels/.rels names ${JSON.stringify(mainPart.slice(0, 100))}, which is missing)`,
    );
  const type = contentTypeOf(parseXml(decodeXmlPart(typesBytes), '[Content_Types].xml'), mainPart);
  if (!MAIN_CONTENT_TYPES.has(type)) {
    if (/macroEnabled/i.test(type))
      throw new ConvertInputError(
        'template_invalid',
        'The template is macro-enabled (.docm/.dotm); save it as a .docx without macros.',
      );
    broken(
      `[Content_Types].xml gives its main document ${mainPart} the type ${JSON.stringify(type.slice(0, 120) || 'none')}, not a Word document's`,
    );
  }
  return mainPart;
}

/** A part's content type: its Override, else the Default for its extension (extensions compare case-insensitively). */
function contentTypeOf(types: XmlDocument, part: string): string {
  const elements = allElements(types);
  const override = elements.find(
    (el) =>
      el.localName === 'Override' && (el.getAttribute('PartName') ?? '').toLowerCase() === `/${part}`.toLowerCase(),
  );
  if (override) return override.getAttribute('ContentType') ?? '';
  const extension = part.slice(part.lastIndexOf('.') + 1).toLowerCase();
  const fallback = elements.find(
    (el) => el.localName === 'Default' && (el.getAttribute('Extension') ?? '').toLowerCase() === extension,
  );
  return fallback?.getAttribute('ContentType') ?? '';
}

function requirePart(parts: ReadonlyMap<string, Uint8Array>, name: string): string {
  const text = optionalPart(parts, name);
  if (text === null)
    throw new ConvertInputError('template_invalid', `The template is not a Word document: it has no ${name}.`);
  return text;
}

function optionalPart(parts: ReadonlyMap<string, Uint8Array>, name: string): string | null {
  const bytes = parts.get(findPart(parts.keys(), name));
  return bytes === undefined ? null : decodeUtf8(bytes);
}

/** The visible text of a paragraph (its w:t runs), for finding the placeholder. */
function paragraphText(p: Element): string {
  const ts = p.getElementsByTagNameNS(W_NS, 't');
  let text = '';
  for (let i = 0; i < ts.length; i++) text += ts.item(i)?.textContent ?? '';
  return text;
}

/** The properties of the section the content lands in (the first section break from `{{content}}` on, else the last). */
function landingSection(doc: XmlDocument, mainPart: string): Element | undefined {
  const body = wChild(doc.documentElement ?? undefined, 'body');
  if (!body) throw new ConvertInputError('template_invalid', `The template's ${mainPart} has no w:body.`);
  const children = childElements(body);
  const last = children[children.length - 1];
  const sectPr = last && last.namespaceURI === W_NS && last.localName === 'sectPr' ? last : undefined;
  const placeholder = children.find(
    (c) => c.namespaceURI === W_NS && c.localName === 'p' && paragraphText(c).trim() === PLACEHOLDER,
  );
  const from = placeholder ? children.indexOf(placeholder) : children.length;
  return (
    children
      .slice(from)
      .map((c) => wChild(wChild(c, 'pPr'), 'sectPr'))
      .find((s) => s !== undefined) ?? sectPr
  );
}

/**
 * The text width of the landing section turned landscape (package/sections.ts landscapeBreaks): a portrait page's
 * height less its top and bottom margins, which become the left and right ones; a column's in columns.
 */
function landscapeTextWidth(sectPr: Element | undefined): number {
  const pgSz = wChild(sectPr, 'pgSz');
  const pgMar = wChild(sectPr, 'pgMar');
  const width = twips(pgSz, 'w', 11906);
  const height = twips(pgSz, 'h', 16838);
  if (height <= width) return textWidth(sectPr);
  const across = twips(pgMar, 'top', 1440) + twips(pgMar, 'bottom', 1440);
  return Math.max(1440, columnWidth(wChild(sectPr, 'cols'), height - across));
}

function twips(el: Element | undefined, attr: string, fallback: number): number {
  const value = el?.getAttributeNS(W_NS, attr);
  const n = value ? Number.parseInt(value, 10) : Number.NaN;
  return Number.isFinite(n) ? n : fallback;
}

/** Text width from w:pgSz and w:pgMar (A4/Letter-ish default when absent), at least 1 inch; a column's in columns. */
function textWidth(sectPr: Element | undefined): number {
  const pgSz = wChild(sectPr, 'pgSz');
  const pgMar = wChild(sectPr, 'pgMar');
  const orientLandscape = pgSz?.getAttributeNS(W_NS, 'orient') === 'landscape';
  const width = twips(pgSz, 'w', orientLandscape ? 16838 : 11906);
  const left = twips(pgMar, 'left', 1440);
  const right = twips(pgMar, 'right', 1440);
  return Math.max(1440, columnWidth(wChild(sectPr, 'cols'), width - left - right));
}

/**
 * The narrowest column of a text area set in columns (w:cols): the widths its w:col give when it has them and they
 * are not equal (w:equalWidth="0"), else w:num equal columns w:space apart (720 by default, as Word reads it).
 */
function columnWidth(cols: Element | undefined, width: number): number {
  if (!cols) return width;
  const explicit = childElements(cols)
    .filter((c) => c.namespaceURI === W_NS && c.localName === 'col')
    .map((c) => twips(c, 'w', 0))
    .filter((w) => w > 0);
  const equal = !['0', 'false', 'off'].includes(cols.getAttributeNS(W_NS, 'equalWidth') ?? '');
  if (!equal && explicit.length > 0) return Math.min(width, ...explicit);
  const count = twips(cols, 'num', 1);
  if (count <= 1) return width;
  return Math.floor((width - (count - 1) * twips(cols, 'space', 720)) / count);
}
