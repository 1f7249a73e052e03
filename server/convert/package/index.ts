// The packaging step: the template's package with the compiled content written into it, one part at a time. Each
// part has its own merger (template part + our part → merged part) over a DOM; relationships and content types are
// objects that allocate ids in one place; namespaces are declared in one place (namespaces.ts).
import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { Document } from 'docx';
import type { CompiledDocument } from '../compile/index.ts';
import type { TitleKey } from '../mapping.ts';
import { optimisationsEnabled } from '../optimisations.ts';
import { relsPath, siblingPath, type Template } from '../template/read.ts';
import { findPart, resolveTarget } from '../template/parts.ts';
import { pruneComments } from './comments.ts';
import { CONTENT_TYPE, ContentTypes } from './content-types.ts';
import { corePropertiesXml } from './core-properties.ts';
import { DOCX_DECLARATION, templateShell } from './body-text.ts';
import { docxDeclarations, lateText, StreamGaveUp, streamBody, streamedParts, Unsupported } from './body-stream.ts';
import { mergeDocument, templateBody, type TemplateBody } from './document.ts';
import {
  children,
  isW,
  parseGeneratedPart,
  parsePart,
  serializePart,
  setWAttr,
  wAttr,
  wChild,
  prefixOf,
  wElementsIn,
} from './dom.ts';
import { appendFootnotes, footnoteIdBase, mergeFootnotes, pruneNotes } from './footnotes.ts';
import { drawingIds, moveMediaParts, renameEmbeds, renumberDrawingsFrom } from './media.ts';
import { declareNamespaces, declaredOn, NS } from './namespaces.ts';
import { mergeNumbering, mergeNumberingSites, numberingSites, type NumberingSite } from './numbering.ts';
import { generatedNumberingText, mergeNumberingText } from './numbering-text.ts';
import { REL, Relationships } from './relationships.ts';
import { repairSettings } from './settings.ts';
import { serializeAround } from './serialize.ts';
import { addSupportStyles, pointSupportStyles, SUPPORT_STYLE_IDS, supportStyleId } from './styles.ts';
import { fillTitleFields, titleFieldsIn } from './title-fields.ts';
import { bookmarkIdOffset, findToc, requestFieldUpdate, shiftBookmarkIds, tocShell, writeToc } from './toc.ts';
import { compileParts, docxCompiler, PartCache, zipParts } from './zip.ts';
import { outputTooLarge } from '../errors.ts';
import { encodeUtf8 } from '../xml.ts';

export { compileParts, zipParts } from './zip.ts';

/** What the packaging reads of a template, worked out once per template (templates are reused across conversions). */
interface Prepared {
  /** The body, made ready for merges. */
  body: TemplateBody;
  /** The styles part, parsed, read only (a merger that adds to it parses its own copy). */
  styles: XmlDocument | null;
  /** Parts that change whatever the content (the template's own notes and comments left out, settings repaired). */
  fixed: Map<string, Uint8Array>;
  /** The template's parts (and `fixed`) as the zip holds them, deflated once (zip.ts). */
  zipped: PartCache;
  /** The styles part with the support styles a document refers to (by their ids, space-separated); null: as it is. */
  stylesWith: Map<string, Uint8Array | null>;
  /** Title block keys the kept body has a place for (title-fields.ts), and the headers and footers that have some. */
  titleFields: Set<TitleKey>;
  titleFieldParts: string[];
  /** The TOC of the template's text, when it has one (see toc.ts). */
  tocShell: Element[] | undefined;
}

const prepared = new WeakMap<Template, Prepared>();

