import { Document, Packer } from 'docx';
import { zipSync, type Zippable } from 'fflate';
import type { CompiledDocument, DocumentProperties } from './compile/index.ts';
import { relsPath, siblingPath, type Template } from './template/read.ts';
import { findStyle } from './template/styles.ts';
import { decodeUtf8, encodeUtf8, escapeXml, rootNamespaces } from './xml.ts';

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const HYPERLINK_REL = `${REL}/hyperlink`;
const MAIN_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
const CONTENT_TYPES = {
  numbering: 'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml',
  footnotes: 'application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml',
  core: 'application/vnd.openxmlformats-package.core-properties+xml',
};
/** Fixed zip timestamp, so the same input gives the same bytes. */
const ZIP_MTIME = new Date('2000-01-01T00:00:00Z');

/** Styles that docx refers to by fixed ids, with the Word name to find them by in the template and a definition
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

type Compiled = ReadonlyMap<string, string | Uint8Array>;
interface DocxCompiler {
  compile(file: Document): Compiled;
}

/**
 * Lays the document out with docx, in memory. docx's Packer would deflate every part only for us to inflate them
 * again, so its compiler (the part map Packer zips, in docx ≥ 9.15) is used directly; a test pins this.
 */
export function compileParts(doc: Document): Compiled {
  const compiler = (Packer as unknown as { compiler?: DocxCompiler }).compiler;
  if (!compiler || typeof compiler.compile !== 'function') throw new Error('This docx version has no Packer.compiler; Docwright needs docx 9.15 or later.');
  return compiler.compile(doc);
}

function text(parts: Compiled, path: string): string | null {
  const value = parts.get(path);
  if (value === undefined) return null;
  return typeof value === 'string' ? value : decodeUtf8(value);
}

