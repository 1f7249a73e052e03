import type { CompiledDocument, DocumentProperties } from './compile/index.ts';
import { abstractNum, esc, footnotesPart, LINK_ID_MARKER, num, NUM_ID_MARKER, numberingPart, ROOTS, withFootnoteMark, type ListLevel } from './compile/ooxml.ts';
import { relsPath, siblingPath, type Template } from './template/read.ts';
import { findStyle } from './template/styles.ts';
import { zipEntries } from './zip-writer.ts';
import { decodeUtf8, escapeXml, rootNamespaces } from './xml.ts';

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const HYPERLINK_REL = `${REL}/hyperlink`;
const MAIN_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
const CONTENT_TYPES = {
  numbering: 'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml',
  footnotes: 'application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml',
  core: 'application/vnd.openxmlformats-package.core-properties+xml',
};

/** Styles the compiled markup refers to by fixed ids, with the Word name to find them by in the template and a definition
 * to add when the template has neither. */
const SUPPORT_STYLES = [
  {
    id: 'FootnoteReference',
    name: 'footnote reference',
    type: 'character',
    xml: '<w:style w:type="character" w:styleId="FootnoteReference"><w:name w:val="footnote reference"/><w:uiPriority w:val="99"/><w:unhideWhenUsed/><w:rPr><w:vertAlign w:val="superscript"/></w:rPr></w:style>',
  },
  {
    id: 'ListParagraph',
    name: 'List Paragraph',
    type: 'paragraph',
    xml: '<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:uiPriority w:val="34"/><w:qFormat/><w:pPr><w:ind w:left="720"/><w:contextualSpacing/></w:pPr></w:style>',
  },
] as const;

