// The engine does not multiply its own work (security issue, item 4): one table of contents however many markers, a
// footnote compiled once however often it is referenced, the next free bookmark suffix remembered, and the Word XML a
// conversion writes bounded by its markdown (OutputTooLargeError, the API's document_too_complex).
import type { Root } from 'mdast';
import { describe, expect, it } from 'vitest';
import { AnchorIndex, MAX_BOOKMARK_NAME } from '../../server/convert/compile/anchors.ts';
import type { Anchor } from '../../server/convert/parse/html-anchors.ts';
import { toDocx } from '../../server/convert/compile/index.ts';
import { elementOptions } from '../../server/convert/element-options.ts';
import {
  convert,
  DEFAULT_RULES,
  defaultTemplateRead,
  OUTPUT_FACTOR,
  OutputTooLargeError,
  resolveStyles,
} from '../../server/convert/index.ts';
import { packageDocument } from '../../server/convert/package/index.ts';
import { parseMarkdown } from '../../server/convert/parse/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const created = new Date('2026-01-02T03:04:05Z');

/** Milliseconds FN takes, and what it returns. */
/** The time an asynchronous conversion takes, with its value. */
async function timedAsync<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

function timed<T>(fn: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = fn();
  return { ms: performance.now() - start, value };
}

const count = (text: string, needle: string): number => text.split(needle).length - 1;