function prepare(template: Template): Prepared {
  const known = prepared.get(template);
  if (known) return known;
  const main = template.mainPart;
  const open = (path: string): XmlDocument | null => {
    const data = template.parts.get(path);
    return data === undefined ? null : parsePart(data, path);
  };
  const mainDocument = open(main) ?? parsePart('', main);
  // A TOC of the template's text (which goes) is kept aside to be the shell of the document's own (toc.ts).
  const templateToc = findToc(children(wChild(mainDocument.documentElement, 'body') ?? mainDocument));
  const shell = templateToc ? tocShell(templateToc) : undefined;
  const body = templateBody(mainDocument);
  const fixed = new Map<string, Uint8Array>();
  const footnotes = open(siblingPath(main, 'footnotes.xml'));
  if (footnotes && pruneNotes(footnotes, 'footnote', body.kept.footnotes))
    fixed.set(siblingPath(main, 'footnotes.xml'), encodeUtf8(serializePart(footnotes)));
  const endnotes = open(siblingPath(main, 'endnotes.xml'));
  if (endnotes && pruneNotes(endnotes, 'endnote', body.kept.endnotes))
    fixed.set(siblingPath(main, 'endnotes.xml'), encodeUtf8(serializePart(endnotes)));
  const comments = open(siblingPath(main, 'comments.xml'));
  if (comments?.documentElement) {
    const before = children(comments.documentElement).length;
    if (pruneComments(comments, body.kept.comments) !== before)
      fixed.set(siblingPath(main, 'comments.xml'), encodeUtf8(serializePart(comments)));
  }
  const settings = open(siblingPath(main, 'settings.xml'));
  if (settings && repairSettings(settings))
    fixed.set(siblingPath(main, 'settings.xml'), encodeUtf8(serializePart(settings)));
  const titleFieldParts = headersAndFooters(template).filter((path) => {
    const root = open(path)?.documentElement;
    return root ? titleFieldsIn(children(root)).size > 0 : false;
  });
  const titleFields = titleFieldsIn(children(body.body));
  const result = {
    body,
    styles: open(siblingPath(main, 'styles.xml')),
    fixed,
    titleFields,
    titleFieldParts,
    tocShell: shell,
    zipped: new PartCache(),
    stylesWith: new Map(),
  };
  result.zipped.keep([...template.parts.values(), ...fixed.values()]);
  prepared.set(template, result);
  return result;
}

/** The header and footer parts of the main document. */
function headersAndFooters(template: Template): string[] {
  const main = template.mainPart;
  const rels = new Relationships(template.parts.get(relsPath(main)), relsPath(main));
  return rels
    .list()
    .filter((r) => !r.external && (r.type === `${NS.r}/header` || r.type === `${NS.r}/footer`))
    .map((r) => findPart(template.parts.keys(), resolveTarget(main, r.target)))
    .filter((path) => template.parts.has(path));
}

/** The title block keys a template has places for in the body that stays: these are filled, not printed. */
export function templateTitleFields(template: Template): ReadonlySet<TitleKey> {
  return prepare(template).titleFields;
}

/**
 * Writes the compiled content into the template: everything of the template is kept but its body's own content.
 * Takes `compiled` over: its docx content (children, footnotes) is let go once docx has written it.
 */