/** Writes the compiled content into the template: everything of the template is kept but the body's content. */
export function packageDocument(template: Template, compiled: CompiledDocument, created: Date): Uint8Array {
  const doc = new Document({
    numbering: compiled.numbering,
    footnotes: compiled.footnotes,
    sections: [{ children: compiled.children }],
  });
  const generated = compileParts(doc);
  const out = new Map<string, Uint8Array | string>(template.parts);
  const main = template.mainPart;
  const mainRelsPath = relsPath(main);
  let mainRels = partText(template, mainRelsPath) ?? emptyRels();
  let contentTypes = partText(template, '[Content_Types].xml') ?? '';

  const genDocument = text(generated, 'word/document.xml') ?? '';
  let body = bodyContent(genDocument);

  // Hyperlinks: the body's relationships, renumbered past the template's.
  const docRels = mergeHyperlinks(mainRels, text(generated, 'word/_rels/document.xml.rels'), body, 'dwLink');
  mainRels = docRels.rels;
  body = docRels.part;

  // Lists: numbering definitions appended with ids the template does not use.
  const numberingPath = siblingPath(main, 'numbering.xml');
  const genNumbering = text(generated, 'word/numbering.xml');
  // Lists may stand in the body and inside footnotes: both refer to the same numbering part.
  let genFootnotes = text(generated, 'word/footnotes.xml') ?? '';
  if (genNumbering && (/<w:numId /.test(body) || /<w:numId /.test(genFootnotes))) {
    const merged = mergeNumbering(partText(template, numberingPath), genNumbering, [body, genFootnotes]);
    [body = body, genFootnotes = genFootnotes] = merged.parts;
    out.set(numberingPath, merged.numbering);
    if (!template.parts.has(numberingPath)) {
      mainRels = addRelationship(mainRels, `${REL}/numbering`, 'numbering.xml');
      contentTypes = addOverride(contentTypes, `/${numberingPath}`, CONTENT_TYPES.numbering);
    }
  }

  // Footnotes: appended to the template's (or a new part), with ids past the template's.
  const footnotesPath = siblingPath(main, 'footnotes.xml');
  const footnoteIds = Object.keys(compiled.footnotes);
  if (footnoteIds.length > 0) {
    const merged = mergeFootnotes(partText(template, footnotesPath), genFootnotes, body);
    body = merged.body;
    let footnotes = merged.footnotes;
    const footRelsPath = relsPath(footnotesPath);
    const footRels = mergeHyperlinks(partText(template, footRelsPath) ?? emptyRels(), text(generated, 'word/_rels/footnotes.xml.rels'), footnotes, 'dwNoteLink');
    footnotes = footRels.part;
    out.set(footnotesPath, footnotes);
    if (footRels.added > 0) out.set(footRelsPath, footRels.rels);
    if (!template.parts.has(footnotesPath)) {
      mainRels = addRelationship(mainRels, `${REL}/footnotes`, 'footnotes.xml');
      contentTypes = addOverride(contentTypes, `/${footnotesPath}`, CONTENT_TYPES.footnotes);
    }
  }

  // Styles docx refers to by fixed ids: the template's own when it has them by name, else added.
  const stylesPath = siblingPath(main, 'styles.xml');
  const notes = out.get(footnotesPath);
  const fixed = supportStyles(template, partText(template, stylesPath), typeof notes === 'string' ? [body, notes] : [body]);
  body = fixed.parts[0] ?? body;
  if (fixed.parts[1] !== undefined) out.set(footnotesPath, fixed.parts[1]);
  if (fixed.styles !== null) out.set(stylesPath, fixed.styles);

  out.set(main, `${withRootNamespaces(template.documentHead, genDocument, 'w:document')}${body}${template.documentTail}`);
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
  return zipParts(out);
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

/** The content of docx's w:body, without its own section properties. */
function bodyContent(documentXml: string): string {
  const open = documentXml.indexOf('<w:body>');
  const close = documentXml.lastIndexOf('</w:body>');
  if (open < 0 || close < 0) return '';
  let inner = documentXml.slice(open + '<w:body>'.length, close);
  const sect = inner.lastIndexOf('<w:sectPr');
  if (sect >= 0) inner = inner.slice(0, sect);
  return inner;
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

/** Moves docx's hyperlink relationships into the template's relationships, with ids of our own. */
function mergeHyperlinks(rels: string, generatedRels: string | null, part: string, prefix: string) {
  const links = relationships(generatedRels).filter((r) => r.type === HYPERLINK_REL);
  if (links.length === 0) return { rels, part, added: 0 };
  const taken = new Set(relationships(rels).map((r) => r.id));
  const renamed = new Map<string, string>();
  let entries = '';
  let n = 0;
  for (const link of links) {
    let id: string;
    do id = `${prefix}${++n}`;
    while (taken.has(id));
    renamed.set(link.id, id);
    entries += `<Relationship Id="${id}" Type="${HYPERLINK_REL}" Target="${link.target}" TargetMode="External"/>`;
  }
  const newPart = part.replace(/r:id="([^"]*)"/g, (m, old: string) => {
    const id = renamed.get(old);
    return id === undefined ? m : `r:id="${id}"`;
  });
  return { rels: rels.replace(/<\/Relationships>\s*$/, `${entries}</Relationships>`), part: newPart, added: links.length };
}

function maxId(xml: string | null, pattern: RegExp): number {
  let max = 0;
  if (xml) for (const m of xml.matchAll(pattern)) max = Math.max(max, Number(m[1]));
  return max;
}

/**
 * Appends docx's list definitions to the template's numbering with ids above the template's, and renumbers the
 * references in `parts` (the body, the footnotes) to match.
 */
