// The checks the corpus test (and scripts/corpus-bench.ts) runs on every converted document: each takes the output
// package (and the template it came from) and returns null when it passes, else a short reason.
import { DOMParser, XMLSerializer, type Document as XmlDocument, type Element } from '@xmldom/xmldom';
import { strFromU8, unzipSync } from 'fflate';
import type { Nodes } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';
const HYPERLINK = `${R}/hyperlink`;

export type Parts = Record<string, Uint8Array>;

export const unzip = (bytes: Uint8Array): Parts => unzipSync(bytes);

const parsed = new WeakMap<Parts, Map<string, XmlDocument | null>>();

/** A part, parsed once per package (the checks only read it). */
function xml(parts: Parts, path: string): XmlDocument | null {
  let cache = parsed.get(parts);
  if (!cache) parsed.set(parts, (cache = new Map()));
  if (cache.has(path)) return cache.get(path) ?? null;
  const bytes = parts[path];
  const doc = bytes
    ? new DOMParser({ onError: () => undefined }).parseFromString(strFromU8(bytes).replace(/^\uFEFF/, ''), 'text/xml')
    : null;
  cache.set(path, doc);
  return doc;
}

function all(doc: XmlDocument | Element | null, ns: string, name: string): Element[] {
  if (!doc) return [];
  const list = doc.getElementsByTagNameNS(ns, name);
  const out: Element[] = [];
  for (let i = 0; i < list.length; i++) {
    const el = list.item(i);
    if (el) out.push(el);
  }
  return out;
}

const wval = (el: Element): string => el.getAttributeNS(W, 'val') ?? '';

/** The main document part, found through _rels/.rels. */
export function mainPart(parts: Parts): string {
  for (const rel of all(xml(parts, '_rels/.rels'), PKG, 'Relationship')) {
    if ((rel.getAttribute('Type') ?? '').endsWith('/officeDocument'))
      return (rel.getAttribute('Target') ?? '').replace(/^\//, '');
  }
  return 'word/document.xml';
}

function relsOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return `${path.slice(0, slash + 1)}_rels/${path.slice(slash + 1)}.rels`;
}

/** Word-like tokens of a text: runs of letters, marks and digits, case-folded. */
export function words(text: string): string[] {
  return (
    text
      .normalize('NFC')
      .toLowerCase()
      .match(/[\p{L}\p{M}\p{N}]+/gu) ?? []
  );
}

const mdProcessor = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ['yaml']);

/** Text a reader sees of a raw HTML snippet: tags, comments, scripts, styles and entities left out. */
function htmlText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[#\w]+;/g, ' ');
}

/** Each document is parsed once however many templates it goes through. */
const markdownCache = new Map<string, string[]>();

/** The visible words of a markdown document (text, code, the text of raw HTML; not front matter, URLs or definitions). */
export function markdownWords(markdown: string): string[] {
  const known = markdownCache.get(markdown);
  if (known) return known;
  const out: string[] = [];
  markdownCache.set(markdown, out);
  const stack: Nodes[] = [mdProcessor.parse(markdown)];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'text' || node.type === 'inlineCode' || node.type === 'code') out.push(...words(node.value));
    else if (node.type === 'html') out.push(...words(htmlText(node.value)));
    if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Nodes);
  }
  return out;
}

/** The visible words of a WordprocessingML part: w:t text, paragraph by paragraph (text boxes on their own). */
function partWords(doc: XmlDocument | null): string[] {
  const out: string[] = [];
  const walk = (el: Element, text: string[]): void => {
    const own = el.namespaceURI === W && el.localName === 'p' ? [] : text;
    if (el.namespaceURI === W && el.localName === 't') own.push(el.textContent ?? '');
    for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) walk(n as Element, own);
    if (own !== text) out.push(...words(own.join('')));
  };
  if (doc?.documentElement) walk(doc.documentElement, []);
  return out;
}

/** Share of the markdown's visible words found in the body and footnotes (each occurrence counted once). */
export function wordCoverage(markdown: string, parts: Parts): { ratio: number; missing: string[] } {
  const wanted = markdownWords(markdown);
  const main = mainPart(parts);
  const have = new Map<string, number>();
  for (const path of [main, main.replace(/[^/]*$/, 'footnotes.xml')])
    for (const w of partWords(xml(parts, path))) have.set(w, (have.get(w) ?? 0) + 1);
  let found = 0;
  const missing = new Map<string, number>();
  for (const w of wanted) {
    const n = have.get(w) ?? 0;
    if (n > 0) {
      found += 1;
      have.set(w, n - 1);
    } else missing.set(w, (missing.get(w) ?? 0) + 1);
  }
  const top = [...missing]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([w, n]) => `${w}×${n}`);
  return { ratio: wanted.length === 0 ? 1 : found / wanted.length, missing: top };
}

