// The generated body written straight from docx's objects: each top-level element of the body is laid out by docx
// (its `prepForXml`), written as text and let go, so neither docx's whole-document XML (one string of 5 M characters
// at 1.2 MB of markdown) nor a DOM of it ever exists. The text is what the DOM merge writes for the same element
// (docx's XML → xmldom → package/serialize.ts), byte for byte: docx's writer (its `stringifyXmlable`, quirks
// included), xmldom's reading (entities, line ends, attribute white space) and our serializer's escaping in one
// step. What the package step decides only once the whole body is written (relationship ids, drawing and note ids,
// list ids, docx's `{…}` placeholders, nested namespace declarations) is left as a hole (body-text.ts's Holes).
// Anything this writer does not know makes it give up: before it let go of any docx object, quietly (undefined: the
// DOM merge writes the body); after, with StreamGaveUp (convert() lays the document out again without it). The parts
// the package step then reads of docx's output are built as DOMs straight from docx's objects too (streamedParts).
import { DOMImplementation, type Document as XmlDocument, type Node as XmlNode } from '@xmldom/xmldom';
import type { Document } from 'docx';
import { unescapeBraces } from '../braces.ts';
import { Holes } from './body-text.ts';
import { NS } from './namespaces.ts';
import { attributeText } from './serialize.ts';
import type { ConcreteNumbering, DocxCompiler, MediaData } from './zip.ts';

const XML_PREFIX = 'xml';
const IMAGE_REL = `${NS.r}/image`;

/** Thrown when the body holds something this writer leaves to the DOM merge. */
export class Unsupported extends Error {}

/**
 * The writer gave up on an element after letting go of the docx objects of those before it (StreamOptions.release):
 * the document must be laid out again and merged as a DOM (convert() does so).
 */
export class StreamGaveUp extends Error {
  constructor() {
    super('the body could not be written as text; it is laid out again and merged as a DOM');
  }
}

// docx drops these control characters from every string value (its escapeAll).
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F]/g;
// xmldom's line-end normalisation (XML 1.1's: CR LF, CR NEL, CR, NEL, LS, PS → LF).
const LINE_END = /\r[\n\u0085]?|[\u0085\u2028\u2029]/g;
const ATTR_SPACE = /[\t\n\r]/g;

const ENTITIES: Record<string, string> = { '&amp;': '&', '&quot;': '"', '&apos;': "'", '&lt;': '<', '&gt;': '>' };
const DOCX_ESCAPES: Record<string, string> = { '&': '&amp;', '"': '&quot;', "'": '&apos;', '<': '&lt;', '>': '&gt;' };
const TEXT_ESCAPES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;' };
const ATTR_ESCAPES: Record<string, string> = { ...TEXT_ESCAPES, '"': '&quot;' };

// Anything a value may hold that docx or xmldom change: most values hold none and are taken as they are.
const SPECIAL = /[\x00-\x1F\u0085\u2028\u2029]/;

/** A string value as xmldom reads it from docx's text: docx's dropped control characters gone, line ends LF. */
function stringValue(value: string): string {
  if (!SPECIAL.test(value)) return value;
  return value.replace(CONTROL, '').replace(LINE_END, '\n');
}