export function packageDocument(
  template: Template,
  compiled: CompiledDocument,
  created: Date,
  { stream: streamed = true, limit = Infinity }: { stream?: boolean; limit?: number } = {},
): Uint8Array {
  const release = optimisationsEnabled();
  const ready = prepare(template);
  const bodyChildren = compiled.children;
  const file = new Document({
    numbering: compiled.numbering,
    footnotes: compiled.footnotes,
    sections: [{ children: bodyChildren }],
  });
  // A long document's docx objects (55 MB at 1.2 MB of markdown) need not outlive what they write: docx keeps the
  // array of the section's children it was given (its body has its own), so that is emptied too.
  if (release) {
    compiled.children = [];
    bodyChildren.length = 0;
  }
  // The body written as text straight from docx's objects when it can be (body-stream.ts), each let go once written
  // (StreamGaveUp if the writer gives up after that: convert() lays the document out again without), else merged as
  // a DOM.
  const declared = release && streamed && !compiled.toc ? docxDeclarations(file) : undefined;
  const shell = declared ? templateShell(ready.body, declared) : undefined;
  const stream = shell
    ? streamBody(file, docxCompiler(), {
        supportStyle: (id) => supportStyleId(template.styles, id),
        supportStyleIds: SUPPORT_STYLE_IDS,
        release: true,
      })
    : undefined;
  // A body the writer gave up on is laid out again by docx's compile, in the same document: docx's objects keep what
  // their first layout added to it (a hyperlink's relationship), so a document of its own would lose that.
  const text = stream && shell ? { stream, shell } : undefined;
  // With the body streamed, only the parts read below are written (body-stream.ts's streamedParts), not all of docx's.
  const lists = text !== undefined && (text.stream.sites.length > 0 || Object.keys(compiled.footnotes).length > 0);
  const parts = text
    ? streamedParts(file, docxCompiler(), lists, release ? generatedNumberingText : undefined)
    : undefined;
  const generated = new Map<string, string | Uint8Array>(parts ? parts.media : compileParts(file));
  const noteCount = Object.keys(compiled.footnotes).length;
  if (release) compiled.footnotes = {};
  const generatedPart = (path: string): XmlDocument | null => {
    // Built directly when the body was streamed; each is read once.
    if (parts) return parts.documents.get(path) ?? null;
    const data = generated.get(path);
    return data === undefined ? null : parseGeneratedPart(data, path);
  };
  const templatePart = (path: string): XmlDocument | null => {
    const data = template.parts.get(path);
    return data === undefined ? null : parsePart(data, path);
  };
  const out = new Map<string, Uint8Array | string>([...template.parts, ...ready.fixed]);
  const main = template.mainPart;
  const mainRelsPath = relsPath(main);
  const mainRels = new Relationships(template.parts.get(mainRelsPath), mainRelsPath);
  const types = new ContentTypes(template.parts.get('[Content_Types].xml'));

  let document: XmlDocument | undefined;
  let content: Element[] = [];
  let kept = ready.body.kept;
  let keptNodes: Element[];
  if (text) {
    if (release) generated.delete('word/document.xml');
    keptNodes = text.shell.kept;
  } else {
    const genDocument = generatedPart('word/document.xml');
    if (!genDocument) throw new Error('docx wrote no document part');
    // Its text (5.3 M characters at 1.2 MB of markdown) is in the DOM now.
    if (release) generated.delete('word/document.xml');
    ({ document, content, kept } = mergeDocument(ready.body, genDocument));
    const ours = new Set<Element>(content);
    const merged = document.documentElement ? wChild(document.documentElement, 'body') : undefined;
    keptNodes = merged ? children(merged).filter((c) => !ours.has(c)) : [];
  }
  // The template's title block places, in its kept body (never in our content) and its headers and footers.
  if (text || document?.documentElement) fillTitleFields(keptNodes, compiled.titleValues);
  for (const path of ready.titleFieldParts) {
    const part = templatePart(path);
    if (part?.documentElement && fillTitleFields(children(part.documentElement), compiled.titleValues))
      out.set(path, serializePart(part));
  }
  const genMainRels = generatedPart('word/_rels/document.xml.rels');
  const links = hyperlinkIds(genMainRels, mainRels, 'dwLink');
  if (!text) renameHyperlinks(content, links);
  const images = moveMediaParts(generated, genMainRels, mainRels, types, out, main);
  const drawings = images.size > 0 ? drawingIds(out) : undefined;
  if (!text && images.size > 0) {
    if (drawings) renumberDrawingsFrom(content, drawings);
    renameEmbeds(content, images);
  }
  const bookmarks = bookmarkIdOffset(children(ready.body.body));
  if (!text && bookmarks !== undefined) shiftBookmarkIds(content, bookmarks);
  if (compiled.toc && document) {
    const ours = new Set(content);
    const keptBody = children(wChild(document.documentElement, 'body') ?? document).filter((n) => !ours.has(n));
    const context = { request: compiled.toc, styles: template.styles };
    if (writeToc(document, content, keptBody, ready.tocShell, context)) {
      // Word updates the TOC's page numbers on open.
      const settingsPath = siblingPath(main, 'settings.xml');
      const source = ready.fixed.get(settingsPath) ?? template.parts.get(settingsPath);
      const settings = parsePart(source ?? `<w:settings xmlns:w="${NS.w}"/>`, settingsPath);
      requestFieldUpdate(settings);
      out.set(settingsPath, serializePart(settings));
      if (source === undefined) addPart(mainRels, types, REL.settings, settingsPath, CONTENT_TYPE.settings);
    }
  }

  // Our notes: the footnotes docx wrote (ids > 0); lists and styles inside them are merged with the body's.
  // docx's notes part holds only its separators when the document has no notes: nothing of it is used then.
  const genFootnotes = noteCount > 0 || !release ? generatedPart('word/footnotes.xml') : null;
  const ourNotes = genFootnotes?.documentElement
    ? children(genFootnotes.documentElement).filter((n) => isW(n, 'footnote') && Number(wAttr(n, 'id')) > 0)
    : [];
  const hasNotes = noteCount > 0 && ourNotes.length > 0;
  const footnotesPath = siblingPath(main, 'footnotes.xml');
  let footnotes: XmlDocument | null = null;
  if (hasNotes && genFootnotes) {
    footnotes = templatePart(footnotesPath);
    if (footnotes) pruneNotes(footnotes, 'footnote', kept.footnotes);
  }

  // The body as text: its late values decided like the DOM's content above (body-stream.ts).
  const bodyNumbering: NumberingSite[] = [];
  if (text) {
    const noteBase = footnotes ? footnoteIdBase(footnotes) : 0;
    const shiftNotes = hasNotes && genFootnotes !== null && footnotes !== null && noteBase > 0;
    for (const late of text.stream.late) {
      if (late.kind === 'link') late.value = (late.value && links.get(late.value)) ?? late.value;
      else if (late.kind === 'embed' && images.size > 0)
        late.value = (late.value && images.get(late.value)) ?? late.value;
      else if (late.kind === 'drawing' && drawings) late.value = String(drawings());
      else if (late.kind === 'bookmark' && bookmarks !== undefined) late.value = String(Number(late.value) + bookmarks);
      else if (late.kind === 'footnote' && shiftNotes) late.value = String(Number(late.value) + noteBase);
    }
    for (const site of text.stream.sites) {
      const { numId, ilvl } = site;
      bodyNumbering.push({
        numId: numId ? numId.value : null,
        ilvl: ilvl ? ilvl.value : null,
        styleId: site.paragraph?.pStyle ?? '',
        setNumId: (value) => {
          if (numId) numId.value = value;
        },
        setIlvl: (value) => {
          if (ilvl) ilvl.value = value;
        },
      });
    }
  }

  // Lists: numbering instances appended with ids the template does not use.
  const numberingPath = siblingPath(main, 'numbering.xml');
  const stylesPath = siblingPath(main, 'styles.xml');
  const noteSites = text ? numberingSites(hasNotes ? ourNotes : []) : [];
  // Without a list in the body or the notes nothing is merged (mergeNumberingSites): no part is read for it.
  const noLists = text !== undefined && bodyNumbering.length === 0 && noteSites.length === 0;
  // Merged as text where it can be (numbering-text.ts), else as a DOM (from the template's part parsed afresh).
  const sites = [...bodyNumbering, ...noteSites];
  const templateNumbering = noLists ? undefined : template.parts.get(numberingPath);
  const numberingXml =
    templateNumbering !== undefined && parts?.numbering
      ? mergeNumberingText(templateNumbering, numberingPath, parts.numbering.text, sites, ready.styles)
      : undefined;
  if (numberingXml !== undefined) out.set(numberingPath, numberingXml);
  const genNumbering =
    noLists || numberingXml !== undefined
      ? null
      : parts?.numbering
        ? generatedNumbering(parts.numbering.document)
        : generatedPart('word/numbering.xml');
  if (genNumbering) {
    const numbering = text
      ? mergeNumberingSites(templatePart(numberingPath), genNumbering, sites, ready.styles)
      : mergeNumbering(
          templatePart(numberingPath),
          genNumbering,
          [...content, ...(hasNotes ? ourNotes : [])],
          ready.styles,
        );
    if (numbering) {
      out.set(numberingPath, serializePart(numbering));
      if (!template.parts.has(numberingPath))
        addPart(mainRels, types, REL.numbering, numberingPath, CONTENT_TYPE.numbering);
    }
  }

  // Footnotes: the template's separators (and notes its kept text refers to), then ours with ids past them.
  if (hasNotes && genFootnotes) {
    const footRelsPath = relsPath(footnotesPath);
    const footRels = new Relationships(template.parts.get(footRelsPath), footRelsPath);
    moveHyperlinks(generatedPart('word/_rels/footnotes.xml.rels'), footRels, ourNotes, 'dwNoteLink');
    if (footnotes) {
      if (text) appendFootnotes(footnotes, genFootnotes);
      else mergeFootnotes(footnotes, genFootnotes, content);
    } else {
      footnotes = genFootnotes;
      addPart(mainRels, types, REL.footnotes, footnotesPath, CONTENT_TYPE.footnotes);
    }
    // Written below, once the styles are merged into it; set here so the part keeps its place in the zip.
    out.set(footnotesPath, optimisationsEnabled() ? '' : serializePart(footnotes));
    if (footRels.changed) out.set(footRelsPath, footRels.toXml());
  }

  // Styles docx refers to by fixed ids: the template's own when it has them by name, else added.
  const finalNotes = footnotes && hasNotes ? [footnotes] : [];
  let referenced: Set<string>;
  if (text) {
    referenced = text.stream.supportStyles;
    for (const notes of finalNotes)
      if (notes.documentElement) renameSupportStyles([notes.documentElement], template.styles, referenced);
  } else referenced = pointSupportStyles(template.styles, [...content, ...finalNotes]);
  // The template's styles with those added depend on the set alone: parsed and written once per template and set.
  const key = SUPPORT_STYLE_IDS.filter((id) => referenced.has(id)).join(' ');
  let styles = release ? ready.stylesWith.get(key) : undefined;
  if (styles === undefined) {
    const added = addSupportStyles(() => templatePart(stylesPath), template.styles, referenced);
    styles = added ? encodeUtf8(serializePart(added)) : null;
    if (release) {
      ready.stylesWith.set(key, styles);
      if (styles) ready.zipped.keep([styles]);
    }
  }
  if (styles) out.set(stylesPath, styles);
  if (hasNotes && footnotes) out.set(footnotesPath, serializePart(footnotes));

  if (text) {
    const { stream } = text;
    const { document: shellDocument, marker } = text.shell;
    declareNamespaces(shellDocument, [{ at: marker, used: stream.namespaces }]);
    const final = shellDocument.documentElement ? declaredOn(shellDocument.documentElement) : new Map();
    for (const d of stream.innerDeclarations) d.set(final.get(d.prefix) === d.uri ? '' : d.text);
    for (const late of stream.late) late.set(lateText(late));
    const around = serializeAround(shellDocument, marker);
    if (!around) throw new Error('the template document cannot be written around the body');
    out.set(main, stream.holes.fillUtf8(`${DOCX_DECLARATION}${around[0]}`, stream.chunks, around[1]));
  } else if (document) {
    declareNamespaces(document);
    out.set(main, serializePart(document));
  }
  if (mainRels.changed) out.set(mainRelsPath, mainRels.toXml());

  // Document properties: a fresh core.xml.
  if (!template.parts.has('docProps/core.xml')) {
    const rootRels = new Relationships(template.parts.get('_rels/.rels'), '_rels/.rels');
    rootRels.add(REL.coreProperties, 'docProps/core.xml');
    out.set('_rels/.rels', rootRels.toXml());
    types.addOverride('/docProps/core.xml', CONTENT_TYPE.core);
  }
  // What we wrote (every XML part: body, notes, relationships, numbering, styles…, beyond the template's own bytes),
  // bounded by the markdown it came from (OutputTooLargeError). Pictures are the user's bytes, not written from it.
  let written = 0;
  for (const [path, data] of out)
    if (isXmlPart(path)) written += Math.max(0, sizeOf(data) - sizeOf(template.parts.get(path)));
  if (written > limit) throw outputTooLarge(written);
  out.set('docProps/core.xml', corePropertiesXml(compiled.properties, created));
  // A .dotx template gives a .docx document.
  types.mainAsDocument(`/${main}`);
  if (types.changed) out.set('[Content_Types].xml', types.toXml());
  return zipParts(out, 6, release ? ready.zipped : undefined);
}