describe('amplification', () => {
  it('writes one table of contents however many [TOC] markers, warning the second with its line', async () => {
    // 300 headings and 300 markers in 4.4 KB: each marker once got a whole TOC (90,000 entries, 23 s, 985 MB).
    const markdown = Array.from({ length: 300 }, (_, i) => `# Heading ${String(i)}\n\n[TOC]\n`).join('\n');
    const { ms, value: result } = await timedAsync(() => convert({ markdown, created }));
    const document = part(result.docx, 'word/document.xml');
    expect(count(document, 'TOC \\o')).toBe(1);
    // One entry per heading: the headings' bookmarks are linked once each (from the one TOC).
    expect(count(document, 'w:anchor="heading_')).toBe(300);
    expect(result.warningDetails).toContainEqual({
      warning: 'toc_repeated: a second table of contents marker is ignored (a document has one)',
      line: 7,
      count: 299,
    });
    expect(ms).toBeLessThan(5_000);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('compiles a footnote once however often it is referenced; later references are cross-references to it', async () => {
    // 2,000 references to a 10 KB note: each once made a copy of the note (a 20 MB footnotes part).
    const note = 'A long note. '.repeat(800);
    const markdown = `${'Text[^a] '.repeat(2_000)}\n\n[^a]: ${note}\n`;
    const { ms, value: result } = await timedAsync(() => convert({ markdown, created }));
    const footnotes = part(result.docx, 'word/footnotes.xml');
    const document = part(result.docx, 'word/document.xml');
    expect(count(footnotes, 'A long note.')).toBe(800);
    expect(footnotes.length).toBeLessThan(2 * note.length + 10_000);
    expect(count(document, '<w:footnoteReference ')).toBe(1);
    expect(count(document, 'NOTEREF _DocwrightNote1 \\f \\h')).toBe(1_999);
    expect(count(document, 'w:name="_DocwrightNote1"')).toBe(1);
    expect(result.warnings).toEqual([]);
    expect(ms).toBeLessThan(5_000);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('keeps a note referenced once exactly as before: no bookmark, no field', async () => {
    const result = await convert({ markdown: 'A claim[^1] and another[^2].\n\n[^1]: One.\n[^2]: Two.\n', created });
    const document = part(result.docx, 'word/document.xml');
    expect(count(document, '<w:footnoteReference ')).toBe(2);
    expect(document).not.toContain('_DocwrightNote');
    expect(document).not.toContain('NOTEREF');
  });

  it('names 20,000 anchors of one name in linear time, each name unique and within 40 characters', () => {
    // 20,000 `<a name="x">` once probed x_2, x_3, … from the start each time: 105 s in bookmarkName alone.
    const tree: Root = {
      type: 'root',
      children: Array.from({ length: 20_000 }, () => ({
        type: 'paragraph' as const,
        children: [{ type: 'anchor' as const, name: 'x' }],
      })),
    };
    const index = new AnchorIndex();
    const { ms } = timed(() => index.collect(tree));
    expect(ms).toBeLessThan(2_000);
    // Each anchor's bookmark as docx writes it: { 'w:bookmarkStart': { _attr: { 'w:name': … } } }.
    const names = tree.children.map((node) => {
      const anchor = (node as { children: Anchor[] }).children[0] as Anchor;
      const [start] = index.bookmark(anchor, []) as unknown as { prepForXml: (context: object) => unknown }[];
      const xml = start?.prepForXml({ stack: [] }) as { 'w:bookmarkStart': { _attr: { 'w:name': string } } };
      return xml['w:bookmarkStart']._attr['w:name'];
    });
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(20_000);
    expect(names[0]).toBe('x');
    expect(names[1]).toMatch(/^x_[0-9a-f]{8}$/);
    expect(names[2]).toBe(`${names[1] ?? ''}_2`);
    expect(names[19_999]).toBe(`${names[1] ?? ''}_19999`);
    expect(names.every((name) => name.length <= MAX_BOOKMARK_NAME && /^[A-Za-z]\w*$/.test(name))).toBe(true);
  });

  it(`refuses a document whose Word XML would be more than ${String(OUTPUT_FACTOR)} times its markdown`, async () => {
    // A table of 200 columns whose 200 rows are each one `|`: GFM pads every row to the header's columns, so 1 KB
    // of markdown is 40,000 cells (about 5 MB of XML).
    const columns = 200;
    const markdown = `${'|'.repeat(columns + 1)}\n${'|-'.repeat(columns)}|\n${'|\n'.repeat(columns)}`;
    let error: unknown;
    try {
      await convert({ markdown, created });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OutputTooLargeError);
    expect((error as Error).message).toMatch(
      /^the document would be [\d.]+ MB of Word XML, more than 500 times its markdown$/,
    );
  });

  // H2: each `[x][r]` once got a relationship of its own repeating the whole URL, and the bound counted only the main
  // part and the notes (140 KB of markdown wrote 407 MB of relationships, a 581 KB .docx).
  const longUrl = `https://example.com/${'a'.repeat(20_000)}`;
  const references = `${'[x][r] '.repeat(2_000)}\n\n[r]: ${longUrl}\n`;

  it('refuses links that would write their URL out of proportion to the markdown, in the body', async () => {
    const markdown = references;
    await expect(convert({ markdown, created })).rejects.toThrow(OutputTooLargeError);
  });

  it('refuses links that would write their URL out of proportion to the markdown, in a footnote', async () => {
    const markdown = `Text[^n].\n\n[^n]: ${references}`;
    await expect(convert({ markdown, created })).rejects.toThrow(OutputTooLargeError);
  });

  it('counts every part it writes against the bound, the numbering too, not only the body and the notes', async () => {
    // `1.` and `1)` lists alternating: each a list of its own, whose numbering outweighs its two short paragraphs.
    const markdown = '1. a\n1) a\n'.repeat(200);
    const compiled = () =>
      toDocx(parseMarkdown(markdown), {
        styles: resolveStyles(DEFAULT_RULES, defaultTemplateRead().styles).styles,
        textWidthTwips: 9000,
        options: elementOptions(DEFAULT_RULES),
      });
    const template = defaultTemplateRead();
    const docx = await packageDocument(template, compiled(), created);
    const body = part(docx, 'word/document.xml').length - (template.parts.get('word/document.xml')?.length ?? 0);
    const numbering = part(docx, 'word/numbering.xml').length;
    expect(numbering).toBeGreaterThan(body);
    // A bound the body alone keeps: the numbering is what passes it.
    await expect(packageDocument(template, compiled(), created, { limit: body + 1_000 })).rejects.toThrow(
      OutputTooLargeError,
    );
  });

  it('writes one relationship for a URL linked many times, in the body and in a note', async () => {
    const url = 'https://example.com/a/long/enough/address';
    const markdown = `${'[x][r] [y](https://example.com/other) '.repeat(50)}[^n]\n\n[^n]: ${'[z][r] '.repeat(20)}\n\n[r]: ${url}\n`;
    const result = await convert({ markdown, created });
    const rels = part(result.docx, 'word/_rels/document.xml.rels');
    const noteRels = part(result.docx, 'word/_rels/footnotes.xml.rels');
    expect(count(rels, url)).toBe(1);
    expect(count(rels, 'https://example.com/other')).toBe(1);
    expect(count(noteRels, url)).toBe(1);
    const document = part(result.docx, 'word/document.xml');
    expect(count(document, '<w:hyperlink ')).toBe(100);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});