/** Every style, numbering instance and relationship id the parts use is defined (each folder, glossary too, by its own parts). */
export function idsDefined(parts: Parts): string | null {
  const problems: string[] = [];
  const main = mainPart(parts);
  const folders = new Set([
    main.replace(/[^/]*$/, ''),
    ...Object.keys(parts)
      .filter((p) => /\/document\.xml$/.test(p))
      .map((p) => p.replace(/[^/]*$/, '')),
  ]);
  for (const dir of folders) {
    const styleIds = new Set(
      all(xml(parts, `${dir}styles.xml`), W, 'style').map((s) => s.getAttributeNS(W, 'styleId') ?? ''),
    );
    const numbering = xml(parts, `${dir}numbering.xml`);
    const numIds = new Set(all(numbering, W, 'num').map((n) => n.getAttributeNS(W, 'numId') ?? ''));
    const abstractIds = new Set(
      all(numbering, W, 'abstractNum').map((n) => n.getAttributeNS(W, 'abstractNumId') ?? ''),
    );
    for (const num of all(numbering, W, 'num')) {
      for (const a of all(num, W, 'abstractNumId'))
        if (!abstractIds.has(wval(a)))
          problems.push(
            `${dir}numbering: num ${String(num.getAttributeNS(W, 'numId'))} → missing abstractNum ${wval(a)}`,
          );
    }
    for (const path of Object.keys(parts).filter(
      (p) => p.startsWith(dir) && p.endsWith('.xml') && !p.slice(dir.length).includes('/'),
    )) {
      const doc = xml(parts, path);
      if (!doc?.documentElement || doc.documentElement.namespaceURI !== W) continue;
      for (const name of ['pStyle', 'rStyle', 'tblStyle']) {
        for (const el of all(doc, W, name))
          if (!styleIds.has(wval(el))) problems.push(`${path}: ${name} ${wval(el)} undefined`);
      }
      for (const el of all(doc, W, 'numId')) {
        const v = wval(el);
        if (v !== '0' && !numIds.has(v)) problems.push(`${path}: numId ${v} undefined`);
      }
      const rels = new Set(all(xml(parts, relsOf(path)), PKG, 'Relationship').map((r) => r.getAttribute('Id') ?? ''));
      const stack: Element[] = doc.documentElement ? [doc.documentElement] : [];
      for (let el = stack.pop(); el; el = stack.pop()) {
        for (let i = 0; i < el.attributes.length; i++) {
          const a = el.attributes.item(i);
          if (a && a.namespaceURI === R && !rels.has(a.value))
            problems.push(`${path}: r:${String(a.localName)}="${a.value}" undefined`);
        }
        for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) stack.push(n as Element);
      }
    }
  }
  return problems.length === 0 ? null : [...new Set(problems)].slice(0, 6).join('; ');
}

const serialize = (el: Element): string => new XMLSerializer().serializeToString(el);

/** The template's styles, theme, headers, footers and section properties are all in the output. */
export function templateKept(template: Parts, out: Parts): string | null {
  const problems: string[] = [];
  const tMain = mainPart(template);
  const oMain = mainPart(out);
  const dir = tMain.replace(/[^/]*$/, '');
  const outStyles = new Set(
    all(xml(out, `${oMain.replace(/[^/]*$/, '')}styles.xml`), W, 'style').map(
      (s) => s.getAttributeNS(W, 'styleId') ?? '',
    ),
  );
  for (const s of all(xml(template, `${dir}styles.xml`), W, 'style')) {
    const id = s.getAttributeNS(W, 'styleId') ?? '';
    if (!outStyles.has(id)) problems.push(`style ${id} lost`);
  }
  for (const path of Object.keys(template)) {
    if (!/\/(theme\/theme\d*|header\d*|footer\d*)\.xml$/.test(path)) continue;
    const o = out[path];
    const t = template[path];
    if (!o || !t || Buffer.compare(Buffer.from(o), Buffer.from(t)) !== 0) problems.push(`${path} lost or changed`);
  }
  // The template's sections that stay (docs/templates.md: those with content of the template's own, and the one the
  // content lands in), in order, each with its properties and the headers and footers it showed in the template.
  const tSections = sectionsShowing(all(xml(template, tMain), W, 'sectPr'));
  const oSections = sectionsShowing(all(xml(out, oMain), W, 'sectPr'));
  let from = 0;
  for (const section of oSections) {
    const at = tSections.findIndex((t, k) => k >= from && t === section);
    if (at < 0) {
      problems.push(`sections: output section ${oSections.indexOf(section) + 1} is none of the template's, in order`);
      break;
    }
    from = at + 1;
  }
  if (oSections.length === 0) problems.push('sections: the output has none');
  return problems.length === 0 ? null : problems.slice(0, 6).join('; ');
}

/**
 * Each section's properties without its header and footer references, with the references it shows instead (its own,
 * else the nearest earlier section's, by header or footer and type), as text.
 */
function sectionsShowing(sections: Element[]): string[] {
  const shown = new Map<string, string>();
  return sections.map((sectPr) => {
    const copy = sectPr.cloneNode(true) as Element;
    for (const ref of [...all(copy, W, 'headerReference'), ...all(copy, W, 'footerReference')]) {
      shown.set(`${ref.localName ?? ''}:${ref.getAttributeNS(W, 'type') ?? ''}`, ref.getAttributeNS(R, 'id') ?? '');
      copy.removeChild(ref);
    }
    const refs = [...shown].sort(([a], [b]) => a.localeCompare(b)).map(([slot, id]) => `${slot}=${id}`);
    return `${serializeSection(copy)} ${refs.join(' ')}`;
  });
}

/** A section's properties without w:rsid attributes (revision marks are not properties). */
function serializeSection(sectPr: Element): string {
  const copy = sectPr.cloneNode(true) as Element;
  for (const name of ['rsidR', 'rsidRPr', 'rsidDel', 'rsidSect']) copy.removeAttributeNS(W, name);
  return serialize(copy).replace(/ xmlns(:\w+)?="[^"]*"/g, '');
}

/** No external relationship but hyperlinks. */
export function externalRelationships(parts: Parts): string | null {
  const problems: string[] = [];
  for (const path of Object.keys(parts).filter((p) => p.endsWith('.rels'))) {
    for (const rel of all(xml(parts, path), PKG, 'Relationship')) {
      if (rel.getAttribute('TargetMode') === 'External' && rel.getAttribute('Type') !== HYPERLINK)
        problems.push(
          `${path}: ${String(rel.getAttribute('Type')?.replace(/.*\//, ''))} → ${String(rel.getAttribute('Target'))}`,
        );
    }
  }
  return problems.length === 0 ? null : problems.slice(0, 4).join('; ');
}