/** A part's length (characters or bytes: the bound is coarse), 0 when absent. */
const sizeOf = (part: Uint8Array | string | undefined): number =>
  part === undefined ? 0 : typeof part === 'string' ? part.length : part.byteLength;

/** A part of XML (`.xml`, `.rels`), not a picture or other binary. */
const isXmlPart = (path: string): boolean => path.endsWith('.xml') || path.endsWith('.rels');

/** A part the template lacks: its relationship from the main part and its content type. */
function addPart(rels: Relationships, types: ContentTypes, type: string, path: string, contentType: string): void {
  rels.add(type, path.slice(path.lastIndexOf('/') + 1));
  types.addOverride(`/${path}`, contentType);
}

/** Moves docx's hyperlink relationships into the template part's relationships, with ids of our own, in `nodes`. */
function moveHyperlinks(
  generatedRels: XmlDocument | null,
  rels: Relationships,
  nodes: readonly Element[],
  prefix: string,
): void {
  renameHyperlinks(nodes, hyperlinkIds(generatedRels, rels, prefix));
}

/**
 * Adds docx's hyperlink relationships to the template part's with ids of our own, one per distinct target (docx writes
 * one per link, so a URL linked N times would be written N times); returns docx's ids → ours.
 */
function hyperlinkIds(generatedRels: XmlDocument | null, rels: Relationships, prefix: string): Map<string, string> {
  const renamed = new Map<string, string>();
  if (!generatedRels?.documentElement) return renamed;
  const byTarget = new Map<string, string>();
  for (const rel of children(generatedRels.documentElement)) {
    if (rel.getAttribute('Type') !== REL.hyperlink) continue;
    const target = rel.getAttribute('Target') ?? '';
    let id = byTarget.get(target);
    if (id === undefined) {
      id = rels.add(REL.hyperlink, target, { external: true, prefix });
      byTarget.set(target, id);
    }
    renamed.set(rel.getAttribute('Id') ?? '', id);
  }
  return renamed;
}