/** Writes the compiled content into the template: everything of the template is kept but the body's content. */
export function packageDocument(template: Template, compiled: CompiledDocument, created: Date): Uint8Array {
  const out = new Map<string, Uint8Array | string>(template.parts);
  const main = template.mainPart;
  const mainRelsPath = relsPath(main);
  let mainRels = partText(template, mainRelsPath) ?? emptyRels();
  let contentTypes = partText(template, '[Content_Types].xml') ?? '';

  let body = compiled.children.join('');
  const footnoteIds = [...compiled.footnotes.keys()].sort((a, b) => a - b);
  let notes = footnoteIds.map((id) => footnoteXml(id, compiled.footnotes.get(id) ?? [])).join('');

  // Hyperlinks: the relationships of the body's and the notes' links, with ids past the template's.
  const docLinks = addHyperlinks(mainRels, compiled.links.body, body, 'dwLink');
  mainRels = docLinks.rels;
  body = docLinks.part;

  // Lists: definitions appended to the template's numbering with ids it does not use; instances numbered in order.
  const numberingPath = siblingPath(main, 'numbering.xml');
  const numbered = numberLists(partText(template, numberingPath), compiled, body, notes);
  if (numbered) {
    body = numbered.body;
    notes = numbered.notes;
    out.set(numberingPath, numbered.numbering);
    if (!template.parts.has(numberingPath)) {
      mainRels = addRelationship(mainRels, `${REL}/numbering`, 'numbering.xml');
      contentTypes = addOverride(contentTypes, `/${numberingPath}`, CONTENT_TYPES.numbering);
    }
  }

  // Footnotes: appended to the template's (or a new part), with ids past the template's.
  const footnotesPath = siblingPath(main, 'footnotes.xml');
  if (footnoteIds.length > 0) {
    const merged = mergeFootnotes(partText(template, footnotesPath), notes, body);
    body = merged.body;
    let footnotes = merged.footnotes;
    const footRelsPath = relsPath(footnotesPath);
    const footRels = addHyperlinks(partText(template, footRelsPath) ?? emptyRels(), compiled.links.footnotes, footnotes, 'dwNoteLink');
    footnotes = footRels.part;
    out.set(footnotesPath, footnotes);
    if (footRels.added > 0) out.set(footRelsPath, footRels.rels);
    if (!template.parts.has(footnotesPath)) {
      mainRels = addRelationship(mainRels, `${REL}/footnotes`, 'footnotes.xml');
      contentTypes = addOverride(contentTypes, `/${footnotesPath}`, CONTENT_TYPES.footnotes);
    }
  }

  // Styles the compiler refers to by fixed ids: the template's own when it has them by name, else added.
  const stylesPath = siblingPath(main, 'styles.xml');
  const footnotesPart = out.get(footnotesPath);
  const fixed = supportStyles(template, partText(template, stylesPath), typeof footnotesPart === 'string' ? [body, footnotesPart] : [body]);
  body = fixed.parts[0] ?? body;
  if (fixed.parts[1] !== undefined) out.set(footnotesPath, fixed.parts[1]);
  if (fixed.styles !== null) out.set(stylesPath, fixed.styles);

  out.set(main, `${withRootNamespaces(template.documentHead, ROOTS.document, 'w:document')}${body}${template.documentTail}`);
  out.set(mainRelsPath, mainRels);

  // Document properties: a fresh core.xml (the template's author and dates belong to the template).
  const core = corePropertiesXml(compiled.properties, created);
  if (!template.parts.has('docProps/core.xml')) {
    contentTypes = addOverride(contentTypes, '/docProps/core.xml', CONTENT_TYPES.core);
    const rootRels = partText(template, '_rels/.rels') ?? emptyRels();
    out.set('_rels/.rels', addRelationship(rootRels, 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties', 'docProps/core.xml'));
  }
  out.set('docProps/core.xml', core);
  // A .dotx template gives a .docx document.
  contentTypes = contentTypes.replace(/(PartName="\/[^"]*"\s+ContentType=")application\/vnd\.openxmlformats-officedocument\.wordprocessingml\.template\.main\+xml/, `$1${MAIN_CONTENT_TYPE}`);
  out.set('[Content_Types].xml', contentTypes);
  return zipEntries([...orderedParts(out)].map(([path, data]) => ({ path, data })));
}

/** A footnote: its paragraphs, the first with the footnote mark. */
function footnoteXml(id: number, paragraphs: readonly string[]): string {
  const [first = '<w:p/>', ...rest] = paragraphs;
  return `<w:footnote w:id="${id}">${withFootnoteMark(first)}${rest.join('')}</w:footnote>`;
}

/** The parts in package order: [Content_Types].xml first, then as they come. */
function* orderedParts(parts: ReadonlyMap<string, Uint8Array | string>): Generator<[string, Uint8Array | string]> {
  const types = parts.get('[Content_Types].xml');
  if (types !== undefined) yield ['[Content_Types].xml', types];
  for (const entry of parts) if (entry[0] !== '[Content_Types].xml') yield entry;
}

/**
 * Points the style ids docx writes by itself (footnote reference, List Paragraph) at the template's styles of the
 * same Word name, or adds their definitions when the template has neither the name nor the id.
 */
function supportStyles(template: Template, styles: string | null, parts: string[]): { styles: string | null; parts: string[] } {
  let out = parts;
  let newStyles = styles;
  for (const support of SUPPORT_STYLES) {
    const reference = new RegExp(`(<w:(?:pStyle|rStyle) )w:val="${support.id}"`, 'g');
    if (!out.some((xml) => xml.search(reference) >= 0)) continue;
    const own = findStyle(template.styles, support.name);
    if (own && own.type === support.type) {
      const id = escapeXml(own.id);
      if (own.id !== support.id) out = out.map((xml) => xml.replace(reference, (_m, element: string) => `${element}w:val="${id}"`));
    } else if (newStyles !== null && !template.styles.some((s) => s.id === support.id)) {
      newStyles = newStyles.replace(/<\/w:styles>\s*$/, `${support.xml}</w:styles>`);
    }
  }
  return { styles: newStyles, parts: out };
}

function partText(template: Template, path: string): string | null {
  const bytes = template.parts.get(path);
  return bytes === undefined ? null : decodeUtf8(bytes);
}

function emptyRels(): string {
  return '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
}

function relationships(rels: string | null): { id: string; type: string; target: string; external: boolean }[] {
  if (!rels) return [];
  const out = [];
  for (const m of rels.matchAll(/<Relationship\b([^>]*)\/?>/g)) {
    const attrs = m[1] ?? '';
    const get = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1] ?? '';
    out.push({ id: get('Id'), type: get('Type'), target: get('Target'), external: get('TargetMode') === 'External' });
  }
  return out;
}

