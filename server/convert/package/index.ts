// The packaging step: the template's package with the compiled content written into it, one part at a time. Each
// part has its own merger (template part + our part → merged part) over a DOM; relationships and content types are
// objects that allocate ids in one place; namespaces are declared in one place (namespaces.ts).
import type { Document as XmlDocument, Element, Node } from '@xmldom/xmldom';
import { Paragraph, TextRun, type ICommentOptions } from 'docx';
import { docxContentParts } from './docx-pieces.ts';
import type { CompiledDocument } from '../compile/index.ts';
import type { WordComment } from '../compile/state.ts';
import type { TitleKey } from '../mapping.ts';
import { relsPath, siblingPath, type Template } from '../template/read.ts';
import { findPart, resolveTarget } from '../template/parts.ts';
import { pruneComments } from './comments.ts';
import { CONTENT_TYPE, ContentTypes } from './content-types.ts';
import { corePropertiesXml } from './core-properties.ts';
import { bodyBounds, rewriteBody } from './body.ts';
import { documentShell, templateBody, type TemplateBody } from './document.ts';
import {
  adopt,
  children,
  isW,
  parseGeneratedPart,
  parsePart,
  prefixOf,
  serializePart,
  wAttr,
  wChild,
  withDeclaration,
} from './dom.ts';
import { appendFootnotes, footnoteIdBase, pruneNotes, shiftFootnoteReferences } from './footnotes.ts';
import { drawingIds, moveMediaParts } from './media.ts';
import { declaredOn, declareNamespaces, NS } from './namespaces.ts';
import { mergeNumberingText, numberedStyles, numberingSites, type StyleIndent } from './numbering.ts';
import { withHeadingNumbering } from './heading-numbering.ts';
import { generatedRelationships, REL, Relationships, type GeneratedRelationship } from './relationships.ts';
import { repairSettings } from './settings.ts';
import {
  addSupportStyles,
  languageOf,
  pointSupportStyles,
  setDocumentLanguage,
  SUPPORT_STYLE_IDS,
  supportStyleId,
} from './styles.ts';
import { runLanguage } from '../compile/state.ts';
import { fillTitleFields, titleFieldsIn } from './title-fields.ts';
import { addTokenStyles } from './token-styles.ts';
import { bookmarkIdOffset, findToc, requestFieldUpdate, tocShell, writeTocAt } from './toc.ts';
import { serializeAroundAll } from './serialize.ts';
import { finishLanding, landingSectionProperties, landscapeBreaks } from './sections.ts';
import { docxText, unescapeBraces } from '../braces.ts';
import { PartCache, zipParts } from './zip.ts';
import { outputTooLarge } from '../errors.ts';
import { encodeUtf8, textOf } from '../xml.ts';

export { docxParts, zipParts } from './zip.ts';

