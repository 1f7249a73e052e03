// Links inside the document and the table of contents (issue 15 items 1-2), beyond the element fixtures
// (test/fixtures/elements/anchors-*, toc-*): bookmark naming rules, a template's own TOC reused or filled, settings.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DOMParser, XMLSerializer, type Element } from '@xmldom/xmldom';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { bookmarkName, MAX_BOOKMARK_NAME } from '../../server/convert/compile/anchors.ts';
import { convert, defaultTemplate } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const NTU = resolve(import.meta.dirname, '../../../shared/corpus/templates/ntu-dissertation-template.docx');
const created = new Date('2026-01-02T03:04:05Z');

const parse = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml');
const all = (root: Element | ReturnType<typeof parse>, name: string): Element[] =>
  Array.from(root.getElementsByTagNameNS(W, name));
const wAttr = (el: Element, name: string) => el.getAttributeNS(W, name) ?? '';

/** The "Table of Contents" content controls of a document. */
function tocControls(documentXml: string): Element[] {
  return all(parse(documentXml), 'sdt').filter((sdt) =>
    all(sdt, 'docPartGallery').some((g) => wAttr(g, 'val') === 'Table of Contents'),
  );
}

/** The TOC field's instruction and the entries (text → anchor) of a TOC control. */
function tocOf(sdt: Element): { instruction: string; entries: [string, string][]; texts: string[] } {
  const instruction = all(sdt, 'instrText')
    .map((t) => t.textContent ?? '')
    .find((t) => t.trim().startsWith('TOC'));
  const entries = all(sdt, 'hyperlink').map((h): [string, string] => [
    all(h, 't')
      .map((t) => t.textContent)
      .join(''),
    wAttr(h, 'anchor'),
  ]);
  return { instruction: (instruction ?? '').trim(), entries, texts: all(sdt, 't').map((t) => t.textContent ?? '') };
}

/** The bookmark names of a document's headings and anchors. */
function bookmarks(documentXml: string): string[] {
  return all(parse(documentXml), 'bookmarkStart').map((b) => wAttr(b, 'name'));
}

/** The NTU thesis template with a `{{content}}` paragraph after its TOC, so its TOC is kept where it stands. */
function ntuWithPlaceholder(): Uint8Array {
  const files = unzipSync(new Uint8Array(readFileSync(NTU)));
  const doc = parse(new TextDecoder().decode(files['word/document.xml']));
  const sdt = tocControls(new XMLSerializer().serializeToString(doc)).length
    ? all(doc, 'sdt').find((s) => all(s, 'docPartGallery').length > 0)
    : undefined;
  if (!sdt?.parentNode) throw new Error('the NTU template has no TOC control');
  const p = doc.createElementNS(W, 'w:p');
  const r = doc.createElementNS(W, 'w:r');
  const t = doc.createElementNS(W, 'w:t');
  t.appendChild(doc.createTextNode('{{content}}'));
  r.appendChild(t);
  p.appendChild(r);
  sdt.parentNode.insertBefore(p, sdt.nextSibling);
  files['word/document.xml'] = strToU8(new XMLSerializer().serializeToString(doc));
  return zipSync(files);
}

const MD =
  '---\ntoc: true\n---\n\n# Introduction\n\n## Background\n\n### Details\n\n# Results\n\nSee [background](#background).\n';

describe('bookmark names', () => {
  const valid = (name: string) =>
    name.length <= MAX_BOOKMARK_NAME && /^[A-Za-z][A-Za-z0-9_]*$/.test(name) ? name : `invalid: ${name}`;

  it('keep a readable slug, hyphens as underscores', () => {
    expect(bookmarkName('getting-started', new Set())).toBe('getting_started');
  });

  it('are valid Word names for any slug, the same every time', () => {
    for (const slug of ['语言无关', 'مقدمة-البرنامج', '1-getting-started', '', '-', 'a'.repeat(80), 'x-'.repeat(30)]) {
      const name = bookmarkName(slug, new Set());
      expect(valid(name)).toBe(name);
      expect(bookmarkName(slug, new Set())).toBe(name);
    }
  });

  it('are unique: slugs that map to the same name, and names differing only in case', () => {
    const taken = new Set<string>();
    const names = ['a-b', 'a_b', 'A-B', 'a-b'].map((slug) => {
      const name = bookmarkName(slug, taken);
      taken.add(name.toLowerCase());
      return name;
    });
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(4);
    for (const name of names) expect(valid(name)).toBe(name);
  });
});