/** Renames the hyperlinks' relationship ids (r:id) in `nodes`. */
function renameHyperlinks(nodes: readonly Element[], renamed: ReadonlyMap<string, string>): void {
  if (renamed.size === 0) return;
  const stack = [...nodes];
  for (let el = stack.pop(); el; el = stack.pop()) {
    const id = el.getAttributeNS(NS.r, 'id');
    const to = id ? renamed.get(id) : undefined;
    if (to !== undefined) el.setAttributeNS(NS.r, `${prefixOf(el, NS.r, 'r')}:id`, to);
    // One push per child: spreading a wide element's children into one call overflows the stack.
    for (const child of children(el)) stack.push(child);
  }
}

/** Points the support style ids docx writes at the template's (see supportStyles), noting those referred to. */
function renameSupportStyles(nodes: readonly Element[], styles: Template['styles'], referenced: Set<string>): void {
  const found = wElementsIn(nodes, ['pStyle', 'rStyle']);
  for (const el of [...(found.get('pStyle') ?? []), ...(found.get('rStyle') ?? [])]) {
    let id = wAttr(el, 'val');
    for (const support of SUPPORT_STYLE_IDS) {
      if (id !== support) continue;
      referenced.add(support);
      const to = supportStyleId(styles, support);
      if (to !== undefined) id = to;
    }
    if (id !== wAttr(el, 'val')) setWAttr(el, 'val', id);
  }
}

/**
 * docx's numbering as a document, where its text (numbering-text.ts) could not be merged into the template's part.
 * That text was written from the same objects, so this builds; if it did not, the document is laid out again.
 */
function generatedNumbering(document: () => XmlDocument): XmlDocument {
  try {
    return document();
  } catch (error) {
    if (error instanceof Unsupported) throw new StreamGaveUp();
    throw error;
  }
}