/** Adds an internal relationship with the first free `rIdN`. */
function addRelationship(rels: string, type: string, target: string): string {
  const ids = new Set(relationships(rels).map((r) => r.id));
  let n = ids.size + 1;
  while (ids.has(`rId${n}`)) n += 1;
  const entry = `<Relationship Id="rId${n}" Type="${type}" Target="${target}"/>`;
  return rels.replace(/<\/Relationships>\s*$/, `${entry}</Relationships>`);
}

/** Adds the relationships of a part's external links (their targets in order), with ids the part's rels do not use. */
function addHyperlinks(rels: string, targets: readonly string[], part: string, prefix: string) {
  if (targets.length === 0) return { rels, part, added: 0 };
  const taken = new Set(relationships(rels).map((r) => r.id));
  const ids: string[] = [];
  let entries = '';
  let n = 0;
  for (const target of targets) {
    let id: string;
    do id = `${prefix}${++n}`;
    while (taken.has(id));
    ids.push(id);
    entries += `<Relationship Id="${id}" Type="${HYPERLINK_REL}" Target="${esc(target)}" TargetMode="External"/>`;
  }
  const newPart = part.replace(LINK_ID_MARKER, (_m, index: string) => ids[Number(index)] ?? '');
  return { rels: rels.replace(/<\/Relationships>\s*$/, `${entries}</Relationships>`), part: newPart, added: targets.length };
}

function maxId(xml: string | null, pattern: RegExp): number {
  let max = 0;
  if (xml) for (const m of xml.matchAll(pattern)) max = Math.max(max, Number(m[1]));
  return max;
}

/**
 * Numbers the list instances the body and the notes use, in document order, with ids above the template's, and
 * appends their definitions (the used ones, in the order they were first used) to the template's numbering.
 */
function numberLists(templateNumbering: string | null, compiled: CompiledDocument, body: string, notes: string) {
  const order: number[] = [];
  const seen = new Set<number>();
  for (const part of [body, notes]) {
    for (const m of part.matchAll(NUM_ID_MARKER)) {
      const instance = Number(m[1]);
      if (!seen.has(instance)) {
        seen.add(instance);
        order.push(instance);
      }
    }
  }
  if (order.length === 0) return null;
  const abstractBase = maxId(templateNumbering, /<w:abstractNum\b[^>]*w:abstractNumId="(\d+)"/g);
  const numBase = maxId(templateNumbering, /<w:num\b[^>]*w:numId="(\d+)"/g);
  const referenceOf = new Map(compiled.listInstances.map((l) => [l.instance, l.reference]));
  const used = new Set(order.map((instance) => referenceOf.get(instance)));
  const abstractIds = new Map<string, number>();
  const levelsOf = new Map<string, ListLevel[]>();
  let abstracts = '';
  for (const list of compiled.lists) {
    if (!used.has(list.reference)) continue;
    const id = abstractBase + abstractIds.size + 1;
    abstractIds.set(list.reference, id);
    levelsOf.set(list.reference, list.levels);
    abstracts += abstractNum(id, list.levels);
  }
  const numIds = new Map<number, number>();
  let concrete = '';
  for (const instance of order) {
    const reference = referenceOf.get(instance) ?? '';
    const id = numBase + numIds.size + 1;
    numIds.set(instance, id);
    concrete += num(id, abstractIds.get(reference) ?? 0, levelsOf.get(reference) ?? []);
  }
  const renumber = (xml: string) => xml.replace(NUM_ID_MARKER, (_m, instance: string) => String(numIds.get(Number(instance)) ?? 0));
  let numbering: string;
  if (templateNumbering === null) numbering = numberingPart(abstracts + concrete);
  else {
    // Schema order: abstractNum*, num*, numIdMacAtCleanup?.
    numbering = insertBefore(templateNumbering, /<w:num\b|<w:numIdMacAtCleanup\b|<\/w:numbering>/, abstracts);
    numbering = insertBefore(numbering, /<w:numIdMacAtCleanup\b|<\/w:numbering>/, concrete);
    // The namespaces the definitions use (w15 for restartNumberingAfterBreak) must be declared there too.
    numbering = withRootNamespaces(numbering, ROOTS.numbering, 'w:numbering');
  }
  return { numbering, body: renumber(body), notes: renumber(notes) };
}