/** What the packaging reads of a template, worked out once per template (templates are reused across conversions). */
interface Prepared {
  /** The body, made ready for merges. */
  body: TemplateBody;
  /** The numbering part, parsed, read only (the merge writes a copy), null when the template has none. */
  numbering: XmlDocument | null;
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
  /** The paragraph styles that carry numbering of their own, by id, with their names (templateNumberedStyles). */
  numberedStyles: ReadonlyMap<string, NumberedStyle>;
  /** The language of the template's text (templateLanguage). */
  language: string | undefined;
  /** The first comment id past the template's kept comments (templateCommentBase). */
  commentIdBase: number;
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
  let commentIdBase = 0;
  if (comments?.documentElement) {
    const before = children(comments.documentElement).length;
    if (pruneComments(comments, body.kept.comments) !== before)
      fixed.set(siblingPath(main, 'comments.xml'), encodeUtf8(serializePart(comments)));
    // A reduce, as footnoteIdBase: the kept comments' highest id, ours after it.
    commentIdBase = children(comments.documentElement)
      .filter((c) => isW(c, 'comment'))
      .reduce((max, c) => Math.max(max, (Number(wAttr(c, 'id')) || 0) + 1), 0);
  }
  const settings = open(siblingPath(main, 'settings.xml'));
  if (settings && repairSettings(settings))
    fixed.set(siblingPath(main, 'settings.xml'), encodeUtf8(serializePart(settings)));
  const titleFieldParts = headersAndFooters(template).filter((path) => {
    const root = open(path)?.documentElement;
    return root ? titleFieldsIn(children(root)).size > 0 : false;
  });
  const titleFields = titleFieldsIn(children(body.body));
  const styles = open(siblingPath(main, 'styles.xml'));
  const numbering = open(siblingPath(main, 'numbering.xml'));
  const names = new Map(template.styles.map((s) => [s.id, s.name]));
  const result = {
    body,
    styles,
    numbering,
    numberedStyles: new Map(
      [...numberedStyles(styles, numbering)].map(([id, indent]) => [
        id,
        { name: names.get(id) ?? id, ...(indent ? { indent } : {}) },
      ]),
    ),
    language: languageOf(styles),
    commentIdBase,
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

/** A paragraph style that numbers its paragraphs by itself: its name, and its own indentation (numbering.ts). */
export interface NumberedStyle {
  name: string;
  indent?: StyleIndent;
}

/**
 * The template's paragraph styles that number their paragraphs by themselves (w:numPr in the style or its base
 * styles), by id: the compiler turns that numbering off where the element is not a list or heading.
 */
export function templateNumberedStyles(template: Template): ReadonlyMap<string, NumberedStyle> {
  return prepare(template).numberedStyles;
}

/** The language of the template's text (w:lang of its Normal style, else of its document defaults), if it names one. */
export function templateLanguage(template: Template): string | undefined {
  return prepare(template).language;
}

/**
 * Writes the compiled content into the template: everything of the template is kept but its body's own content.
 * Takes `compiled` over: its docx content (children, footnotes) is let go once docx has written it. One path, part by
 * part: docx lays our content out (its parts), then each part of the package is merged in turn below.
 */
export async function packageDocument(
  original: Template,
  compiled: CompiledDocument,
  created: Date,
  { limit = Infinity, pieceBlocks }: { limit?: number; pieceBlocks?: number } = {},
): Promise<Uint8Array> {
  // Numbered headings: the template with its heading styles numbered (made once per template and styles).
  const template = compiled.headingNumbering ? withHeadingNumbering(original, compiled.headingNumbering) : original;
  const ready = prepare(template);
  const { parts: generated, noteCount } = await docxPartsOf(compiled, created, pieceBlocks);
  const generatedPart = (path: string): XmlDocument | null => {
    const data = generated.get(path);
    // Each is read once: its text (5.3 M characters of document.xml at 1.2 MB of markdown) is in the DOM then.
    generated.delete(path);
    return data === undefined ? null : parseGeneratedPart(data, path);
  };
  const generatedRels = (path: string): GeneratedRelationship[] => {
    const data = generated.get(path);
    generated.delete(path);
    return generatedRelationships(data === undefined ? undefined : textOf(data));
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

  // The main document: the template's with our content in place of its body's own. docx's body is text throughout
  // (body.ts): only the template's document around it is a DOM.
  const genBytes = generated.get('word/document.xml');
  generated.delete('word/document.xml');
  if (genBytes === undefined) throw new Error('docx wrote no document part');
  const genText = unescapeBraces(textOf(genBytes));
  const bounds = bodyBounds(genText);
  const around = parseGeneratedPart(genText.slice(0, bounds.from) + genText.slice(bounds.to), main);
  const { document, marker, keptNodes, kept } = documentShell(ready.body, around);
  // Landscape divs' sections (sections.ts): their breaks from the properties of the section our content ends with.
  const landing = compiled.landscape ? landingSectionProperties(marker) : undefined;
  const sectionBreaks = landing ? landscapeBreaks(landing, marker) : undefined;
  // The template's title block places, in its kept body (never in our content) and its headers and footers.
  if (document.documentElement) fillTitleFields(keptNodes, compiled.titleValues);
  for (const path of ready.titleFieldParts) {
    const part = templatePart(path);
    if (part?.documentElement && fillTitleFields(children(part.documentElement), compiled.titleValues))
      out.set(path, serializePart(part));
  }
  const genMainRels = generatedRels('word/_rels/document.xml.rels');
  const links = hyperlinkIds(genMainRels, mainRels, 'dwLink');
  const images = moveMediaParts(generated, genMainRels, mainRels, types, out, main);

  // Our notes: the footnotes docx wrote (ids > 0); lists and styles inside them are merged with the body's.
  // docx's notes part holds only its separators when the document has no notes: nothing of it is used then.
  const genFootnotes = noteCount > 0 ? generatedPart('word/footnotes.xml') : null;
  const ourNotes = genFootnotes?.documentElement
    ? children(genFootnotes.documentElement).filter((n) => isW(n, 'footnote') && Number(wAttr(n, 'id')) > 0)
    : [];
  const hasNotes = ourNotes.length > 0;
  const footnotesPath = siblingPath(main, 'footnotes.xml');
  let footnotes: XmlDocument | null = null;
  if (hasNotes) {
    footnotes = templatePart(footnotesPath);
    if (footnotes) pruneNotes(footnotes, 'footnote', kept.footnotes);
  }
  const footnoteBase = hasNotes && footnotes ? footnoteIdBase(footnotes) : 0;

  const body = rewriteBody(genText, bounds.declared, bounds.from, bounds.to, {
    links,
    embeds: images,
    nextDrawing: images.size > 0 ? drawingIds(out) : undefined,
    noteMarks: compiled.noteMarks,
    bookmarkOffset: bookmarkIdOffset(children(ready.body.body)),
    footnoteBase,
    supportStyles: new Map(SUPPORT_STYLE_IDS.map((id) => [id, supportStyleId(template.styles, id)])),
    rootDeclared: declaredOn(document.documentElement ?? document.createElement('x')),
    tocMarkers: compiled.toc !== undefined,
    sectionBreaks,
  });
  if (landing) finishLanding(landing, body.sectionBreaks, body.endsLandscape);
  // A place in the template's document for each stretch of our body between TOC markers.
  const places = [marker];
  for (let k = 1; k < body.segments.length; k++) {
    const place = document.createComment('content');
    marker.parentNode?.insertBefore(place, places.at(-1)?.nextSibling ?? null);
    places.push(place);
  }
  let tocs: Element[][] = [];
  if (compiled.toc && body.segments.length > 1) {
    const context = { request: compiled.toc, styles: template.styles };
    tocs = writeTocAt(document, places.slice(1), keptNodes, ready.tocShell, context);
  }
  // Word updates the page numbers of a TOC, or of a list of figures or tables (compile/captions.ts), on open.
  if ((compiled.toc && body.segments.length > 1) || compiled.updateFields) {
    const settingsPath = siblingPath(main, 'settings.xml');
    const source = ready.fixed.get(settingsPath) ?? template.parts.get(settingsPath);
    const settings = parsePart(source ?? `<w:settings xmlns:w="${NS.w}"/>`, settingsPath);
    requestFieldUpdate(settings);
    out.set(settingsPath, serializePart(settings));
    if (source === undefined) addPart(mainRels, types, REL.settings, settingsPath, CONTENT_TYPE.settings);
  }
  const tocNodes = tocs.flat();

  // Lists: numbering instances appended with ids the template does not use.
  const numberingPath = siblingPath(main, 'numbering.xml');
  const genNumbering = generated.get('word/numbering.xml');
  generated.delete('word/numbering.xml');
  if (genNumbering) {
    const sites = body.segments.flatMap((segment, k) => [
      ...segment.sites,
      ...(k < tocs.length ? numberingSites(tocs[k] ?? []) : []),
    ]);
    if (hasNotes) sites.push(...numberingSites(ourNotes));
    const text = unescapeBraces(textOf(genNumbering));
    const numbering = mergeNumberingText(ready.numbering, text, sites, ready.styles);
    if (numbering !== null) {
      out.set(numberingPath, numbering);
      if (!template.parts.has(numberingPath))
        addPart(mainRels, types, REL.numbering, numberingPath, CONTENT_TYPE.numbering);
    }
  }

  // Footnotes: the template's separators (and notes its kept text refers to), then ours with ids past them.
  if (hasNotes && genFootnotes) {
    const footRelsPath = relsPath(footnotesPath);
    const footRels = new Relationships(template.parts.get(footRelsPath), footRelsPath);
    renameHyperlinks(ourNotes, hyperlinkIds(generatedRels('word/_rels/footnotes.xml.rels'), footRels, 'dwNoteLink'));
    if (footnotes) {
      appendFootnotes(footnotes, genFootnotes);
      if (footnoteBase > 0) shiftFootnoteReferences(tocNodes, footnoteBase);
    } else {
      footnotes = genFootnotes;
      addPart(mainRels, types, REL.footnotes, footnotesPath, CONTENT_TYPE.footnotes);
    }
    // Written below, once the styles are merged into it; set here so the part keeps its place in the zip.
    out.set(footnotesPath, '');
    if (footRels.changed) out.set(footRelsPath, footRels.toXml());
  }

  // Word comments (`comments: "word"`): docx's after the template's kept ones, their ids already past them.
  if (compiled.comments.length > 0)
    mergeComments(ready, template, generatedPart('word/comments.xml'), out, mainRels, types);

  // Styles docx refers to by fixed ids: the template's own when it has them by name, else added.
  const finalNotes = footnotes && hasNotes ? [footnotes] : [];
  const referenced = pointSupportStyles(template.styles, [...tocNodes, ...finalNotes]);
  for (const id of body.supportStyles) referenced.add(id);
  // The template's styles with those added depend on the set alone: parsed and written once per template and set.
  // Highlighted code's token styles (token-styles.ts) likewise, all of them once any is used.
  const tokens = compiled.tokenKinds.size > 0;
  // The front matter's language (`lang`) becomes the styles' default one (styles.ts setDocumentLanguage).
  const language = compiled.properties.language;
  const key = [
    ...SUPPORT_STYLE_IDS.filter((id) => referenced.has(id)),
    ...(tokens ? ['tokens'] : []),
    ...(language === undefined ? [] : [`lang=${language}`]),
  ].join(' ');
  let styles = ready.stylesWith.get(key);
  if (styles === undefined) {
    let part: XmlDocument | null | undefined;
    const open = () => (part === undefined ? (part = templatePart(siblingPath(main, 'styles.xml'))) : part);
    const supported = addSupportStyles(open, template.styles, referenced);
    const tokened = (tokens ? addTokenStyles(open, template.styles) : null) ?? supported;
    const added = (language === undefined ? null : setDocumentLanguage(open, wLang(language))) ?? tokened;
    styles = added ? encodeUtf8(serializePart(added)) : null;
    ready.stylesWith.set(key, styles);
    if (styles) ready.zipped.keep([styles]);
  }
  if (styles) out.set(siblingPath(main, 'styles.xml'), styles);
  if (hasNotes && footnotes) out.set(footnotesPath, serializePart(footnotes));

  declareNamespaces(
    document,
    body.segments.map((segment, k) => ({ at: places[k] ?? marker, used: segment.used })),
  );
  body.fill(declaredOn(document.documentElement ?? document.createElement('x')));
  out.set(
    main,
    documentText(
      document,
      places,
      body.segments.map((segment) => segment.text),
    ),
  );
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
  return zipParts(out, 6, ready.zipped);
}

/**
 * docx's parts for our content (docx-pieces.ts: a long body laid out in pieces). A long document's docx objects (55 MB
 * at 1.2 MB of markdown) need not outlive what they write: `compiled` lets go of them.
 */
async function docxPartsOf(
  compiled: CompiledDocument,
  created: Date,
  pieceBlocks: number | undefined,
): Promise<{ parts: Map<string, Uint8Array | string>; noteCount: number }> {
  const content = {
    children: compiled.children,
    starts: compiled.starts,
    numbering: compiled.numbering,
    footnotes: compiled.footnotes,
    comments: compiled.comments.map((comment) => wordComment(comment, created)),
  };
  const noteCount = Object.keys(compiled.footnotes).length;
  compiled.children = [];
  compiled.starts = new Set();
  compiled.footnotes = {};
  return { parts: await docxContentParts(content, pieceBlocks), noteCount };
}

/**
 * Puts our comments into the template's comments part (its own left as `prepare` kept them), or, where it has none,
 * docx's part with its relationship and content type.
 */
function mergeComments(
  ready: Prepared,
  template: Template,
  generated: XmlDocument | null,
  out: Map<string, Uint8Array | string>,
  rels: Relationships,
  types: ContentTypes,
): void {
  const genRoot = generated?.documentElement;
  if (!generated || !genRoot) throw new Error('docx wrote no comments part');
  const path = siblingPath(template.mainPart, 'comments.xml');
  const source = ready.fixed.get(path) ?? template.parts.get(path);
  if (source === undefined) {
    out.set(path, serializePart(generated));
    addPart(rels, types, REL.comments, path, CONTENT_TYPE.comments);
    return;
  }
  const merged = parsePart(source, path);
  const root = merged.documentElement;
  if (!root) throw new Error('the template comments part has no root');
  for (const comment of children(genRoot).filter((c) => isW(c, 'comment'))) root.appendChild(adopt(merged, comment));
  declareNamespaces(merged);
  out.set(path, serializePart(merged));
}

/** The first id free for our comments: past the template's comments its kept body anchors (0 when it has none). */
export function templateCommentBase(template: Template): number {
  return prepare(template).commentIdBase;
}

/** The author a comment from the markdown is shown under (the markdown names none). */
export const COMMENT_AUTHOR = { author: 'Markdown', initials: 'MD' } as const;

/** A comment's text as Word comment (dated `created`): a paragraph per stretch between blank lines, its lines apart. */
function wordComment(comment: WordComment, created: Date): ICommentOptions {
  const children = comment.text.split(/\n[ \t]*\n\s*/).map(
    (paragraph) =>
      new Paragraph({
        children: paragraph
          .split('\n')
          .map((line, k) => new TextRun({ text: docxText(line.trim()), ...(k > 0 ? { break: 1 } : {}) })),
      }),
  );
  return { id: comment.id, ...COMMENT_AUTHOR, date: created, children };
}

/** The main document's text: the template's document with our body's stretches at their places. */
function documentText(document: XmlDocument, places: readonly Node[], texts: readonly string[]): string {
  const pieces = serializeAroundAll(document, places);
  if (!pieces) throw new Error('the template document could not be written');
  const body = places[0]?.parentNode;
  // A body with nothing in it is written closed at once (as a DOM of it is).
  if (body && texts.every((t) => t === '') && children(body).length === 0) {
    for (const place of places) body.removeChild(place);
    return serializePart(document);
  }
  const out: string[] = [];
  pieces.forEach((piece, k) => {
    out.push(piece);
    if (k < texts.length) out.push(texts[k] ?? '');
  });
  return withDeclaration(out.join(''));
}

/** w:lang's attributes for a BCP 47 tag (val, and eastAsia or bidi where Word reads those: compile/state.ts). */
function wLang(tag: string): Record<string, string> {
  const { value, eastAsia, bidirectional } = runLanguage(tag);
  return { val: value, ...(eastAsia ? { eastAsia } : {}), ...(bidirectional ? { bidi: bidirectional } : {}) };
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

/**
 * Adds docx's hyperlink relationships to the template part's with ids of our own, one per distinct target (docx writes
 * one per link, so a URL linked N times would be written N times); returns docx's ids → ours.
 */
function hyperlinkIds(
  generatedRels: readonly GeneratedRelationship[],
  rels: Relationships,
  prefix: string,
): Map<string, string> {
  const renamed = new Map<string, string>();
  const byTarget = new Map<string, string>();
  for (const rel of generatedRels) {
    if (rel.type !== REL.hyperlink) continue;
    let id = byTarget.get(rel.target);
    if (id === undefined) {
      id = rels.add(REL.hyperlink, rel.target, { external: true, prefix });
      byTarget.set(rel.target, id);
    }
    renamed.set(rel.id, id);
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
