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
import { mergeDocument, templateBody, type TemplateBody } from './document.ts';
import { children, isW, parseGeneratedPart, parsePart, serializePart, wAttr, wChild } from './dom.ts';
import { mergeFootnotes, pruneNotes } from './footnotes.ts';
import { moveMedia } from './media.ts';
import { declareNamespaces, NS } from './namespaces.ts';
import { mergeNumbering } from './numbering.ts';
import { REL, Relationships } from './relationships.ts';
import { repairSettings } from './settings.ts';
import { supportStyles } from './styles.ts';
import { fillTitleFields, titleFieldsIn } from './title-fields.ts';
import { findToc, offsetBookmarkIds, requestFieldUpdate, tocShell, writeToc } from './toc.ts';
import { compileParts, zipParts } from './zip.ts';

export { compileParts, zipParts } from './zip.ts';

/** What the packaging reads of a template, worked out once per template (templates are reused across conversions). */
interface Prepared {
  /** The body, made ready for merges. */
  body: TemplateBody;
  /** The styles part, parsed, read only (a merger that adds to it parses its own copy). */
  styles: XmlDocument | null;
  /** Parts that change whatever the content (the template's own notes and comments left out, settings repaired). */
  fixed: Map<string, string>;
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
  const fixed = new Map<string, string>();
  const footnotes = open(siblingPath(main, 'footnotes.xml'));
  if (footnotes && pruneNotes(footnotes, 'footnote', body.kept.footnotes))
    fixed.set(siblingPath(main, 'footnotes.xml'), serializePart(footnotes));
  const endnotes = open(siblingPath(main, 'endnotes.xml'));
  if (endnotes && pruneNotes(endnotes, 'endnote', body.kept.endnotes))
    fixed.set(siblingPath(main, 'endnotes.xml'), serializePart(endnotes));
  const comments = open(siblingPath(main, 'comments.xml'));
  if (comments?.documentElement) {
    const before = children(comments.documentElement).length;
    if (pruneComments(comments, body.kept.comments) !== before)
      fixed.set(siblingPath(main, 'comments.xml'), serializePart(comments));
  }
  const settings = open(siblingPath(main, 'settings.xml'));
  if (settings && repairSettings(settings)) fixed.set(siblingPath(main, 'settings.xml'), serializePart(settings));
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
  };
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
export function packageDocument(template: Template, compiled: CompiledDocument, created: Date): Uint8Array {
  const generated = new Map(
    compileParts(
      new Document({
        numbering: compiled.numbering,
        footnotes: compiled.footnotes,
        sections: [{ children: compiled.children }],
      }),
    ),
  );
  const noteCount = Object.keys(compiled.footnotes).length;
  const release = optimisationsEnabled();
  // A long document's docx objects (55 MB at 1.2 MB of markdown) need not live beside the DOM of what they wrote.
  if (release) {
    compiled.children = [];
    compiled.footnotes = {};
  }
  const generatedPart = (path: string): XmlDocument | null => {
    const data = generated.get(path);
    return data === undefined ? null : parseGeneratedPart(data, path);
  };
  const templatePart = (path: string): XmlDocument | null => {
    const data = template.parts.get(path);
    return data === undefined ? null : parsePart(data, path);
  };
  const ready = prepare(template);
  const out = new Map<string, Uint8Array | string>([...template.parts, ...ready.fixed]);
  const main = template.mainPart;
  const mainRelsPath = relsPath(main);
  const mainRels = new Relationships(template.parts.get(mainRelsPath), mainRelsPath);
  const types = new ContentTypes(template.parts.get('[Content_Types].xml'));

  // Body and sections.
  const genDocument = generatedPart('word/document.xml');
  if (!genDocument) throw new Error('docx wrote no document part');
  // Its text (5.3 M characters at 1.2 MB of markdown) is in the DOM now.
  if (release) generated.delete('word/document.xml');
  const { document, content, kept } = mergeDocument(ready.body, genDocument);
  // The template's title block places, in its kept body (never in our content) and its headers and footers.
  const ours = new Set<Element>(content);
  const merged = document.documentElement ? wChild(document.documentElement, 'body') : undefined;
  if (merged)
    fillTitleFields(
      children(merged).filter((c) => !ours.has(c)),
      compiled.titleValues,
    );
  for (const path of ready.titleFieldParts) {
    const part = templatePart(path);
    if (part?.documentElement && fillTitleFields(children(part.documentElement), compiled.titleValues))
      out.set(path, serializePart(part));
  }
  const genMainRels = generatedPart('word/_rels/document.xml.rels');
  moveHyperlinks(genMainRels, mainRels, content, 'dwLink');
  moveMedia(generated, genMainRels, mainRels, types, out, main, content);
  offsetBookmarkIds(children(ready.body.body), content);
  if (compiled.toc) {
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
  const genFootnotes = generatedPart('word/footnotes.xml');
  const ourNotes = genFootnotes?.documentElement
    ? children(genFootnotes.documentElement).filter((n) => isW(n, 'footnote') && Number(wAttr(n, 'id')) > 0)
    : [];
  const hasNotes = noteCount > 0 && ourNotes.length > 0;

  // Lists: numbering instances appended with ids the template does not use.
  const numberingPath = siblingPath(main, 'numbering.xml');
  const stylesPath = siblingPath(main, 'styles.xml');
  const genNumbering = generatedPart('word/numbering.xml');
  if (genNumbering) {
    const numbering = mergeNumbering(
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
  const footnotesPath = siblingPath(main, 'footnotes.xml');
  let footnotes: XmlDocument | null = null;
  if (hasNotes && genFootnotes) {
    footnotes = templatePart(footnotesPath);
    if (footnotes) pruneNotes(footnotes, 'footnote', kept.footnotes);
    const footRelsPath = relsPath(footnotesPath);
    const footRels = new Relationships(template.parts.get(footRelsPath), footRelsPath);
    moveHyperlinks(generatedPart('word/_rels/footnotes.xml.rels'), footRels, ourNotes, 'dwNoteLink');
    if (footnotes) mergeFootnotes(footnotes, genFootnotes, content);
    else {
      footnotes = genFootnotes;
      addPart(mainRels, types, REL.footnotes, footnotesPath, CONTENT_TYPE.footnotes);
    }
    // Written below, once the styles are merged into it; set here so the part keeps its place in the zip.
    out.set(footnotesPath, optimisationsEnabled() ? '' : serializePart(footnotes));
    if (footRels.changed) out.set(footRelsPath, footRels.toXml());
  }

  // Styles docx refers to by fixed ids: the template's own when it has them by name, else added.
  const finalNotes = footnotes && hasNotes ? [footnotes] : [];
  const styles = supportStyles(() => templatePart(stylesPath), template.styles, [...content, ...finalNotes]);
  if (styles) out.set(stylesPath, serializePart(styles));
  if (hasNotes && footnotes) out.set(footnotesPath, serializePart(footnotes));

  declareNamespaces(document);
  out.set(main, serializePart(document));
  if (mainRels.changed) out.set(mainRelsPath, mainRels.toXml());

  // Document properties: a fresh core.xml.
  if (!template.parts.has('docProps/core.xml')) {
    const rootRels = new Relationships(template.parts.get('_rels/.rels'), '_rels/.rels');
    rootRels.add(REL.coreProperties, 'docProps/core.xml');
    out.set('_rels/.rels', rootRels.toXml());
    types.addOverride('/docProps/core.xml', CONTENT_TYPE.core);
  }
  out.set('docProps/core.xml', corePropertiesXml(compiled.properties, created));
  // A .dotx template gives a .docx document.
  types.mainAsDocument(`/${main}`);
  if (types.changed) out.set('[Content_Types].xml', types.toXml());
  return zipParts(out);
}

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
  if (!generatedRels?.documentElement) return;
  const renamed = new Map<string, string>();
  for (const rel of children(generatedRels.documentElement)) {
    if (rel.getAttribute('Type') !== REL.hyperlink) continue;
    renamed.set(
      rel.getAttribute('Id') ?? '',
      rels.add(REL.hyperlink, rel.getAttribute('Target') ?? '', { external: true, prefix }),
    );
  }
  if (renamed.size === 0) return;
  const stack = [...nodes];
  for (let el = stack.pop(); el; el = stack.pop()) {
    const id = el.getAttributeNS(NS.r, 'id');
    const to = id ? renamed.get(id) : undefined;
    if (to !== undefined) el.setAttributeNS(NS.r, `${el.lookupPrefix(NS.r) ?? 'r'}:id`, to);
    // One push per child: spreading a wide element's children into one call overflows the stack.
    for (const child of children(el)) stack.push(child);
  }
}