function mergeNumbering(templateNumbering: string | null, generated: string, parts: string[]) {
  const abstractBase = maxId(templateNumbering, /<w:abstractNum\b[^>]*w:abstractNumId="(\d+)"/g);
  const numBase = maxId(templateNumbering, /<w:num\b[^>]*w:numId="(\d+)"/g);
  const usedNums = new Set(parts.flatMap((part) => [...part.matchAll(/<w:numId w:val="(\d+)"\/>/g)].map((m) => m[1])));
  const nums = [...generated.matchAll(/<w:num\b[^>]*w:numId="(\d+)"[^>]*>([\s\S]*?)<\/w:num>/g)].filter((m) => usedNums.has(m[1]));
  const usedAbstracts = new Set(nums.map((m) => /<w:abstractNumId w:val="(\d+)"/.exec(m[2] ?? '')?.[1]));
  const abstractIds = new Map<string, number>();
  let abstracts = '';
  for (const m of generated.matchAll(/<w:abstractNum\b[^>]*w:abstractNumId="(\d+)"[\s\S]*?<\/w:abstractNum>/g)) {
    const old = m[1] ?? '';
    if (!usedAbstracts.has(old)) continue;
    const id = abstractBase + abstractIds.size + 1;
    abstractIds.set(old, id);
    abstracts += m[0].replace(/w:abstractNumId="\d+"/, `w:abstractNumId="${id}"`);
  }
  const numIds = new Map<string, number>();
  let concrete = '';
  for (const m of nums) {
    const id = numBase + numIds.size + 1;
    numIds.set(m[1] ?? '', id);
    concrete += m[0]
      .replace(/w:numId="\d+"/, `w:numId="${id}"`)
      .replace(/<w:abstractNumId w:val="(\d+)"/, (_x, a: string) => `<w:abstractNumId w:val="${abstractIds.get(a) ?? a}"`);
  }
  const renumbered = parts.map((part) =>
    part.replace(/<w:numId w:val="(\d+)"\/>/g, (m, old: string) => {
      const id = numIds.get(old);
      return id === undefined ? m : `<w:numId w:val="${id}"/>`;
    }),
  );
  let numbering: string;
  if (templateNumbering === null) {
    const head = /^[\s\S]*?<w:numbering\b[^>]*>/.exec(generated)?.[0] ?? '<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">';
    numbering = `${head}${abstracts}${concrete}</w:numbering>`;
  } else {
    // Schema order: abstractNum*, num*, numIdMacAtCleanup?.
    numbering = insertBefore(templateNumbering, /<w:num\b|<w:numIdMacAtCleanup\b|<\/w:numbering>/, abstracts);
    numbering = insertBefore(numbering, /<w:numIdMacAtCleanup\b|<\/w:numbering>/, concrete);
    // The namespaces docx's definitions use (w15 for restartNumberingAfterBreak) must be declared there too.
    numbering = withRootNamespaces(numbering, generated, 'w:numbering');
  }
  return { numbering, parts: renumbered };
}

function insertBefore(xml: string, at: RegExp, insert: string): string {
  const m = at.exec(xml);
  if (!m) return xml;
  return xml.slice(0, m.index) + insert + xml.slice(m.index);
}

/** Appends the conversion's footnotes to the template's (keeping its separators), with ids past the template's. */
function mergeFootnotes(templateFootnotes: string | null, generated: string, body: string) {
  if (templateFootnotes === null) return { footnotes: generated, body };
  const base = maxId(templateFootnotes, /<w:footnote\b[^>]*w:id="(\d+)"/g);
  let notes = '';
  for (const m of generated.matchAll(/<w:footnote\b[^>]*w:id="(\d+)"[^>]*>[\s\S]*?<\/w:footnote>/g)) {
    const id = Number(m[1]);
    if (id <= 0) continue;
    notes += m[0].replace(/w:id="\d+"/, `w:id="${id + base}"`);
  }
  const newBody = base === 0 ? body : body.replace(/<w:footnoteReference w:id="(\d+)"\/>/g, (_m, id: string) => `<w:footnoteReference w:id="${Number(id) + base}"/>`);
  // The namespaces docx's notes use must be declared on the template's root too.
  const footnotes = withRootNamespaces(insertBefore(templateFootnotes, /<\/w:footnotes>\s*$/, notes), generated, 'w:footnotes');
  return { footnotes, body: newBody };
}

/** Adds to a template part's root element the namespace declarations docx's content uses and the part lacks. */
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

/** Zips a package, [Content_Types].xml first, with fixed timestamps (same parts, same bytes); images stored as they are. */
export function zipParts(parts: ReadonlyMap<string, Uint8Array | string>, level: 1 | 6 | 9 = 6): Uint8Array {
  const files: Zippable = {};
  const ordered = ['[Content_Types].xml', ...[...parts.keys()].filter((p) => p !== '[Content_Types].xml')];
  for (const path of ordered) {
    const data = parts.get(path);
    if (data === undefined) continue;
    files[path] = [typeof data === 'string' ? encodeUtf8(data) : data, { mtime: ZIP_MTIME, level: /\.(png|jpe?g|gif|odttf|ttf)$/i.test(path) ? 0 : level }];
  }
  return zipSync(files);
}
