// Issue 15, acceptance 2: every `#anchor` link of the shared corpus documents whose target exists jumps there in the
// PDF LibreOffice makes; broken ones are warned. The corpus documents are converted, LibreOffice makes their PDFs in
// one call, and pdf.js reads each PDF's link annotations: every internal link must land on the page and line of the
// heading (or anchor) its hyperlink names in the document.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { parseMarkdown } from '../../server/convert/parse/index.ts';
import { libreOfficePdfs, part } from '../helpers/docx.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const CORPUS = resolve(import.meta.dirname, '../../../shared/corpus/docs');
/** The corpus documents with `#anchor` links (SOURCES.md): tables of contents, in-page references, CJK and Arabic. */
const DOCS = [
  'ripgrep-GUIDE',
  'github-general-privacy-statement',
  'fpb-books-zh',
  'fpb-courses-ar',
  'golang-proposal-43651-type-parameters',
  'awesome-readme',
];

/** Text compared without spaces (PDF text items split and join CJK and wrapped lines freely). */
const squash = (text: string) => text.replace(/\s+/g, '').normalize('NFKC');

interface Converted {
  name: string;
  warnings: string[];
  /** The `#` links of the markdown (mdast, so code and HTML text are not counted). */
  fragments: string[];
  /** The internal hyperlinks of the document: their text and the text of the paragraph their bookmark is in. */
  links: { text: string; target: string }[];
}

/** The `#fragment` link targets of a markdown document (links, and reference links through their definitions). */
function fragmentsOf(markdown: string): string[] {
  type Node = { type: string; url?: string; identifier?: string; children?: unknown[] };
  const nodes: Node[] = [];
  const stack = [parseMarkdown(markdown).tree as Node];
  for (let node = stack.pop(); node; node = stack.pop()) {
    nodes.push(node);
    for (const child of node.children ?? []) stack.push(child as Node);
  }
  const definitions = new Map<string, string>();
  for (const node of nodes.reverse())
    if (node.type === 'definition' && node.identifier) definitions.set(node.identifier.toLowerCase(), node.url ?? '');
  return nodes
    .map((node) =>
      node.type === 'link'
        ? node.url
        : node.type === 'linkReference'
          ? definitions.get(node.identifier?.toLowerCase() ?? '')
          : undefined,
    )
    .filter((url): url is string => url !== undefined && url.startsWith('#') && url.length > 1)
    .map((url) => url.slice(1));
}

function linksOf(documentXml: string): Converted['links'] {
  const doc = new DOMParser().parseFromString(documentXml, 'text/xml');
  const textOf = (el: Element) =>
    Array.from(el.getElementsByTagNameNS(W, 't'))
      .map((t) => t.textContent ?? '')
      .join('');
  const targets = new Map<string, string>();
  for (const b of Array.from(doc.getElementsByTagNameNS(W, 'bookmarkStart'))) {
    let p = b.parentNode as Element | null;
    while (p && p.localName !== 'p') p = p.parentNode as Element | null;
    if (p) targets.set(b.getAttributeNS(W, 'name') ?? '', textOf(p));
  }
  return (
    Array.from(doc.getElementsByTagNameNS(W, 'hyperlink'))
      // Internal links only: an external link's w:anchor is the fragment of its URL (`…#readme`).
      .filter((h) => h.getAttributeNS(W, 'anchor') && !h.hasAttributeNS(R, 'id'))
      .map((h) => ({ text: textOf(h), target: targets.get(h.getAttributeNS(W, 'anchor') ?? '') ?? '' }))
  );
}

interface PdfLink {
  /** The text under the link (unreadable where the machine lacks the script's fonts, as CJK may be). */
  text: string;
  /** The title of the heading in the PDF's outline its destination is, or undefined when it is none. */
  landing: string | undefined;
  page: number;
}

/**
 * A PDF's internal links and where each lands. LibreOffice writes the headings as the PDF's outline, titles as Unicode
 * strings (readable whatever fonts the machine has): a link lands on a heading when its destination is that outline
 * entry's (same page, same top within 3 points).
 */