function insertBefore(xml: string, at: RegExp, insert: string): string {
  const m = at.exec(xml);
  if (!m) return xml;
  return xml.slice(0, m.index) + insert + xml.slice(m.index);
}

/** Appends the conversion's footnotes to the template's (keeping its separators), with ids past the template's. */
function mergeFootnotes(templateFootnotes: string | null, notes: string, body: string) {
  if (templateFootnotes === null) return { footnotes: footnotesPart(notes), body };
  const base = maxId(templateFootnotes, /<w:footnote\b[^>]*w:id="(\d+)"/g);
  const shifted = base === 0 ? notes : notes.replace(/<w:footnote w:id="(\d+)">/g, (_m, id: string) => `<w:footnote w:id="${Number(id) + base}">`);
  const newBody = base === 0 ? body : body.replace(/<w:footnoteReference w:id="(\d+)"\/>/g, (_m, id: string) => `<w:footnoteReference w:id="${Number(id) + base}"/>`);
  // The namespaces the notes use must be declared on the template's root too.
  const footnotes = withRootNamespaces(insertBefore(templateFootnotes, /<\/w:footnotes>\s*$/, shifted), ROOTS.footnotes, 'w:footnotes');
  return { footnotes, body: newBody };
}

/** Adds to a template part's root element the namespace declarations the compiler's markup uses and the part lacks. */
function withRootNamespaces(xml: string, generated: string, tag: string): string {
  const have = rootNamespaces(xml, tag);
  let extra = '';
  for (const [prefix, uri] of rootNamespaces(generated, tag)) if (prefix && !have.has(prefix)) extra += ` xmlns:${prefix}="${escapeXml(uri)}"`;
  return extra ? xml.replace(new RegExp(`<${tag}\\b`), (m) => `${m}${extra}`) : xml;
}

function addOverride(contentTypes: string, partName: string, type: string): string {
  if (contentTypes.includes(`PartName="${partName}"`)) return contentTypes;
  return contentTypes.replace(/<\/Types>\s*$/, `<Override PartName="${partName}" ContentType="${type}"/></Types>`);
}

/** docProps/core.xml with the front matter's properties. */
function corePropertiesXml(props: DocumentProperties, created: Date): string {
  const date = created.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const el = (tag: string, value: string | undefined) => (value === undefined ? '' : `<${tag}>${escapeXml(value)}</${tag}>`);
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    el('dc:title', props.title) +
    el('dc:subject', props.subject) +
    el('dc:creator', props.creator) +
    el('cp:keywords', props.keywords) +
    el('dc:description', props.description) +
    '<cp:lastModifiedBy>Docwright</cp:lastModifiedBy>' +
    `<dcterms:created xsi:type="dcterms:W3CDTF">${date}</dcterms:created>` +
    `<dcterms:modified xsi:type="dcterms:W3CDTF">${date}</dcterms:modified>` +
    '</cp:coreProperties>'
  );
}
