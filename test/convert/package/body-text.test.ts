// The body written as text (package/body-text.ts): docx's real document.xml is cut between its top-level body
// elements (so the whole body is never one DOM), and the templates it can write around are told from those the DOM
// merge must handle. That the bytes are the DOM merge's is test/convert/optimisations.test.ts's.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Document, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { describe, expect, it } from 'vitest';
import { defaultTemplate } from '../../../server/convert/index.ts';
import { parseSlice, sliceBody, templateShell } from '../../../server/convert/package/body-text.ts';
import { templateBody } from '../../../server/convert/package/document.ts';
import { parsePart } from '../../../server/convert/package/dom.ts';
import { compileParts } from '../../../server/convert/package/zip.ts';
import { readTemplate } from '../../../server/convert/template/read.ts';

const WP = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const TEMPLATES = join(import.meta.dirname, '../../../../shared/corpus/templates');

/** docx's document.xml for `children`. */
function documentXml(children: (Paragraph | Table)[]): string {
  const xml = compileParts(new Document({ sections: [{ children }] })).get('word/document.xml');
  if (typeof xml !== 'string') throw new Error('docx wrote no document.xml');
  return xml;
}

function shellOf(bytes: Uint8Array, declared: ReadonlyMap<string, string>) {
  const template = readTemplate(bytes);
  const main = template.parts.get(template.mainPart);
  if (main === undefined) throw new Error('no main part');
  return templateShell(templateBody(parsePart(main, template.mainPart)), declared);
}

describe('sliceBody', () => {
  it("cuts docx's document.xml between whole top-level elements, in slices, its section properties left out", () => {
    const paragraphs = Array.from(
      { length: 3000 },
      (_, i) => new Paragraph({ children: [new TextRun(`Paragraph ${String(i)} < & > "quoted" 'x'`)] }),
    );
    const table = new Table({
      rows: [new TableRow({ children: [new TableCell({ children: [new Paragraph('in a cell')] })] })],
    });
    const xml = documentXml([...paragraphs, table, new Paragraph('last')]);
    const sliced = sliceBody(xml);
    expect(sliced).toBeDefined();
    if (!sliced) return;
    expect(sliced.slices.length).toBeGreaterThan(1);
    expect(sliced.declared.get('w')).toBe('http://schemas.openxmlformats.org/wordprocessingml/2006/main');
    const start = xml.indexOf('<w:body>') + '<w:body>'.length;
    expect(sliced.slices.join('')).toBe(xml.slice(start, xml.length - '</w:body></w:document>'.length));
    const elements = sliced.slices.flatMap((slice) => parseSlice(sliced, slice));
    expect(elements.map((e) => e.tagName)).toEqual([...paragraphs.map(() => 'w:p'), 'w:tbl', 'w:p']);
    expect(elements[0]?.textContent).toBe(`Paragraph 0 < & > "quoted" 'x'`);
  });

  it('leaves a document.xml it cannot cut for sure to the DOM merge', () => {
    const xml = documentXml([new Paragraph('a'), new Paragraph('b')]);
    expect(sliceBody(xml)).toBeDefined();
    for (const odd of [
      xml.replace('<w:body>', '<w:body><!-- a comment -->'),
      xml.replace('<w:body>', '<w:body>text at the top'),
      xml.replace('<w:body>', '<w:body><?pi x?>'),
      xml.replace('<w:body>', '<w:body><w:p>'),
      xml.replace('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>', ''),
      xml.replace('</w:body></w:document>', '</w:body></w:document>\n'),
    ])
      expect(sliceBody(odd)).toBeUndefined();
  });
});

describe('templateShell', () => {
  const declared = sliceBody(documentXml([new Paragraph('a')]))?.declared ?? new Map<string, string>();

  it('writes around the built-in template and every corpus template', () => {
    expect(shellOf(defaultTemplate(), declared)).toBeDefined();
    const files = readdirSync(TEMPLATES).filter((f) => /\.(docx|dotx)$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files)
      expect(shellOf(new Uint8Array(readFileSync(join(TEMPLATES, file))), declared), file).toBeDefined();
  });

  it('leaves to the DOM merge a template with other prefixes or a prefix bound elsewhere', () => {
    const template = readTemplate(defaultTemplate());
    const bytes = template.parts.get(template.mainPart);
    if (!bytes) throw new Error('no main part');
    const main = new TextDecoder().decode(bytes);
    const body = (xml: string) => templateBody(parsePart(xml, 'word/document.xml'));
    expect(templateShell(body(main), declared)).toBeDefined();
    const prefixed = main
      .replaceAll('<w:', '<ns0:')
      .replaceAll('</w:', '</ns0:')
      .replaceAll(' w:', ' ns0:')
      .replaceAll('xmlns:w=', 'xmlns:ns0=');
    expect(templateShell(body(prefixed), declared)).toBeUndefined();
    const elsewhere = main.replace(`xmlns:wp="${WP}"`, 'xmlns:wp="urn:elsewhere"');
    expect(templateShell(body(elsewhere), declared)).toBeUndefined();
    // Nothing kept of the body (no section properties): the DOM merge writes an empty content's body as `<w:body/>`.
    const bare = parsePart(main, 'word/document.xml');
    const bareBody = bare.getElementsByTagNameNS(W, 'body').item(0);
    while (bareBody?.firstChild) bareBody.removeChild(bareBody.firstChild);
    expect(templateShell(templateBody(bare), declared)).toBeUndefined();
  });
});
