// The parts the packaging finds beside the main part by their usual names (styles.xml, numbering.xml, …). A package
// may name them otherwise (OPC finds a part by its relationship, not its name: `word/lists.xml`, or
// `word/Numbering.xml` in another case); such a part is renamed to the usual name when the template is read, with
// its relationship, its own relationships part and its content type, so one part holds each role. Without this a
// list made the output a second numbering part and relationship (Word refuses it) and a styles part of another name
// was never read (the template's styles not applied).
import { ConvertInputError } from '../errors.ts';
import {
  allElements,
  decodeXmlPart,
  findPart,
  isExternal,
  isRelsPart,
  looksLikeXml,
  parseXml,
  relationships,
  relKind,
  relsPath,
  resolveTarget,
  serializeXmlPart,
  siblingPath,
} from './parts.ts';

/** Relationship types (their last segment) of the main part the packaging looks up by name, and that name. */
const ROLE_NAMES = new Map([
  ['styles', 'styles.xml'],
  ['numbering', 'numbering.xml'],
  ['footnotes', 'footnotes.xml'],
  ['endnotes', 'endnotes.xml'],
  ['comments', 'comments.xml'],
  ['settings', 'settings.xml'],
]);

/**
 * Renames, in `parts`, the main part's styles, numbering, notes, comments and settings parts to their usual names
 * beside it; returns a warning for each. Throws ConvertInputError when the usual name is another part's.
 */
export function renameRoleParts(parts: Map<string, Uint8Array>, mainPart: string): string[] {
  const mainRels = findPart(parts.keys(), relsPath(mainPart));
  const relsBytes = parts.get(mainRels);
  if (!relsBytes || !looksLikeXml(relsBytes)) return [];
  const rels = parseXml(decodeXmlPart(relsBytes), mainRels);
  const internal = relationships(rels).filter((rel) => !isExternal(rel));
  // Each relationship's target part, worked out once (a part another relationship names is never renamed).
  const targets = new Map(
    internal.map((rel) => [rel, findPart(parts.keys(), resolveTarget(mainPart, rel.getAttribute('Target') ?? ''))]),
  );
  const folder = siblingPath(mainPart, '');
  const renames: [from: string, to: string][] = [];
  for (const [rel, from] of targets) {
    const kind = relKind(rel.getAttribute('Type') ?? '');
    const name = ROLE_NAMES.get(kind);
    if (!name) continue;
    const to = siblingPath(mainPart, name);
    if (from === to || !parts.has(from)) continue;
    const refuse = (why: string): never => {
      throw new ConvertInputError(
        'template_invalid',
        `The template's ${kind} relationship names ${from}: ${why}. Save the template again from Word.`,
      );
    };
    // A part of its own beside the main part, as Word keeps it: never a relationships or content types part, the
    // main part, a part elsewhere, one another relationship names too, or a rename onto another part's name.
    const file = from.slice(folder.length);
    if (!from.startsWith(folder) || file.includes('/')) refuse(`a part outside ${folder || 'the package root'}`);
    if (isRelsPart(from) || from.toLowerCase() === '[content_types].xml' || from === mainPart)
      refuse('a part that holds something else');
    if ([...targets].some(([other, target]) => other !== rel && target === from))
      refuse('a part another relationship names');
    if (
      [...parts.keys(), ...renames.map(([, taken]) => taken)].some(
        (p) => p !== from && p.toLowerCase() === to.toLowerCase(),
      )
    )
      refuse(`and another part is named ${to}`);
    rel.setAttribute('Target', name);
    renames.push([from, to]);
  }
  if (renames.length === 0) return [];
  parts.set(mainRels, serializeXmlPart(rels));
  for (const [from, to] of renames) {
    const bytes = parts.get(from);
    if (bytes) parts.set(to, bytes);
    parts.delete(from);
    const ownRels = findPart(parts.keys(), relsPath(from));
    const ownRelsBytes = parts.get(ownRels);
    if (ownRelsBytes) {
      parts.delete(ownRels);
      parts.set(relsPath(to), ownRelsBytes);
    }
  }
  const typesName = findPart(parts.keys(), '[Content_Types].xml');
  const typesBytes = parts.get(typesName);
  if (typesBytes && looksLikeXml(typesBytes)) {
    const types = parseXml(decodeXmlPart(typesBytes), typesName);
    for (const el of allElements(types)) {
      if (el.localName !== 'Override') continue;
      const partName = (el.getAttribute('PartName') ?? '').toLowerCase();
      const renamed = renames.find(([from]) => `/${from}`.toLowerCase() === partName);
      if (renamed) el.setAttribute('PartName', `/${renamed[1]}`);
    }
    parts.set(typesName, serializeXmlPart(types));
  }
  return renames.map(([from, to]) => `template_part_renamed: ${from} → ${to}`);
}
