// docx's body as text: the content of its document.xml's w:body (most of a document's bytes) is never made a DOM. One
// linear scan copies it through, rewriting what the package step decides (relationship ids, drawing, bookmark and
// note ids, list ids, support styles, namespace declarations), and writes it as the DOM merge would have
// (package/serialize.ts over xmldom's reading of docx's text): docx's `&quot;` and `&apos;` where the serializer writes
// the character, xmldom's line ends, an empty element closed at once. docx's text has a known, regular shape (no
// comments, CDATA or processing instructions in the body, attributes in double quotes): anything else is an error.
import { SECTION_MARKERS, type SectionKind } from '../compile/sections.ts';
import { TOC_MARKER } from '../compile/toc.ts';
import type { SectionBreaks } from './sections.ts';

/** What the scan rewrites, decided before it from the other parts. */
export interface BodyRewrites {
  /** docx's hyperlink relationship ids → ours (r:id). */
  readonly links: ReadonlyMap<string, string>;
  /** docx's image relationship ids → ours (r:embed). */
  readonly embeds: ReadonlyMap<string, string>;
  /** The next drawing id (wp:docPr), when drawings are renumbered. */
  readonly nextDrawing: (() => number) | undefined;
  /** Note-mark placeholders (negative bookmark ids) → the bookmark's id, undefined: the bookmark goes. */
  readonly noteMarks: ReadonlyMap<number, number | undefined>;
  /** Added to every bookmark id (past the template's kept body's), when it has any. */
  readonly bookmarkOffset: number | undefined;
  /** Added to every footnote reference id (past the template's notes). */
  readonly footnoteBase: number;
  /** The support style ids docx writes (styles.ts) → the template's id for the same style, undefined: as it is. */
  readonly supportStyles: ReadonlyMap<string, string | undefined>;
  /**
   * The prefixes the final root binds (the template's root declarations): where one is bound to another namespace than
   * docx's, the serializer declares docx's on the body's first element that needs it (as it does over a DOM).
   */
  readonly rootDeclared: ReadonlyMap<string, string>;
  /** The body may hold TOC marker paragraphs (compile/toc.ts): each is cut out, the body split there. */
  readonly tocMarkers: boolean;
  /** The section breaks that replace landscape divs' marker paragraphs (compile/sections.ts); none: no such markers. */
  readonly sectionBreaks?: SectionBreaks | undefined;
}

/** No rewrites: docx's text only written as the serializer would write it. */
export const NO_REWRITES: BodyRewrites = {
  links: new Map(),
  embeds: new Map(),
  nextDrawing: undefined,
  noteMarks: new Map(),
  bookmarkOffset: undefined,
  footnoteBase: 0,
  supportStyles: new Map(),
  rootDeclared: new Map(),
  tocMarkers: false,
};

/** One stretch of the body between TOC markers. */
export interface BodySegment {
  /** Its text, once `fill` has run. */
  text: string;
  /** The namespaces it uses (prefix → URI), first use first. */
  readonly used: Map<string, string>;
  /** Its list paragraphs' numbering references, in order. */
  readonly sites: TextSite[];
}

/** The body rewritten: its segments, and what is decided once the whole document is known. */
export interface BodyText {
  /** The namespaces docx's document root declares. */
  readonly declared: ReadonlyMap<string, string>;
  readonly segments: BodySegment[];
  /** The support style ids the body refers to. */
  readonly supportStyles: Set<string>;
  /** Writes the segments' text, with each declaration below the root kept unless `root` declares the same. */
  fill(root: ReadonlyMap<string, string>): void;
  /** The section breaks written for landscape divs (sections.ts finishLanding). */
  readonly sectionBreaks: number;
  /** Whether a landscape div ends the body and its section break was left out (the last section turns instead). */
  readonly endsLandscape: boolean;
}

const ATTRIBUTE = / ([^\s=/>]+)="([^"]*)"/y;
/** A table look's flags and their bits in its w:val (ECMA-376 Part 1, 17.4.56, and Part 4's bit mask). */
const TABLE_LOOK_BITS: readonly (readonly [string, number])[] = [
  ['w:firstRow', 0x0020],
  ['w:lastRow', 0x0040],
  ['w:firstColumn', 0x0080],
  ['w:lastColumn', 0x0100],
  ['w:noHBand', 0x0200],
  ['w:noVBand', 0x0400],
];
const ON = new Set(['true', '1', 'on']);
const DECLARATION = / xmlns:([^\s=/>]+)="([^"]*)"/g;
const TEXT_SPECIAL = /&quot;|&apos;|[\r\u0085\u2028\u2029]/;
const ATTRIBUTE_SPECIAL = /&apos;|[\t\n\r\u0085\u2028\u2029]/;
const LINE_END = /\r[\n\u0085]?|[\u0085\u2028\u2029]/g;
const ANY_SPECIAL = /&quot;|&apos;|[\t\n\r\u0085\u2028\u2029]/;

