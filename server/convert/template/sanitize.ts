// A template is untrusted input (uploaded, mailed, found on a share): before anything else reads it, this removes
// what it could carry into every output or into the UI's preview, and refuses what cannot be removed safely.
import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { ConvertInputError } from '../errors.ts';
import {
  allElements,
  decodeXmlPart,
  findPart,
  isExternal,
  isRelsPart,
  looksLikeXml,
  ownerOfRels,
  parseXml,
  relationships,
  relKind,
  R_NS,
  resolveTarget,
  serializeXmlPart,
} from './parts.ts';
import { W_NS } from './wordml.ts';

/** Generous caps on what a template may define: a real corporate template has hundreds of styles, not hundreds of thousands. */
export const TEMPLATE_CAPS = {
  /** w:style elements in one styles part. */
  maxStyles: 10_000,
  /** w:abstractNum plus w:num elements in one numbering part. */
  maxNumberingDefinitions: 10_000,
  /**
   * Bytes of one styles or numbering part, unpacked. Real ones stay under 1 MB (the corpus's largest numbering part
   * is 39 KB); both are read as a DOM of ~55 times their size, and 9,990 definitions of nine levels each (18 MB,
   * within the count) needed more than a worker's 1 GB on every conversion with a list.
   */
  maxDefinitionPartBytes: 4 * 1024 * 1024,
  /**
   * Elements nested in one another in any XML part. Real templates stay under 40 (a text box in a nested table);
   * walks over nested paragraphs cost the square of their depth (80,000 nested w:p in 12 KB of zip kept a worker
   * busy past the 30 s limit on every conversion).
   */
  maxDepth: 256,
};

/** A template's parts after sanitising, and a sentence for each thing removed or renamed. */
export interface SanitizedTemplate {
  readonly parts: Map<string, Uint8Array>;
  readonly warnings: string[];
}