/** A value docx writes with String() and no escaping (a number); Unsupported when xmldom would read it otherwise. */
function plainValue(value: unknown): string {
  const text = String(value);
  if (/[&<"]/.test(text)) throw new Unsupported();
  return text.replace(LINE_END, '\n');
}

export const textOf = (value: unknown): string =>
  typeof value === 'string' ? stringValue(value) : value === undefined ? '' : plainValue(value);
export function attributeValue(value: unknown): string {
  if (typeof value === 'string' && !SPECIAL.test(value)) return value;
  return textOf(value).replace(ATTR_SPACE, ' ');
}
export const encodeText = (text: string): string =>
  /[<&>]/.test(text) ? text.replace(/[<&>]/g, (c) => TEXT_ESCAPES[c] ?? c) : text;
const encodeAttribute = (text: string): string =>
  /[<>&"]/.test(text) ? text.replace(/[<>&"]/g, (c) => ATTR_ESCAPES[c] ?? c) : text;

/** What a late value is: a relationship id, a drawing id, … (see BodyStream's fields). */
type Kind = 'text' | 'attribute' | 'link' | 'embed' | 'drawing' | 'bookmark' | 'footnote' | 'numId' | 'ilvl';

/** A value written later: its value as xmldom would read it now, changed by the package step before it is set. */
export interface LateValue {
  value: string;
  readonly kind: Kind;
  readonly set: (text: string) => void;
}

/** A list paragraph's numbering reference (w:numPr), with its paragraph's style. */
export interface StreamSite {
  numId?: LateValue;
  ilvl?: LateValue;
  /** Its paragraph's first w:pPr, whose first w:pStyle is the paragraph's style. */
  readonly paragraph: Frame | undefined;
}

/** An element being written. */
interface Frame {
  readonly uri: string | undefined;
  readonly local: string;
  readonly parent: Frame | undefined;
  /** For a paragraph: its first w:pPr. For a w:pPr: its first w:pStyle's value (before support styles are renamed). */
  firstPPr?: Frame;
  pStyle?: string;
  /** For a w:numPr: its reference. */
  site?: StreamSite;
}

/** The body written as text, with what the package step still has to decide. */
export interface BodyStream {
  /** The namespaces (prefix → URI) docx's document root declares. */
  readonly declared: ReadonlyMap<string, string>;
  /** The body's text, with hole tokens. */
  readonly chunks: string[];
  readonly holes: Holes;
  /** The namespaces the body uses (prefix → URI), first use first. */
  readonly namespaces: Map<string, string>;
  /** Declarations on elements in the body: written only when the final root does not declare the same. */
  readonly innerDeclarations: { prefix: string; uri: string; text: string; set: (text: string) => void }[];
  /** Values with docx `{…}` placeholders, relationship ids, …, in document order. */
  readonly late: LateValue[];
  readonly sites: StreamSite[];
  /** Support style ids (styles.ts) the body refers to. */
  readonly supportStyles: Set<string>;
  /** docx's image placeholders: key → the relationship id docx would have given the image. */
  readonly imageIds: Map<string, string>;
}

/** How support style ids are renamed (package/styles.ts's supportStyleId over the template's styles). */
export interface StreamOptions {
  supportStyle: (id: string) => string | undefined;
  supportStyleIds: readonly string[];
  /**
   * Let go of each top-level docx object once it is written (a long document's are tens of MB): the writer can then
   * no longer give up quietly, and throws StreamGaveUp instead.
   */
  release?: boolean;
}

/** docx's objects the writer reaches into (pinned by test/convert/package/body-stream.test.ts). */
interface DocxView {
  root: unknown[];
  Body: { root: unknown[]; sections: unknown[]; sectionParagraphs: Map<unknown, unknown>; pageNumbers?: unknown };
}
interface Preppable {
  prepForXml(context: unknown): unknown;
  writtenAs?: Preppable[];
}
interface DocxFile {
  Document: { View: DocxView; Relationships: DocxRelationships };
  Media: { Entries: [string, { fileName: string; data: Uint8Array }][] };
  Numbering: { ConcreteNumbering: ConcreteNumbering[] };
}
interface DocxRelationships {
  RelationshipCount: number;
  addRelationship(id: number, type: string, target: string): void;
}

const isPreppable = (value: unknown): value is Preppable =>
  typeof value === 'object' && value !== null && typeof (value as Preppable).prepForXml === 'function';

/** The namespaces docx's document root declares, or undefined when docx's document is not laid out as expected. */
export function docxDeclarations(file: Document): Map<string, string> | undefined {
  const view = (file as unknown as DocxFile).Document.View;
  const attributes = view.root[0];
  if (!isPreppable(attributes)) return undefined;
  const prepared = attributes.prepForXml({ stack: [] }) as { _attr?: Record<string, unknown> } | undefined;
  if (!prepared?._attr) return undefined;
  const declared = new Map<string, string>();
  for (const [key, value] of Object.entries(prepared._attr))
    if (key.startsWith('xmlns:') && typeof value === 'string') declared.set(key.slice(6), value);
  return declared;
}

/**
 * Writes the body of docx's document as text, one top-level element at a time, and leaves docx's document with an
 * empty body (and docx's relationships with the images the body refers to, as its compile would have added them), so
 * the compile that follows writes the other parts as usual. Undefined (nothing changed) when the body holds something
 * this writer does not know: the caller merges docx's whole document then.
 */
export function streamBody(file: Document, compiler: DocxCompiler, options: StreamOptions): BodyStream | undefined {
  const docx = file as unknown as DocxFile;
  const view = docx.Document.View;
  const body = view.Body;
  const declared = docxDeclarations(file);
  // One section, not yet written (docx moves it to the end of the body when it writes the body), no page numbers.
  if (!declared || body.sections.length !== 1 || body.sectionParagraphs.size > 0 || body.pageNumbers) return undefined;
  if (view.root[view.root.length - 1] !== body) return undefined;
  const writer = new Writer(declared, options);
  const context = { viewWrapper: docx.Document, file, stack: [view, body] };
  const parts: string[] = [];
  let size = 0;
  let released = false;
  try {
    // root[0] is the placeholder docx drops when it writes the body.
    for (let i = 1; i < body.root.length; i++) {
      const child = body.root[i];
      const prepared = isPreppable(child)
        ? child.writtenAs
          ? child.writtenAs.map((part) => part.prepForXml(context))
          : [child.prepForXml(context)]
        : [child];
      for (const item of prepared) {
        if (item === undefined) continue;
        if (typeof item !== 'object' || item === null || firstKey(item) === '_attr') throw new Unsupported();
        size += writer.element(item, undefined, parts);
      }
      if (options.release) {
        body.root[i] = undefined;
        released = true;
      }
      if (size > 64 * 1024) {
        writer.chunks.push(parts.join(''));
        parts.length = 0;
        size = 0;
      }
    }
  } catch (error) {
    if (error instanceof Unsupported) {
      if (released) throw new StreamGaveUp();
      return undefined;
    }
    throw error;
  }
  writer.chunks.push(parts.join(''));
  // The body's content is written: docx keeps only its placeholder (its compile drops it and adds the section).
  body.root.length = 1;
  // The images the body refers to, numbered as docx's compile numbers them (it finds them in the body's XML).
  const relationships = docx.Document.Relationships;
  const first = relationships.RelationshipCount + 1;
  const images = docx.Media.Entries.filter(([key]) => writer.placeholderKeys.has(key));
  const imageIds = new Map<string, string>();
  images.forEach(([key, { fileName }], i) => {
    relationships.addRelationship(first + i, IMAGE_REL, `media/${fileName}`);
    imageIds.set(key, String(first + i));
  });
  writer.resolvePlaceholders(
    compiler,
    images.map(([key, { fileName }]) => ({ key, fileName })),
    first,
    docx,
  );
  return {
    declared,
    chunks: writer.chunks,
    holes: writer.holes,
    namespaces: writer.namespaces,
    innerDeclarations: writer.innerDeclarations,
    late: writer.late,
    sites: writer.sites,
    supportStyles: writer.supportStyles,
    imageIds,
  };
}

export function firstKey(item: object): string | undefined {
  for (const key in item) if (Object.hasOwn(item, key)) return key;
  return undefined;
}

const PLACEHOLDER = /\{([^{}]+)\}/g;

/** Text in docx's content (a string or a number), as its writer resolves it. */
export class TextItem {
  constructor(readonly value: unknown) {}
}

/** An element of docx's prepared objects as docx's writer resolves it (see Writer.element). */
export interface Resolved {
  name: string;
  attributes: [string, unknown][] | undefined;
  /** '' for nothing, objects for elements, TextItems for text. */
  content: unknown[] | undefined;
}

/**
 * docx's `resolve`: the name, the attributes (from one or more _attr objects: more than one may repeat a name, which
 * xmldom would refuse) and the content, quirks included (a string in the content takes the place of what came just
 * before it). Undefined for an object without a name (docx writes nothing).
 */
export function resolved(data: object): Resolved | undefined {
  const name = firstKey(data);
  if (name === undefined) return undefined;
  const values = (data as Record<string, unknown>)[name];
  let attributes: [string, unknown][] | undefined;
  let sources = 0;
  let content: unknown[] | undefined;
  if (typeof values === 'object') {
    if (values !== null) {
      const { _attr: attr, _cdata: cdata } = values as { _attr?: unknown; _cdata?: unknown };
      if (cdata) throw new Unsupported();
      if (attr && typeof attr === 'object') {
        attributes = Object.entries(attr);
        sources = 1;
      }
      if (Array.isArray(values)) {
        let isString = false;
        content = [''];
        for (const value of values as unknown[]) {
          if (typeof value === 'object') {
            if (value === null) throw new Unsupported();
            if (firstKey(value) !== '_attr') content.push(value);
            else {
              const more = (value as { _attr: unknown })._attr;
              if (typeof more !== 'object' || more === null) continue;
              sources += 1;
              attributes = attributes ? [...attributes, ...Object.entries(more)] : Object.entries(more);
            }
          } else {
            content.pop();
            isString = true;
            content.push(new TextItem(value));
          }
        }
        if (!isString) content.push('');
      }
    }
  } else content = [new TextItem(values)];
  if (attributes && sources > 1 && new Set(attributes.map(([key]) => key)).size !== attributes.length)
    throw new Unsupported();
  return { name, attributes, content };
}

class Writer {
  readonly chunks: string[] = [];
  readonly holes = new Holes();
  readonly namespaces = new Map<string, string>();
  readonly innerDeclarations: BodyStream['innerDeclarations'] = [];
  readonly late: LateValue[] = [];
  readonly sites: StreamSite[] = [];
  readonly supportStyles = new Set<string>();
  readonly placeholderKeys = new Set<string>();
  /** The root's prefixes, and those declared inside the body in scope (innermost last). */
  private readonly root: ReadonlyMap<string, string>;
  private readonly inner: [string, string][] = [];
  private readonly support: ReadonlySet<string>;
  private readonly renamed = new Map<string, string>();

  constructor(
    declared: ReadonlyMap<string, string>,
    private readonly options: StreamOptions,
  ) {
    this.root = declared;
    this.support = new Set(options.supportStyleIds);
  }

  /** The namespace of a prefixed name (noting it as used), undefined for an unprefixed one or xml:. */
  private namespaceOf(name: string): string | undefined {
    const colon = name.indexOf(':');
    if (colon < 0) return undefined;
    const prefix = name.slice(0, colon);
    if (prefix === XML_PREFIX) return undefined;
    let uri: string | undefined;
    for (let i = this.inner.length - 1; i >= 0 && uri === undefined; i--) {
      const entry = this.inner[i];
      if (entry?.[0] === prefix) uri = entry[1];
    }
    uri ??= this.root.get(prefix);
    if (uri === undefined) throw new Unsupported();
    if (!this.namespaces.has(prefix)) this.namespaces.set(prefix, uri);
    return uri;
  }

  /** A value decided later; its token goes into the text. */
  private lateValue(kind: Kind, value: string, site?: StreamSite): string {
    const hole = this.holes.make('');
    const late = { value, kind, set: hole.set };
    this.late.push(late);
    if (site && kind === 'numId') site.numId = late;
    if (site && kind === 'ilvl') site.ilvl = late;
    if (value.includes('{')) for (const [, key] of value.matchAll(PLACEHOLDER)) this.placeholderKeys.add(key ?? '');
    return hole.token;
  }

  /** Writes one of docx's prepared objects as the DOM merge would; returns the number of characters written. */
  element(data: object, parent: Frame | undefined, out: string[]): number {
    const element = resolved(data);
    if (!element) return 0;
    const { name, attributes, content } = element;

    const mark = this.inner.length;
    if (attributes) {
      // Declarations first: they bind the element's own prefix and its attributes'.
      for (const [key, value] of attributes) {
        if (key === 'xmlns') throw new Unsupported();
        if (key.startsWith('xmlns:')) this.inner.push([key.slice(6), attributeValue(value)]);
      }
    }
    const uri = this.namespaceOf(name);
    const frame: Frame = { uri, local: uri === undefined ? name : name.slice(name.indexOf(':') + 1), parent };
    if (uri === NS.w) this.noteFrame(frame);
    let written = `<${name}`;
    if (attributes)
      for (const [key, raw] of attributes) {
        const value = attributeValue(raw);
        if (key.startsWith('xmlns:')) {
          const hole = this.holes.make('');
          this.innerDeclarations.push({
            prefix: key.slice(6),
            uri: value,
            text: attributeText(key, value),
            set: hole.set,
          });
          written += hole.token;
          continue;
        }
        const attrUri = this.namespaceOf(key);
        written += ` ${key}="${this.attribute(frame, attrUri, key, value)}"`;
      }
    out.push(written);
    const open = out.length;
    out.push('');
    let size = written.length;
    let any = false;
    if (content)
      for (const item of content) {
        if (item === '' || item === undefined) continue;
        if (item instanceof TextItem) {
          const text = textOf(item.value);
          if (text === '') continue;
          const piece = text.includes('{') ? this.lateValue('text', text) : encodeText(text);
          out.push(piece);
          size += piece.length;
          any = true;
          continue;
        }
        const before = out.length;
        size += this.element(item as object, frame, out);
        if (out.length > before) any = true;
      }
    if (any) {
      out[open] = '>';
      out.push(`</${name}>`);
      size += name.length + 4;
    } else out[open] = '/>';
    this.inner.length = mark;
    return size + 2;
  }

  /** Notes the WordprocessingML elements the package step rewrites: paragraphs' styles and list references. */
  private noteFrame(frame: Frame): void {
    const parent = frame.parent;
    if (frame.local === 'pPr' && parent && !parent.firstPPr) parent.firstPPr = frame;
    else if (frame.local === 'numPr') {
      frame.site = { paragraph: parent?.parent?.firstPPr };
      this.sites.push(frame.site);
    }
  }

  /** An attribute's value as written (encoded), or a hole's token for one decided later. */
  private attribute(frame: Frame, uri: string | undefined, key: string, value: string): string {
    const el = frame.local;
    const local = uri === undefined ? key : key.slice(key.indexOf(':') + 1);
    if (uri === NS.r && (local === 'id' || local === 'embed'))
      return this.lateValue(local === 'id' ? 'link' : 'embed', value);
    if (frame.uri === NS.wp && el === 'docPr' && key === 'id') return this.lateValue('drawing', value);
    if (frame.uri === NS.w && uri === NS.w) {
      if (local === 'id' && (el === 'bookmarkStart' || el === 'bookmarkEnd')) return this.lateValue('bookmark', value);
      if (local === 'id' && el === 'footnoteReference') return this.lateValue('footnote', value);
      if (local === 'val') {
        const site = frame.parent?.site;
        if (site && el === 'numId' && !site.numId) return this.lateValue('numId', value, site);
        if (site && el === 'ilvl' && !site.ilvl) return this.lateValue('ilvl', value, site);
        if (el === 'pStyle' || el === 'rStyle') return encodeAttribute(this.styleId(frame, value));
      }
    }
    return value.includes('{') ? this.lateValue('attribute', value) : encodeAttribute(value);
  }

  /** A paragraph or run style id: docx's support styles point at the template's (styles.ts). */
  private styleId(frame: Frame, value: string): string {
    if (value.includes('{')) throw new Unsupported();
    const pPr = frame.parent;
    if (frame.local === 'pStyle' && pPr?.local === 'pPr' && pPr.pStyle === undefined) pPr.pStyle = value;
    if (!this.support.has(value)) return value;
    this.supportStyles.add(value);
    let to = this.renamed.get(value);
    if (to === undefined) this.renamed.set(value, (to = this.options.supportStyle(value) ?? value));
    return to;
  }

  /**
   * docx's placeholders (`{key}`: images, list instances) replaced as its compile replaces them in its text: in one
   * pass over every such value, joined by NUL (which no value holds and no key matches); then the user's braces come
   * back as they were (braces.ts), as the DOM merge has them.
   */
  resolvePlaceholders(compiler: DocxCompiler, images: MediaData[], first: number, docx: DocxFile): void {
    const pending = this.late.filter((late) => late.value.includes('{'));
    if (pending.length === 0) return;
    const escaped = pending.map((late) => late.value.replace(/[&"'<>]/g, (c) => DOCX_ESCAPES[c] ?? c)).join('\u0000');
    const withImages = compiler.imageReplacer.replace(escaped, images, first);
    const replaced = compiler.numberingReplacer.replace(withImages, docx.Numbering.ConcreteNumbering);
    const values = replaced.split('\u0000');
    pending.forEach((late, i) => {
      late.value = unescapeBraces((values[i] ?? '').replace(/&(?:amp|quot|apos|lt|gt);/g, (e) => ENTITIES[e] ?? e));
    });
  }
}

/** A late value's text once decided. */
export function lateText(late: LateValue): string {
  return late.kind === 'text' ? encodeText(late.value) : encodeAttribute(late.value);
}

/** What docx writes before a part's root (xmldom keeps it as a processing instruction). */
const DECLARATION = 'version="1.0" encoding="UTF-8" standalone="yes"';
const RELS_DECLARATION = 'version="1.0" encoding="UTF-8"';
const XMLNS = 'http://www.w3.org/2000/xmlns/';
const XML = 'http://www.w3.org/XML/1998/namespace';

/**
 * A whole part from docx's prepared object, as the DOM xmldom makes of docx's text of it (the same nodes, names,
 * namespaces and values: test/convert/package/body-stream.test.ts), built directly instead of written and parsed.
 */
function buildPart(prepared: unknown, declaration: string): XmlDocument {
  if (typeof prepared !== 'object' || prepared === null) throw new Unsupported();
  const doc = new DOMImplementation().createDocument(null, null as unknown as string, null);
  doc.appendChild(doc.createProcessingInstruction('xml', declaration));
  const scope: [string, string][] = [];
  const lookup = (prefix: string): string | null => {
    for (let i = scope.length - 1; i >= 0; i--) {
      const entry = scope[i];
      if (entry?.[0] === prefix) return entry[1];
    }
    if (prefix === '') return null;
    throw new Unsupported();
  };
  const build = (data: object, parent: XmlNode): void => {
    const element = resolved(data);
    if (!element) return;
    const { name, attributes, content } = element;
    const mark = scope.length;
    for (const [key, value] of attributes ?? [])
      if (key === 'xmlns' || key.startsWith('xmlns:')) scope.push([key.slice(6), attributeValue(value)]);
    const colon = name.indexOf(':');
    const el = doc.createElementNS(lookup(colon < 0 ? '' : name.slice(0, colon)), name);
    for (const [key, raw] of attributes ?? []) {
      const value = attributeValue(raw);
      const at = key.indexOf(':');
      const prefix = at < 0 ? '' : key.slice(0, at);
      if (key === 'xmlns' || prefix === 'xmlns') el.setAttributeNS(XMLNS, key, value);
      else if (at < 0) el.setAttribute(key, value);
      else el.setAttributeNS(prefix === 'xml' ? XML : lookup(prefix), key, value);
    }
    for (const item of content ?? []) {
      if (item === '' || item === undefined) continue;
      if (item instanceof TextItem) {
        const text = textOf(item.value);
        if (text !== '') el.appendChild(doc.createTextNode(text));
      } else build(item as object, el);
    }
    scope.length = mark;
    parent.appendChild(el);
  };
  build(prepared, doc);
  return doc;
}

interface DocxParts {
  FootNotes: { View: Preppable; Relationships: Preppable };
  Numbering: Preppable;
}

/** The parts the package step reads of docx's output once the body is streamed (see streamedParts). */
export interface StreamedParts<T = never> {
  /** The parts, built as xmldom would read docx's text of them. */
  documents: Map<string, XmlDocument>;
  /** The list numbering (when `lists`) as the `numberingText` given made it, instead of a document; `document` builds
   * the document, where that text cannot be merged after all. */
  numbering?: { text: T; document: () => XmlDocument };
  /** The images' bytes by their paths (word/media/…). */
  media: Map<string, Uint8Array>;
}

/**
 * The parts the package step reads of docx's output once the body is streamed (streamBody), and only those: the
 * main part's relationships (links, images), the notes and their relationships, the list numbering (when `lists`)
 * and the images. docx's compile writes every other part too (its styles, settings, theme, …), which the template's
 * replace; it lays out the notes before the numbering (a list in a note adds to it), as here. Undefined when the notes
 * hold an image (docx's compile numbers those) or something the builder does not know: the caller compiles then.
 */
export function streamedParts<T>(
  file: Document,
  compiler: DocxCompiler,
  lists: boolean,
  numberingText?: (prepared: unknown) => T | undefined,
): StreamedParts<T> | undefined {
  const docx = file as unknown as DocxFile & DocxParts;
  const formatter = (compiler as unknown as { formatter: { format(input: unknown, context: unknown): unknown } })
    .formatter;
  const context = (viewWrapper: unknown) => ({ viewWrapper, file, stack: [] });
  try {
    // docx's placeholders in the notes: list instances, replaced as its compile replaces them, the user's braces
    // then as they were (braces.ts); images (its compile numbers those, relationships and all) make the caller compile.
    const keys = new Set<string>();
    const notes = replacePlaceholders(formatter.format(docx.FootNotes.View, context(docx.FootNotes)), (value) => {
      for (const [, key] of value.matchAll(PLACEHOLDER)) keys.add(key ?? '');
      return unescapeBraces(compiler.numberingReplacer.replace(value, docx.Numbering.ConcreteNumbering));
    });
    if (docx.Media.Entries.some(([key]) => keys.has(key))) return undefined;
    const documents = new Map<string, XmlDocument>([
      ['word/footnotes.xml', buildPart(notes, DECLARATION)],
      [
        'word/_rels/footnotes.xml.rels',
        buildPart(formatter.format(docx.FootNotes.Relationships, context(docx.FootNotes)), RELS_DECLARATION),
      ],
      [
        'word/_rels/document.xml.rels',
        buildPart(formatter.format(docx.Document.Relationships, context(docx.Document)), RELS_DECLARATION),
      ],
    ]);
    let numbering: StreamedParts<T>['numbering'];
    if (lists) {
      const prepared = formatter.format(docx.Numbering, context(docx.Document));
      const text = numberingText?.(prepared);
      if (text !== undefined) numbering = { text, document: () => buildPart(prepared, DECLARATION) };
      else documents.set('word/numbering.xml', buildPart(prepared, DECLARATION));
    }
    const media = new Map<string, Uint8Array>();
    for (const [, image] of docx.Media.Entries) media.set(`word/media/${image.fileName}`, image.data);
    return { documents, media, ...(numbering ? { numbering } : {}) };
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

/**
 * A prepared object with `replace` applied to its strings that hold a `{` (attribute values and text): docx replaces
 * its placeholders in its text, where no placeholder spans two values (nor would a key match one that did).
 */
function replacePlaceholders(prepared: unknown, replace: (value: string) => string): unknown {
  if (typeof prepared === 'string') return prepared.includes('{') ? replace(prepared) : prepared;
  if (Array.isArray(prepared)) return prepared.map((item) => replacePlaceholders(item, replace));
  if (typeof prepared !== 'object' || prepared === null) return prepared;
  const out: Record<string, unknown> = {};
  for (const key in prepared)
    if (Object.hasOwn(prepared, key))
      out[key] = replacePlaceholders((prepared as Record<string, unknown>)[key], replace);
  return out;
}