describe('table of contents', () => {
  it('a document without toc or [TOC] gets no TOC and its settings are the template’s own', async () => {
    const result = await convert({ markdown: '# Title\n\n[TOC] is only text here.\n', created });
    const documentXml = part(result.docx, 'word/document.xml');
    expect(tocControls(documentXml)).toHaveLength(0);
    expect(documentXml).not.toContain('instrText');
    const template = unzipSync(defaultTemplate())['word/settings.xml'];
    expect(part(result.docx, 'word/settings.xml')).toBe(new TextDecoder().decode(template));
  });

  it('an Arabic heading’s TOC entry reads right to left (w:bidi, w:rtl); Latin entries stay as they are', async () => {
    const result = await convert({ markdown: '[TOC]\n\n# Summary\n\n# ملخص بالعربية\n', created });
    const [sdt] = tocControls(part(result.docx, 'word/document.xml'));
    const entries = sdt ? all(sdt, 'hyperlink').map((link) => link.parentNode as Element) : [];
    expect(entries).toHaveLength(2);
    const [latin, arabic] = entries.map((p) => ({ bidi: all(p, 'bidi').length, rtl: all(p, 'rtl').length }));
    expect(latin).toEqual({ bidi: 0, rtl: 0 });
    expect(arabic).toEqual({ bidi: 1, rtl: 1 });
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('toc: true asks Word to update fields on open (settings.xml, schema-valid)', async () => {
    const result = await convert({ markdown: MD, created });
    const settings = parse(part(result.docx, 'word/settings.xml'));
    expect(all(settings, 'updateFields').map((u) => wAttr(u, 'val'))).toEqual(['true']);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('a template whose TOC goes with its text: its TOC is the shell of ours (title kept, its levels, our entries)', async () => {
    const result = await convert({ markdown: MD, template: new Uint8Array(readFileSync(NTU)), created });
    const documentXml = part(result.docx, 'word/document.xml');
    const controls = tocControls(documentXml);
    expect(controls).toHaveLength(1);
    const toc = tocOf(controls[0] as Element);
    // The template's title and column heading stay, its instruction (levels 1-2) too; its old entries are gone.
    expect(toc.texts.slice(0, 2)).toEqual(['Table of Contents', 'Pages']);
    expect(toc.instruction).toBe('TOC \\o "1-2" \\h \\u');
    expect(toc.entries).toEqual([
      ['Introduction', 'introduction'],
      ['Background', 'background'],
      ['Results', 'results'],
    ]);
    for (const [, anchor] of toc.entries) expect(bookmarks(documentXml)).toContain(anchor);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('a template that keeps its TOC ({{content}} after it) has it filled, not a second one added', async () => {
    const template = ntuWithPlaceholder();
    const before = await convert({ markdown: '# Introduction\n', template, created });
    const untouched = tocOf(tocControls(part(before.docx, 'word/document.xml'))[0] as Element);
    // Without toc the template's TOC stays as the template has it.
    expect(untouched.entries[0]?.[1]).toMatch(/^_Toc/);

    const result = await convert({ markdown: MD, template, created });
    const documentXml = part(result.docx, 'word/document.xml');
    const controls = tocControls(documentXml);
    expect(controls).toHaveLength(1);
    expect(tocOf(controls[0] as Element).entries.map(([, a]) => a)).toEqual(['introduction', 'background', 'results']);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('a template TOC written as a bare field (no content control) is filled in place, its instruction kept', async () => {
    const files = unzipSync(defaultTemplate());
    const doc = parse(new TextDecoder().decode(files['word/document.xml']));
    const body = all(doc, 'body')[0];
    if (!body) throw new Error('the default template has no body');
    const paragraph = (...runs: Element[]) => {
      const p = doc.createElementNS(W, 'w:p');
      for (const r of runs) p.appendChild(r);
      return p;
    };
    const run = (name: string, attrs: Record<string, string> = {}, text?: string) => {
      const r = doc.createElementNS(W, 'w:r');
      const el = doc.createElementNS(W, `w:${name}`);
      for (const [k, v] of Object.entries(attrs)) el.setAttributeNS(W, `w:${k}`, v);
      if (text !== undefined) el.appendChild(doc.createTextNode(text));
      r.appendChild(el);
      return r;
    };
    const first = body.firstChild;
    body.insertBefore(
      paragraph(
        run('fldChar', { fldCharType: 'begin' }),
        run('instrText', {}, ' TOC \\o "1-2" \\h '),
        run('fldChar', { fldCharType: 'separate' }),
        run('t', {}, 'An old entry'),
      ),
      first,
    );
    body.insertBefore(paragraph(run('t', {}, 'Another old entry'), run('fldChar', { fldCharType: 'end' })), first);
    body.insertBefore(paragraph(run('t', {}, '{{content}}')), first);
    files['word/document.xml'] = strToU8(new XMLSerializer().serializeToString(doc));

    const result = await convert({ markdown: MD, template: zipSync(files), created });
    const documentXml = part(result.docx, 'word/document.xml');
    expect(tocControls(documentXml)).toHaveLength(0);
    expect(documentXml).not.toContain('old entry');
    const out = parse(documentXml).documentElement;
    if (!out) throw new Error('no document element');
    const toc = tocOf(out);
    expect(toc.instruction).toBe('TOC \\o "1-2" \\h');
    // The three entries, then the text's own link.
    expect(toc.entries.map(([, anchor]) => anchor)).toEqual(['introduction', 'background', 'results', 'background']);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('toc_depth set in the front matter overrides the template TOC’s levels', async () => {
    const markdown = MD.replace('toc: true', 'toc: true\ntoc_depth: 3');
    const result = await convert({ markdown, template: ntuWithPlaceholder(), created });
    const toc = tocOf(tocControls(part(result.docx, 'word/document.xml'))[0] as Element);
    expect(toc.instruction).toBe('TOC \\o "1-3" \\h \\z \\u');
    expect(toc.entries.map(([text]) => text)).toEqual(['Introduction', 'Background', 'Details', 'Results']);
  });

  it('bad toc values are warned and give no TOC', async () => {
    const result = await convert({ markdown: '---\ntoc: yes please\ntoc_depth: 12\n---\n\n# A\n', created });
    expect(result.warnings).toEqual([
      'invalid_front_matter: toc_depth must be a whole number from 1 to 9 (3 used)',
      'invalid_front_matter: toc must be true or false (no table of contents)',
    ]);
    expect(tocControls(part(result.docx, 'word/document.xml'))).toHaveLength(0);
  });
});

describe('long runs of HTML anchors', () => {
  // A legacy page's list of `<a name>` targets, one per line in one HTML block: hast-util-to-mdast's whitespace
  // minifying looks past every empty anchor and the whitespace after it for the next boundary, so such a run cost time
  // growing with its square (1,000 anchors: 5 s, 3,000: about a minute, past the server's conversion time limit).
  const run = (n: number, wrap: (i: number) => string) =>
    `<div>\n${Array.from({ length: n }, (_, i) => wrap(i)).join('\n')}\n</div>\n\nAfter the anchors.\n`;

  it('3,000 anchors in one HTML block convert, each a bookmark, in order', async () => {
    const result = await convert({ markdown: run(3000, (i) => `<a name="a${String(i)}"></a>`), created });
    const documentXml = part(result.docx, 'word/document.xml');
    expect(bookmarks(documentXml)).toEqual(Array.from({ length: 3000 }, (_, i) => `a${String(i)}`));
    expect(all(parse(documentXml), 't').map((t) => t.textContent)).toEqual(['After the anchors.']);
  }, 20_000);

  it('anchors wrapped in inline elements (Word’s HTML: <sup><a name>) and mixed with text keep text and places', async () => {
    const markdown = run(
      2000,
      (i) => `<span><a name="s${String(i)}"></a></span> <sup><a id="t${String(i)}"></a></sup>`,
    );
    const documentXml = part((await convert({ markdown, created })).docx, 'word/document.xml');
    expect(bookmarks(documentXml)).toEqual(
      Array.from({ length: 2000 }, (_, i) => [`s${String(i)}`, `t${String(i)}`]).flat(),
    );
    const mixed = await convert({ markdown: '<p>one <a name="x"></a> <a name="y"></a> two</p>\n', created });
    const xml = part(mixed.docx, 'word/document.xml');
    expect(bookmarks(xml)).toEqual(['x', 'y']);
    expect(
      all(parse(xml), 't')
        .map((t) => t.textContent)
        .join(''),
    ).toBe('one two');
  }, 20_000);
});