/** Text as the serializer writes what xmldom read of docx's. */
const textValue = (text: string): string =>
  text.replaceAll('&quot;', '"').replaceAll('&apos;', "'").replace(LINE_END, '\n');
/** An attribute's value likewise (xmldom turns its white space into spaces). */
const attributeValue = (value: string): string =>
  value
    .replaceAll('&apos;', "'")
    .replace(LINE_END, '\n')
    .replace(/[\t\n\r]/g, ' ');

class Malformed extends Error {
  constructor(what: string) {
    super(`docx wrote a document body this package step does not read: ${what}`);
  }
}

/** The start and end of docx's body content (after <w:body>, before its final w:sectPr) and its root declarations. */
export function bodyBounds(xml: string): { from: number; to: number; declared: Map<string, string> } {
  const rootAt = xml.indexOf('<w:document');
  const rootEnd = xml.indexOf('>', rootAt);
  const open = xml.indexOf('<w:body>', rootEnd);
  const close = xml.lastIndexOf('</w:body>');
  if (rootAt < 0 || open < 0 || close < open) throw new Malformed('no w:body');
  const last = xml.lastIndexOf('<w:sectPr', close);
  const to = last > open ? last : close;
  const declared = new Map<string, string>();
  for (const [, prefix, uri] of xml.slice(rootAt, rootEnd).matchAll(DECLARATION)) declared.set(prefix ?? '', uri ?? '');
  return { from: open + '<w:body>'.length, to, declared };
}

/**
 * A numbering reference in the text (numbering.ts's NumberingSite): its values are pieces of the output, set when the
 * lists are merged.
 */
export class TextSite {
  numId: string | null = null;
  ilvl: string | null = null;
  numIdAt = -1;
  ilvlAt = -1;
  constructor(
    readonly styleId: string,
    private readonly out: string[],
  ) {}
  setNumId(value: string): void {
    if (this.numIdAt >= 0) this.out[this.numIdAt] = value;
  }
  setIlvl(value: string): void {
    if (this.ilvlAt >= 0) this.out[this.ilvlAt] = value;
  }
}