const O_NS = 'urn:schemas-microsoft-com:office:office';
const A_NS = 'http://schemas.openxmlformats.org/drawingml/2006/main';
/** Relationship types whose targets are macros or macro-bound customisations. */
const MACRO_REL_TYPES = ['/vbaProject', '/wordVbaData', '/keyMapCustomizations', '/attachedToolbars'];
/** Elements whose external reference is an optional attribute: the attribute goes, the element (a picture) stays. */
const ATTRIBUTE_ONLY = new Set(['blip', 'imagedata', 'fill', 'stroke', 'textpath', 'hlinkClick', 'hlinkHover']);
/** Style references (w:val is a style id) in every WordprocessingML part. */
const STYLE_REFERENCES = new Set([
  'pStyle',
  'rStyle',
  'tblStyle',
  'basedOn',
  'next',
  'link',
  'numStyleLink',
  'styleLink',
]);
/** A style id that is safe wherever it goes (a CSS class name in the preview, an XML attribute). */
const PLAIN_ID = /^[\p{L}\p{N}_-]+$/u;
/** Characters of a font name that can end a CSS declaration or rule, open a comment or close a <style>. */
const CSS_BREAKING = /[;{}<>"'\\*\u0000-\u001f\u007f]/g;

/** Refuses macros and over-large definitions, drops external relationships and normalises style ids and font names. */
export function sanitizeTemplate(input: ReadonlyMap<string, Uint8Array>): SanitizedTemplate {
  const session = new Session(input);
  refuseMacros(input);
  checkCaps(input);
  dropExternalRelationships(session);
  dropFetchingFields(session);
  normaliseStyleIds(session);
  normaliseFontNames(session);
  return { parts: session.finish(), warnings: session.warnings };
}

/** The parts, the DOMs parsed so far and which of them changed. */
class Session {
  readonly parts: Map<string, Uint8Array>;
  readonly warnings: string[] = [];
  private readonly docs = new Map<string, XmlDocument>();
  private readonly dirty = new Set<string>();

  constructor(input: ReadonlyMap<string, Uint8Array>) {
    this.parts = new Map(input);
  }

  /** The part's DOM, or null when the part is absent or not XML. */
  doc(asked: string): XmlDocument | null {
    const name = findPart(this.parts.keys(), asked);
    const cached = this.docs.get(name);
    if (cached) return cached;
    const bytes = this.parts.get(name);
    if (!bytes || !looksLikeXml(bytes)) return null;
    const doc = parseXml(decodeXmlPart(bytes), name);
    this.docs.set(name, doc);
    return doc;
  }

  /** The XML parts, by name (binary parts such as images are left out). */
  xmlParts(): string[] {
    return [...this.parts.keys()].filter((name) => {
      const bytes = this.parts.get(name);
      return bytes !== undefined && looksLikeXml(bytes);
    });
  }

  changed(name: string): void {
    this.dirty.add(findPart(this.parts.keys(), name));
  }

  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  finish(): Map<string, Uint8Array> {
    for (const name of this.dirty) {
      const doc = this.docs.get(name);
      if (doc) this.parts.set(name, serializeXmlPart(doc));
    }
    return this.parts;
  }
}

/** Macros never pass: Docwright refuses them (see docs/security.md) rather than strip code a user may rely on. */
function refuseMacros(parts: ReadonlyMap<string, Uint8Array>): void {
  const refuse = (): never => {
    throw new ConvertInputError(
      'template_invalid',
      'The template is macro-enabled (.docm/.dotm); save it as a .docx without macros.',
    );
  };
  for (const name of parts.keys()) if (/vbaProject\.bin$|vbaData\.xml$/i.test(name)) refuse();
  const types = parts.get(findPart(parts.keys(), '[Content_Types].xml'));
  if (types) {
    const doc = parseXml(decodeXmlPart(types), '[Content_Types].xml');
    for (const el of allElements(doc))
      if (/macroEnabled|vbaProject|vbaData/i.test(el.getAttribute('ContentType') ?? '')) refuse();
  }
  for (const [name, bytes] of parts) {
    if (ownerOfRels(name) === null || !looksLikeXml(bytes)) continue;
    for (const rel of relationships(parseXml(decodeXmlPart(bytes), name))) {
      const type = rel.getAttribute('Type') ?? '';
      if (MACRO_REL_TYPES.some((t) => type.endsWith(t))) refuse();
    }
  }
}

/** Counts start tags by local name without building a DOM, so a 400,000-style part is refused before it costs memory. */
export function countStartTags(xml: string, names: ReadonlySet<string>): number {
  let count = 0;
  for (let at = xml.indexOf('<'); at >= 0; at = xml.indexOf('<', at + 1)) {
    const first = xml.charCodeAt(at + 1);
    if (first === 0x2f || first === 0x3f || first === 0x21) continue; // </ <? <!
    let end = at + 1;
    while (end < xml.length && !' \t\r\n/>'.includes(xml.charAt(end))) end++;
    const qualified = xml.slice(at + 1, end);
    if (names.has(qualified.slice(qualified.indexOf(':') + 1))) count++;
  }
  return count;
}

/**
 * How deeply elements nest in an XML text, without building a DOM (the deepest first: a part nested past the cap is
 * refused before a parse). Comments, CDATA, processing instructions and quoted attribute values are skipped.
 */
export function maxElementDepth(xml: string): number {
  let depth = 0;
  let max = 0;
  for (let at = xml.indexOf('<'); at >= 0; at = xml.indexOf('<', at + 1)) {
    const next = xml.charCodeAt(at + 1);
    if (next === 0x21 || next === 0x3f) {
      // Skipped to their end, looked for after their opening (`<!-->` opens a comment, it does not close one):
      // <!-- -->, <![CDATA[ ]]>, <? ?> (other <! declarations are refused elsewhere).
      const [open, close] = xml.startsWith('<!--', at)
        ? ['<!--', '-->']
        : xml.startsWith('<![CDATA[', at)
          ? ['<![CDATA[', ']]>']
          : next === 0x3f
            ? ['<?', '?>']
            : ['<!', '>'];
      const end = xml.indexOf(close, at + open.length);
      if (end < 0) break;
      at = end + close.length - 1;
      continue;
    }
    if (next === 0x2f) {
      // An end tag without its start (a lenient parser drops it) never lowers the count below nothing.
      depth = Math.max(0, depth - 1);
      continue;
    }
    let end = at + 1;
    for (let quote = 0; end < xml.length; end++) {
      const c = xml.charCodeAt(end);
      if (quote !== 0) {
        if (c === quote) quote = 0;
      } else if (c === 0x22 || c === 0x27) quote = c;
      else if (c === 0x3e) break;
    }
    // Empty when its last character but white space is "/" (`<w:p/>`, and `<w:p/ >`, which xmldom takes too).
    let last = end - 1;
    while (last > at && /\s/.test(xml.charAt(last))) last -= 1;
    if (xml.charCodeAt(last) !== 0x2f) {
      depth += 1;
      if (depth > max) max = depth;
    }
    at = end;
  }
  return max;
}

/** Relationship types (last segment) and content types (ending) that give a part the styles or numbering role. */
const STYLES_ROLE = {
  rels: new Set(['styles', 'stylesWithEffects']),
  contentType: /\.(styles|stylesWithEffects)\+xml$/i,
  file: new Set(['styles.xml', 'styleswitheffects.xml']),
};
const NUMBERING_ROLE = {
  rels: new Set(['numbering']),
  contentType: /\.numbering\+xml$/i,
  file: new Set(['numbering.xml']),
};

/** The stored names of the parts with a role: by file name, by any relationship's type, by a content type Override. */
function partsWithRole(parts: ReadonlyMap<string, Uint8Array>, role: typeof STYLES_ROLE): Set<string> {
  const names = [...parts.keys()];
  const out = new Set(names.filter((name) => role.file.has(name.slice(name.lastIndexOf('/') + 1).toLowerCase())));
  for (const [name, bytes] of parts) {
    const owner = ownerOfRels(name);
    if (owner === null || !looksLikeXml(bytes)) continue;
    for (const rel of relationships(parseXml(decodeXmlPart(bytes), name))) {
      if (
        (rel.getAttribute('TargetMode') ?? '').toLowerCase() === 'external' ||
        !role.rels.has(relKind(rel.getAttribute('Type') ?? ''))
      )
        continue;
      out.add(findPart(names, resolveTarget(owner, rel.getAttribute('Target') ?? '')));
    }
  }
  const types = parts.get(findPart(names, '[Content_Types].xml'));
  if (types && looksLikeXml(types)) {
    for (const el of allElements(parseXml(decodeXmlPart(types), '[Content_Types].xml'))) {
      if (el.localName === 'Override' && role.contentType.test(el.getAttribute('ContentType') ?? ''))
        out.add(findPart(names, (el.getAttribute('PartName') ?? '').replace(/^\//, '')));
    }
  }
  return out;
}

/** The caps apply by role (what the relationships and content types declare), so renaming styles.xml evades nothing. */
function checkCaps(parts: ReadonlyMap<string, Uint8Array>): void {
  const cap = (role: typeof STYLES_ROLE, tags: ReadonlySet<string>, limit: number, what: string) => {
    for (const name of partsWithRole(parts, role)) {
      const bytes = parts.get(name);
      if (!bytes || !looksLikeXml(bytes)) continue;
      const count = countStartTags(decodeXmlPart(bytes), tags);
      if (count > limit)
        throw new ConvertInputError(
          'template_invalid',
          `The template has ${count} ${what} in ${name}, more than the limit of ${limit}.`,
        );
      const limitBytes = TEMPLATE_CAPS.maxDefinitionPartBytes;
      if (bytes.byteLength > limitBytes)
        throw new ConvertInputError(
          'template_invalid',
          `The template's ${name} holds ${(bytes.byteLength / 2 ** 20).toFixed(1)} MB of ${what}, more than the limit of ${limitBytes / 2 ** 20} MB.`,
        );
    }
  };
  cap(STYLES_ROLE, new Set(['style']), TEMPLATE_CAPS.maxStyles, 'styles');
  cap(NUMBERING_ROLE, new Set(['abstractNum', 'num']), TEMPLATE_CAPS.maxNumberingDefinitions, 'numbering definitions');
  for (const [name, bytes] of parts) {
    if (!looksLikeXml(bytes)) continue;
    const depth = maxElementDepth(decodeXmlPart(bytes));
    if (depth > TEMPLATE_CAPS.maxDepth)
      throw new ConvertInputError(
        'template_invalid',
        `The template's ${name} nests elements ${depth} deep, more than the limit of ${TEMPLATE_CAPS.maxDepth}.`,
      );
  }
}

/** Removes every external relationship but hyperlinks, and whatever in its source part refers to it. */
function dropExternalRelationships(session: Session): void {
  for (const relsName of [...session.parts.keys()]) {
    const owner = ownerOfRels(relsName);
    if (owner === null) continue;
    const rels = session.doc(relsName);
    if (!rels) continue;
    const removed = new Set<string>();
    const links = new Set<string>();
    for (const rel of relationships(rels)) {
      const type = rel.getAttribute('Type') ?? '';
      if (!isExternal(rel)) continue;
      if (relKind(type) === 'hyperlink') {
        links.add(rel.getAttribute('Id') ?? '');
        continue;
      }
      const id = rel.getAttribute('Id') ?? '';
      const target = (rel.getAttribute('Target') ?? '').slice(0, 200);
      rel.parentNode?.removeChild(rel);
      session.changed(relsName);
      removed.add(id);
      session.warn(`template_external_removed: ${relKind(type)} → ${target} (${owner || 'package'})`);
    }
    if (removed.size > 0 && owner !== '') dropReferences(session, owner, removed);
    if (links.size > 0 && owner !== '') dropMisusedLinks(session, owner, links);
  }
}

/** Elements that may follow a hyperlink relationship: anything else using one (a disguised attachedTemplate) goes. */
const LINK_ELEMENTS = new Set(['hyperlink', 'hlinkClick', 'hlinkHover', 'hlinkMouseOver']);

function dropMisusedLinks(session: Session, part: string, ids: ReadonlySet<string>): void {
  const doc = session.doc(part);
  if (!doc) return;
  for (const el of allElements(doc)) {
    if (!el.parentNode || LINK_ELEMENTS.has(el.localName ?? '')) continue;
    const refs = referencingAttributes(el, ids);
    if (refs.length === 0) continue;
    session.changed(part);
    session.warn(`template_external_removed: ${el.localName ?? 'element'} using a hyperlink relationship (${part})`);
    if (ATTRIBUTE_ONLY.has(el.localName ?? '')) {
      for (const attr of refs) el.removeAttributeNode(attr);
    } else {
      const gone = container(el);
      gone.parentNode?.removeChild(gone);
    }
  }
}

/** Removes the elements of `part` that refer to a removed relationship, so no dangling r:id remains. */
function dropReferences(session: Session, part: string, ids: ReadonlySet<string>): void {
  const doc = session.doc(part);
  if (!doc) return;
  for (const el of allElements(doc)) {
    if (!el.parentNode) continue; // inside something removed already
    const refs = referencingAttributes(el, ids);
    if (refs.length === 0) continue;
    session.changed(part);
    if (ATTRIBUTE_ONLY.has(el.localName ?? '')) {
      for (const attr of refs) el.removeAttributeNode(attr);
    } else {
      const gone = container(el);
      gone.parentNode?.removeChild(gone);
    }
  }
}

function referencingAttributes(el: Element, ids: ReadonlySet<string>) {
  const out = [];
  for (let i = 0; i < el.attributes.length; i++) {
    const attr = el.attributes.item(i);
    if (!attr || !ids.has(attr.value)) continue;
    if (attr.namespaceURI === R_NS || (attr.namespaceURI === O_NS && attr.localName === 'relid')) out.push(attr);
  }
  return out;
}

/** The element to remove with a reference: the whole w:object of an OLE object, the w:frame of a frame's source. */
function container(el: Element): Element {
  const wanted =
    el.namespaceURI === O_NS && el.localName === 'OLEObject'
      ? 'object'
      : el.namespaceURI === W_NS && el.localName === 'sourceFileName'
        ? 'frame'
        : null;
  if (wanted === null) return el;
  for (let n = el.parentNode; n && n.nodeType === 1; n = n.parentNode) {
    const parent = n as Element;
    if (parent.namespaceURI === W_NS && parent.localName === wanted) return parent;
  }
  return el;
}

/** Field codes that make Word fetch or link outside content when a document opens or its fields update. */
const FETCHING_FIELDS = new Set(['INCLUDEPICTURE', 'INCLUDETEXT', 'LINK', 'DDE', 'DDEAUTO', 'IMPORT']);

/** The field's keyword: the first word of its instruction, upper-cased. */
function fieldKeyword(instruction: string): string {
  return instruction.trim().split(/\s+/)[0]?.toUpperCase() ?? '';
}

/**
 * Fields that fetch outside content (INCLUDEPICTURE, INCLUDETEXT, LINK, DDE…) are no relationships but reach out
 * all the same: each becomes its last shown result (simple fields are unwrapped; a complex field loses its begin,
 * instruction, separator and end markers, its result runs stay).
 */
function dropFetchingFields(session: Session): void {
  for (const name of session.xmlParts()) {
    if (!name.toLowerCase().startsWith('word/') || isRelsPart(name)) continue;
    const doc = session.doc(name);
    if (
      !doc ||
      doc.getElementsByTagNameNS(W_NS, 'fldSimple').length + doc.getElementsByTagNameNS(W_NS, 'instrText').length === 0
    )
      continue;
    const open: Array<{ markers: Element[]; instruction: string }> = [];
    const doomed: Element[] = [];
    for (const el of allElements(doc)) {
      if (el.namespaceURI !== W_NS) continue;
      if (el.localName === 'fldSimple') {
        const keyword = fieldKeyword(el.getAttributeNS(W_NS, 'instr') ?? '');
        if (FETCHING_FIELDS.has(keyword)) {
          doomed.push(el);
          session.warn(`template_field_removed: ${keyword} (${name})`);
        }
      } else if (el.localName === 'fldChar') {
        const type = el.getAttributeNS(W_NS, 'fldCharType');
        if (type === 'begin') open.push({ markers: [el], instruction: '' });
        const field = open[open.length - 1];
        if (!field) continue;
        if (type === 'separate') field.markers.push(el);
        if (type === 'end') {
          field.markers.push(el);
          open.pop();
          const keyword = fieldKeyword(field.instruction);
          if (FETCHING_FIELDS.has(keyword)) {
            doomed.push(...field.markers);
            session.warn(`template_field_removed: ${keyword} (${name})`);
          }
        }
      } else if (el.localName === 'instrText') {
        const field = open[open.length - 1];
        if (!field) continue;
        field.instruction += el.textContent ?? '';
        field.markers.push(el);
      }
    }
    for (const el of doomed) {
      const parent = el.parentNode;
      if (!parent) continue;
      // A simple field gives way to its result runs; a complex field's markers simply go.
      if (el.localName === 'fldSimple') {
        for (let n = el.firstChild; n; n = el.firstChild) {
          const data =
            n.nodeType === 1 && (n as Element).namespaceURI === W_NS && (n as Element).localName === 'fldData';
          if (data) el.removeChild(n);
          else parent.insertBefore(n, el);
        }
      }
      parent.removeChild(el);
      session.changed(name);
    }
  }
}

/** Style ids reach the preview as CSS class names: ids that are not plain identifiers are renamed in every part. */
function normaliseStyleIds(session: Session): void {
  for (const stylesName of session.xmlParts().filter((n) => n.toLowerCase().endsWith('/styles.xml'))) {
    const folder = stylesName.slice(0, stylesName.lastIndexOf('/') + 1);
    const styles = session.doc(stylesName);
    if (!styles) continue;
    const ids = new Set<string>();
    const list = styles.getElementsByTagNameNS(W_NS, 'style');
    for (let i = 0; i < list.length; i++) ids.add(list.item(i)?.getAttributeNS(W_NS, 'styleId') ?? '');
    const renames = new Map<string, string>();
    // Every id in use, and per base the next suffix worth trying (those below it are taken, and stay taken): each
    // rename costs a few probes, however many ids clean to the same base (2,000 of them used to take seconds).
    const taken = new Set(ids);
    const nextSuffix = new Map<string, number>();
    const rename = (id: string): string => {
      const known = renames.get(id);
      if (known !== undefined) return known;
      const base = id.replace(/[^\p{L}\p{N}_-]/gu, '_').slice(0, 100) || 'Style';
      let fresh = base;
      if (taken.has(fresh)) {
        let n = nextSuffix.get(base) ?? 2;
        while (taken.has(`${base}_${n}`)) n += 1;
        fresh = `${base}_${n}`;
        nextSuffix.set(base, n + 1);
      }
      taken.add(fresh);
      renames.set(id, fresh);
      session.warn(`template_style_renamed: style id ${JSON.stringify(id.slice(0, 100))} → ${JSON.stringify(fresh)}`);
      return fresh;
    };
    // The folder's parts only: word/glossary/ has styles of its own.
    const scope = session
      .xmlParts()
      .filter((n) => n.toLowerCase().startsWith(folder.toLowerCase()) && !n.slice(folder.length).includes('/'));
    for (const name of scope) {
      const doc = session.doc(name);
      if (!doc) continue;
      for (const el of allElements(doc)) {
        if (el.namespaceURI !== W_NS) continue;
        const attr = el.localName === 'style' ? 'styleId' : STYLE_REFERENCES.has(el.localName ?? '') ? 'val' : null;
        if (attr === null || !el.hasAttributeNS(W_NS, attr)) continue;
        const id = el.getAttributeNS(W_NS, attr) ?? '';
        if (PLAIN_ID.test(id)) continue;
        el.setAttributeNS(W_NS, el.getAttributeNodeNS(W_NS, attr)?.name ?? `w:${attr}`, rename(id));
        session.changed(name);
      }
    }
  }
}

/** Font names reach the preview's CSS as written: characters that can break out of a declaration are removed. */
function normaliseFontNames(session: Session): void {
  const fontAttributes: Array<[string, string, string]> = [
    [W_NS, 'rFonts', 'ascii'],
    [W_NS, 'rFonts', 'hAnsi'],
    [W_NS, 'rFonts', 'eastAsia'],
    [W_NS, 'rFonts', 'cs'],
    [W_NS, 'font', 'name'],
    [W_NS, 'altName', 'val'],
    [W_NS, 'sym', 'font'],
    [A_NS, 'latin', 'typeface'],
    [A_NS, 'ea', 'typeface'],
    [A_NS, 'cs', 'typeface'],
    [A_NS, 'font', 'typeface'],
    [A_NS, 'sym', 'typeface'],
  ];
  for (const name of session.xmlParts()) {
    if (isRelsPart(name) || name.toLowerCase() === '[content_types].xml') continue;
    const doc = session.doc(name);
    if (!doc) continue;
    for (const el of allElements(doc)) {
      for (const [ns, local, attr] of fontAttributes) {
        if (el.namespaceURI !== ns || el.localName !== local) continue;
        // DrawingML attributes are unqualified; WordprocessingML ones are in the w: namespace.
        const node = ns === W_NS ? el.getAttributeNodeNS(W_NS, attr) : el.getAttributeNode(attr);
        if (!node) continue;
        const clean = node.value.replace(CSS_BREAKING, '').trim() || 'Font';
        if (node.value === '' || clean === node.value) continue; // an empty typeface (theme slots) is normal
        session.warn(
          `template_font_renamed: font ${JSON.stringify(node.value.slice(0, 100))} → ${JSON.stringify(clean.slice(0, 100))}`,
        );
        if (ns === W_NS) el.setAttributeNS(W_NS, node.name, clean);
        else el.setAttribute(attr, clean);
        session.changed(name);
      }
    }
  }
}