async function pdfLinks(pdf: Uint8Array): Promise<PdfLink[]> {
  const doc = await getDocument({ data: pdf, verbosity: 0 }).promise;
  type Dest = [{ num: number; gen: number }, unknown, number, number];
  type Outline = { title: string; dest: unknown; items: Outline[] };
  const headings: { title: string; page: number; top: number }[] = [];
  const outline = [...(((await doc.getOutline()) as Outline[] | null) ?? [])];
  for (let entry = outline.pop(); entry; entry = outline.pop()) {
    outline.push(...entry.items);
    if (!Array.isArray(entry.dest)) continue;
    const [ref, , , top] = entry.dest as Dest;
    headings.push({ title: entry.title, page: await doc.getPageIndex(ref), top });
  }
  const out: PdfLink[] = [];
  for (let index = 0; index < doc.numPages; index++) {
    const page = await doc.getPage(index + 1);
    type Item = { str: string; transform: number[]; width: number };
    const content = (await page.getTextContent()) as unknown as { items: Item[] };
    const items = content.items.filter((i) => typeof i.str === 'string');
    const annotations = (await page.getAnnotations()) as {
      subtype: string;
      url?: string;
      dest?: unknown;
      rect: number[];
    }[];
    for (const a of annotations) {
      if (a.subtype !== 'Link' || a.url || !Array.isArray(a.dest)) continue;
      const [ref, , , top] = a.dest as Dest;
      const target = await doc.getPageIndex(ref);
      const [x1 = 0, y1 = 0, x2 = 0, y2 = 0] = a.rect;
      const under = items.filter((i) => {
        const [x = 0, y = 0] = [i.transform[4], i.transform[5]];
        return y >= y1 - 2 && y <= y2 && x + i.width > x1 + 1 && x < x2 - 1;
      });
      const landing = headings.find((h) => h.page === target && Math.abs(h.top - top) <= 3)?.title;
      out.push({ text: under.map((i) => i.str).join(''), landing, page: target });
    }
  }
  await doc.destroy();
  return out;
}

describe('internal links of the corpus in LibreOffice PDFs (issue 15, acceptance 2)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dw-links-'));
  const converted: Converted[] = [];
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  beforeAll(async () => {
    for (const name of DOCS) {
      const markdown = readFileSync(join(CORPUS, `${name}.md`), 'utf8');
      const result = await convert({ markdown, created: new Date('2026-01-02T03:04:05Z') });
      writeFileSync(join(dir, `${name}.docx`), result.docx);
      const links = linksOf(part(result.docx, 'word/document.xml'));
      converted.push({ name, warnings: result.warnings, fragments: fragmentsOf(markdown), links });
    }
    // One LibreOffice start for all documents (it is slow to start).
    await libreOfficePdfs(
      DOCS.map((name) => join(dir, `${name}.docx`)),
      dir,
      400_000,
    );
  }, 500_000);

  it('every #link is an internal hyperlink or a broken_anchor warning', () => {
    for (const doc of converted) {
      const broken = new Set(
        doc.warnings.filter((w) => w.startsWith('broken_anchor: #')).map((w) => w.slice('broken_anchor: #'.length)),
      );
      const linked = doc.fragments.filter((f) => !broken.has(f));
      expect(doc.links.length, doc.name).toBe(linked.length);
      for (const link of doc.links) expect(link.target, `${doc.name}: ${link.text}`).not.toBe('');
    }
    // The corpus has both: hundreds of working links, and fpb-books-zh's `[HTTP](#http)` names no heading.
    expect(converted.reduce((n, d) => n + d.links.length, 0)).toBeGreaterThan(150);
    expect(converted.find((d) => d.name === 'fpb-books-zh')?.warnings).toContain('broken_anchor: #http');
  });

  for (const name of DOCS) {
    it(`${name}: each link in the PDF lands on its heading`, async () => {
      const doc = converted.find((d) => d.name === name);
      if (!doc) throw new Error(`${name} was not converted`);
      const links = await pdfLinks(new Uint8Array(readFileSync(join(dir, `${name}.pdf`))));
      // A link wrapped over two lines is two annotations: at least one per hyperlink.
      expect(links.length).toBeGreaterThanOrEqual(doc.links.length);
      const targets = new Map<string, Set<string>>();
      for (const link of doc.links) {
        const set = targets.get(squash(link.text)) ?? new Set<string>();
        set.add(squash(link.target));
        targets.set(squash(link.text), set);
      }
      const allTargets = new Set(doc.links.map((l) => squash(l.target)));
      const reached = new Set<string>();
      for (const link of links) {
        const landing = squash(link.landing ?? '');
        // The link's own target when its text is readable and known, else any target some link names.
        const expected = targets.get(squash(link.text));
        const hit = [...(expected ?? allTargets)].find((target) => landing !== '' && target === landing);
        expect(hit, `${name}: "${link.text}" lands on "${String(link.landing)}" (page ${link.page + 1})`).toBeDefined();
        if (hit) reached.add(hit);
      }
      // Every target some link names is reached by one in the PDF.
      for (const target of allTargets) expect(reached.has(target), `${name}: nothing lands on "${target}"`).toBe(true);
    });
  }
});