/** Rewrites docx's body content `xml[from, to)` (see the file's comment). */
export function rewriteBody(
  xml: string,
  declared: ReadonlyMap<string, string>,
  from: number,
  to: number,
  rw: BodyRewrites,
): BodyText {
  const special = ANY_SPECIAL.test(xml.slice(from, to));
  const segments: { out: string[]; used: Map<string, string>; sites: TextSite[] }[] = [];
  let out: string[] = [];
  let used = new Map<string, string>();
  let sites: TextSite[] = [];
  const declarations: { out: string[]; at: number; prefix: string; uri: string; text: string }[] = [];
  const supportStyles = new Set<string>();
  const names: string[] = [];
  /** The first style of the paragraph open at each depth. */
  const paragraphStyle: string[] = [];
  /** Declarations below the root in scope: prefix, URI, the depth they were made at. */
  const inner: { prefix: string; uri: string; depth: number }[] = [];
  let site: TextSite | undefined;
  let last = from;
  // A top-level paragraph, while TOC markers are looked for: where its output starts, whether it is a marker.
  let paragraphAt = -1;
  let marker = false;
  let sectionMarker: SectionKind | undefined;
  let afterLandscape = false;
  // Whether an element of ours is written at the top level yet (a landscape div first needs no section before it),
  // the section breaks written, and where the last one is in `out`.
  let ours = false;
  let breaks = 0;
  let breakAt = -1;
  let hasText = false;
  const markers = rw.tocMarkers || rw.sectionBreaks !== undefined;
  // The '>' of the last start tag, when nothing has been written since (an element closed at once is written `/>`).
  let openEnd = -1;
  const attrNames: string[] = [];
  const attrStarts: number[] = [];
  const attrEnds: number[] = [];
  const pending: (string | undefined)[] = [];

  const uriOf = (prefix: string): string => {
    for (let k = inner.length - 1; k >= 0; k--) if (inner[k]?.prefix === prefix) return inner[k]?.uri ?? '';
    const uri = declared.get(prefix);
    if (uri === undefined) throw new Malformed(`the prefix ${prefix} is not declared`);
    return uri;
  };
  const use = (name: string): void => {
    const colon = name.indexOf(':');
    if (colon < 0) return;
    const prefix = name.slice(0, colon);
    if (prefix === 'xml' || prefix === 'xmlns' || used.has(prefix)) return;
    used.set(prefix, uriOf(prefix));
  };
  /** Writes `value` in place of attribute k's. */
  const replace = (k: number, value: string): void => {
    out.push(xml.slice(last, attrStarts[k]), value);
    last = attrEnds[k] ?? last;
  };
  // Prefixes the root binds to another namespace than docx's.
  const conflicts = new Set(
    [...declared].filter(([p, uri]) => (rw.rootDeclared.get(p) ?? uri) !== uri).map(([p]) => p),
  );
  /** xmldom's serializer's needNamespaceDefine for a prefix of docx's (`uri` its namespace) where the scan stands. */
  const needsDefinition = (prefix: string, uri: string): boolean => {
    for (let k = inner.length - 1; k >= 0; k--) if (inner[k]?.prefix === prefix) return inner[k]?.uri !== uri;
    return true;
  };
  /** The declaration the serializer writes for `name`'s prefix, when the root binds it elsewhere; else undefined. */
  const definition = (name: string): string | undefined => {
    const colon = name.indexOf(':');
    if (colon < 0) return undefined;
    const prefix = name.slice(0, colon);
    if (!conflicts.has(prefix)) return undefined;
    const uri = uriOf(prefix);
    if (!needsDefinition(prefix, uri)) return undefined;
    inner.push({ prefix, uri, depth: names.length + 1 });
    return ` xmlns:${prefix}="${uri}"`;
  };
  const find = (name: string): number => attrNames.indexOf(name);
  const value = (k: number): string => xml.slice(attrStarts[k], attrEnds[k]);

  let i = from;
  while (i < to) {
    const lt = xml.indexOf('<', i);
    if (lt < 0 || lt >= to) {
      if (special && TEXT_SPECIAL.test(xml.slice(i, to))) {
        out.push(xml.slice(last, i), textValue(xml.slice(i, to)));
        last = to;
      }
      break;
    }
    if (lt > i) {
      openEnd = -1;
      if (special) {
        const text = xml.slice(i, lt);
        if (TEXT_SPECIAL.test(text)) {
          out.push(xml.slice(last, i), textValue(text));
          last = lt;
        }
      }
    }
    const gt = xml.indexOf('>', lt);
    if (gt < 0 || gt > to) throw new Malformed('an unclosed tag');
    i = gt + 1;
    const second = xml.charCodeAt(lt + 1);
    if (second === 47 /* / */) {
      const name = names.pop();
      while (inner.length > 0 && (inner.at(-1)?.depth ?? 0) > names.length) inner.pop();
      if (openEnd >= 0 && openEnd === lt - 1) {
        out.push(xml.slice(last, openEnd), '/>');
        last = gt + 1;
      }
      openEnd = -1;
      if (name === 'w:numPr') site = undefined;
      // A landscape section's break as the last element of the body so far (after it, a section before the next
      // landscape div would hold nothing: an empty page).
      const landscapeBefore = afterLandscape;
      if (names.length === 0) afterLandscape = false;
      const breaking = names.length === 0 && paragraphAt >= 0 && sectionMarker && !hasText && rw.sectionBreaks;
      if (names.length === 0 && !breaking) ours = true;
      if (names.length === 0 && paragraphAt >= 0) {
        if (marker && !hasText) {
          out.length = paragraphAt;
          last = gt + 1;
          segments.push({ out, used, sites });
          out = [];
          used = new Map();
          sites = [];
        } else if (breaking && sectionMarker) {
          // The marker paragraph becomes the section break (docx's prefixes: w, and r for header references); none
          // before a landscape div that starts the document's section, or follows another one at once.
          out.length = paragraphAt;
          last = gt + 1;
          if (sectionMarker === 'portrait' && landscapeBefore) afterLandscape = true;
          else if (sectionMarker === 'portrait' && !ours && breaking.dropLeading) afterLandscape = false;
          else {
            const first = breaks === 0;
            breakAt = out.length;
            out.push(
              sectionMarker === 'portrait'
                ? first
                  ? breaking.firstPortrait
                  : breaking.portrait
                : first
                  ? breaking.firstLandscape
                  : breaking.landscape,
            );
            breaks += 1;
            use('w:p');
            use('r:id');
            afterLandscape = sectionMarker === 'landscape';
          }
        }
        paragraphAt = -1;
      }
      continue;
    }
    if (second === 33 /* ! */ || second === 63 /* ? */) throw new Malformed('a comment, CDATA or instruction');
    const selfClosing = xml.charCodeAt(gt - 1) === 47;
    const tagEnd = selfClosing ? gt - 1 : gt;
    let nameEnd = lt + 1;
    for (let c = xml.charCodeAt(nameEnd); nameEnd < tagEnd && c !== 32; c = xml.charCodeAt(++nameEnd));
    const name = xml.slice(lt + 1, nameEnd);
    const depth = names.length;
    // The attributes.
    attrNames.length = 0;
    attrStarts.length = 0;
    attrEnds.length = 0;
    for (let at = nameEnd; at < tagEnd;) {
      ATTRIBUTE.lastIndex = at;
      const m = ATTRIBUTE.exec(xml);
      if (!m || m.index !== at) throw new Malformed(`the attributes of ${name}`);
      const attrName = m[1] ?? '';
      const start = at + 2 + attrName.length + 1;
      attrNames.push(attrName);
      attrStarts.push(start);
      attrEnds.push(start + (m[2]?.length ?? 0));
      at = ATTRIBUTE.lastIndex;
    }
    // Elements decided by their attributes: a note mark without a bookmark goes.
    let bookmarkId: string | undefined;
    let bookmarkAt = -1;
    if (name === 'w:bookmarkStart' || name === 'w:bookmarkEnd') {
      bookmarkAt = find('w:id');
      let id = bookmarkAt >= 0 ? Number(value(bookmarkAt)) : NaN;
      let changed = false;
      if (id < 0 && rw.noteMarks.has(id)) {
        const resolved = rw.noteMarks.get(id);
        if (resolved === undefined) {
          if (!selfClosing) throw new Malformed(`a ${name} with content`);
          out.push(xml.slice(last, lt));
          last = gt + 1;
          openEnd = -1;
          continue;
        }
        id = resolved;
        changed = true;
      }
      if (rw.bookmarkOffset !== undefined && bookmarkAt >= 0) {
        id += rw.bookmarkOffset;
        changed = true;
      }
      if (changed) bookmarkId = String(id);
      if (name === 'w:bookmarkStart' && paragraphAt >= 0 && depth === 1) {
        const n = find('w:name');
        if (n >= 0 && value(n) === TOC_MARKER) marker = true;
        else if (n >= 0 && value(n) === SECTION_MARKERS.portrait) sectionMarker = 'portrait';
        else if (n >= 0 && value(n) === SECTION_MARKERS.landscape) sectionMarker = 'landscape';
      }
    }
    if (depth === 0 && markers && name === 'w:p' && !selfClosing) {
      out.push(xml.slice(last, lt));
      last = lt;
      paragraphAt = out.length;
      marker = false;
      sectionMarker = undefined;
      hasText = false;
    }
    if (name === 'w:t') hasText = true;
    // Namespaces: the element's declarations first (they bind its prefix and its attributes').
    for (let k = 0; k < attrNames.length; k++) {
      const attr = attrNames[k] ?? '';
      if (attr.startsWith('xmlns:')) inner.push({ prefix: attr.slice(6), uri: value(k), depth: depth + 1 });
    }
    use(name);
    for (let k = 0; k < attrNames.length; k++) {
      const attr = attrNames[k] ?? '';
      if (!attr.startsWith('xmlns')) use(attr);
    }
    // What the attributes become, by index (undefined: as they are).
    pending.length = 0;
    let numberingSlot: 'numId' | 'ilvl' | undefined;
    let slotAt = -1;
    switch (name) {
      case 'w:hyperlink': {
        const k = find('r:id');
        const to = k >= 0 ? rw.links.get(value(k)) : undefined;
        if (to !== undefined) pending[k] = to;
        break;
      }
      case 'w:tblLook': {
        // docx writes a table look's flags as attributes (Word 2010's); LibreOffice reads only the older bit mask in
        // w:val: written beside them, the same flags.
        if (find('w:val') >= 0) break;
        let mask = 0;
        for (const [flag, bit] of TABLE_LOOK_BITS) {
          const k = find(flag);
          if (k >= 0 && ON.has(value(k))) mask |= bit;
        }
        out.push(xml.slice(last, nameEnd), ` w:val="${mask.toString(16).toUpperCase().padStart(4, '0')}"`);
        last = nameEnd;
        break;
      }
      case 'wp:docPr': {
        const k = find('id');
        if (k >= 0 && rw.nextDrawing) pending[k] = String(rw.nextDrawing());
        break;
      }
      case 'w:footnoteReference': {
        const k = find('w:id');
        if (k >= 0 && rw.footnoteBase > 0) pending[k] = String(Number(value(k)) + rw.footnoteBase);
        break;
      }
      case 'w:pStyle':
      case 'w:rStyle': {
        const k = find('w:val');
        if (k < 0) break;
        const style = value(k);
        if (name === 'w:pStyle' && depth >= 2 && names[depth - 1] === 'w:pPr' && names[depth - 2] === 'w:p')
          paragraphStyle[depth - 2] ||= style;
        if (rw.supportStyles.has(style)) {
          supportStyles.add(style);
          const to = rw.supportStyles.get(style);
          if (to !== undefined) pending[k] = to;
        }
        break;
      }
      case 'w:numPr': {
        const inParagraph = depth >= 2 && names[depth - 1] === 'w:pPr' && names[depth - 2] === 'w:p';
        const made = new TextSite(inParagraph ? (paragraphStyle[depth - 2] ?? '') : '', out);
        sites.push(made);
        site = selfClosing ? undefined : made;
        break;
      }
      case 'w:numId':
      case 'w:ilvl': {
        const k = find('w:val');
        if (!site || names[depth - 1] !== 'w:numPr' || k < 0) break;
        const kind = name === 'w:numId' ? 'numId' : 'ilvl';
        if (site[kind] !== null) break;
        site[kind] = value(k);
        pending[k] = site[kind] ?? '';
        numberingSlot = kind;
        slotAt = k;
        break;
      }
      default:
        for (let k = 0; k < attrNames.length; k++) {
          const attr = attrNames[k];
          const to =
            attr === 'r:id' ? rw.links.get(value(k)) : attr === 'r:embed' ? rw.embeds.get(value(k)) : undefined;
          if (to !== undefined) pending[k] = to;
        }
    }
    if (bookmarkId !== undefined) pending[bookmarkAt] = bookmarkId;
    for (let k = 0; k < attrNames.length; k++) {
      const attr = attrNames[k] ?? '';
      const start = attrStarts[k] ?? 0;
      const end = attrEnds[k] ?? 0;
      if (attr.startsWith('xmlns:')) {
        // Written once the root's declarations are known: only when the root does not declare the same.
        out.push(xml.slice(last, start - attr.length - 3));
        declarations.push({
          out,
          at: out.length,
          prefix: attr.slice(6),
          uri: value(k),
          text: ` ${attr}="${value(k)}"`,
        });
        out.push('');
        last = end + 1;
        continue;
      }
      if (conflicts.size > 0) {
        const defined = definition(attr);
        if (defined !== undefined) {
          const space = start - attr.length - 3;
          out.push(xml.slice(last, space), defined);
          last = space;
        }
      }
      const to = pending[k];
      if (to !== undefined) {
        replace(k, to);
        if (k === slotAt && site && numberingSlot) site[`${numberingSlot}At`] = out.length - 1;
      } else if (special) {
        const v = value(k);
        if (ATTRIBUTE_SPECIAL.test(v)) replace(k, attributeValue(v));
      }
    }
    if (conflicts.size > 0) {
      const defined = definition(name);
      if (defined !== undefined) {
        out.push(xml.slice(last, tagEnd), defined);
        last = tagEnd;
      }
    }
    if (name === 'w:p') paragraphStyle[depth] = '';
    if (selfClosing) {
      openEnd = -1;
      while (inner.length > 0 && (inner.at(-1)?.depth ?? 0) > depth) inner.pop();
      if (depth === 0) {
        ours = true;
        afterLandscape = false;
      }
    } else {
      names.push(name);
      openEnd = gt;
    }
  }
  out.push(xml.slice(last, to));
  // A landscape div last: its section is the document's last one (sections.ts finishLanding), no empty page after.
  const endsLandscape = afterLandscape && rw.sectionBreaks?.dropTrailing === true && breakAt >= 0;
  if (endsLandscape) {
    out[breakAt] = '';
    breaks -= 1;
  }
  segments.push({ out, used, sites });
  const result: BodySegment[] = segments.map((s) => ({ text: '', used: s.used, sites: s.sites }));
  return {
    declared,
    segments: result,
    supportStyles,
    sectionBreaks: breaks,
    endsLandscape,
    fill(root) {
      for (const d of declarations) d.out[d.at] = root.get(d.prefix) === d.uri ? '' : d.text;
      segments.forEach((s, k) => {
        const segment = result[k];
        if (segment) segment.text = s.out.join('');
      });
    },
  };
}
