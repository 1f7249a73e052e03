// The body written as text straight from docx's objects (package/body-stream.ts): the same text as docx's XML read
// by xmldom and written by package/serialize.ts (the DOM merge's), the body left empty for docx's compile, the
// values decided later left as holes; and the templates it can write around, told from those the DOM merge must
// handle. That whole packages keep their bytes is test/convert/optimisations.test.ts's.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Bookmark,
  Document,
  ExternalHyperlink,
  FootnoteReferenceRun,
  ImageRun,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
  type FileChild,
} from 'docx';
import { describe, expect, it } from 'vitest';
import { toDocx } from '../../../server/convert/compile/index.ts';
import { elementOptions } from '../../../server/convert/element-options.ts';
import { DEFAULT_RULES, defaultTemplate, defaultTemplateRead, resolveStyles } from '../../../server/convert/index.ts';
import { packageDocument } from '../../../server/convert/package/index.ts';
import { parseMarkdown } from '../../../server/convert/parse/index.ts';
import { templateShell } from '../../../server/convert/package/body-text.ts';
import {
  docxDeclarations,
  lateText,
  StreamGaveUp,
  streamBody,
  streamedParts,
} from '../../../server/convert/package/body-stream.ts';
import { templateBody } from '../../../server/convert/package/document.ts';
import { parsePart } from '../../../server/convert/package/dom.ts';
import { serializeDocument } from '../../../server/convert/package/serialize.ts';
import { compileParts, docxCompiler } from '../../../server/convert/package/zip.ts';
import { readTemplate } from '../../../server/convert/template/read.ts';

const WP = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const TEMPLATES = join(import.meta.dirname, '../../../../shared/corpus/templates');
const PNG = new Uint8Array(readFileSync(join(import.meta.dirname, '../../fixtures/images/doc/img/small.png')));
const NO_SUPPORT = { supportStyle: () => undefined, supportStyleIds: [] };

/** Values docx and xmldom each change: control characters, line ends, quotes, entities, a `{` that is no placeholder. */
const AWKWARD = 'a\u0001b & <c> "d" \'e\' \r\n f\rg\u0085h\u2028i\u2029j\tk {not a key} {{x}} \u00e9 \ud83d\ude00';

function document(children: () => FileChild[]): Document {
  return new Document({
    numbering: {
      config: [{ reference: 'list', levels: [{ level: 0, format: 'decimal', text: '%1.', alignment: 'left' }] }],
    },
    footnotes: { 1: { children: [new Paragraph('note')] } },
    sections: [{ children: children() }],
  });
}

/** What the DOM merge writes for docx's body: its XML read by xmldom and written again, the section left out. */
function domBody(file: Document): string {
  const xml = compileParts(file).get('word/document.xml');
  if (typeof xml !== 'string') throw new Error('docx wrote no document.xml');
  const written = serializeDocument(parsePart(xml, 'word/document.xml'));
  return written.slice(written.indexOf('<w:body>') + '<w:body>'.length, written.lastIndexOf('<w:sectPr'));
}

/** The streamed body with every late value as docx decided it. */
function streamedBody(file: Document): string {
  const stream = streamBody(file, docxCompiler(), NO_SUPPORT);
  if (!stream) throw new Error('the writer gave up');
  for (const d of stream.innerDeclarations) d.set(d.text);
  for (const late of stream.late) late.set(lateText(late));
  return new TextDecoder().decode(stream.holes.fillUtf8('', stream.chunks, ''));
}

/** docx numbers drawings, bookmarks and hyperlink relationships from process-wide counters: compared in order. */
const normalised = (xml: string): string =>
  xml
    .replace(/(<wp:docPr id=")\d+/g, '$1#')
    .replace(/( r:id=")[^"]*/g, '$1#')
    .replace(/(<w:bookmark(?:Start|End)[^>]* w:id=")\d+/g, '$1#');

function everything(): FileChild[] {
  return [
    new Paragraph({ children: [new TextRun(AWKWARD)], style: 'Title' }),
    new Paragraph({
      children: [
        new ExternalHyperlink({ link: `https://example.com/?q=${AWKWARD}`, children: [new TextRun('a link')] }),
        new TextRun({ text: 'note', break: 1 }),
        new FootnoteReferenceRun(1),
        new Bookmark({ id: 'here', children: [new TextRun('marked')] }),
      ],
    }),
    new Paragraph({ text: 'item', numbering: { reference: 'list', level: 0 }, style: 'ListParagraph' }),
    new Paragraph({ text: 'item 2', numbering: { reference: 'list', level: 0, instance: 2 }, style: 'Heading1' }),
    new Paragraph({ children: [new ImageRun({ type: 'png', data: PNG, transformation: { width: 10, height: 10 } })] }),
    new Table({
      rows: [new TableRow({ children: [new TableCell({ children: [new Paragraph(AWKWARD)] })] })],
    }),
    ...Array.from({ length: 2000 }, (_, i) => new Paragraph(`Paragraph ${String(i)} < & > "quoted" 'x'`)),
  ];
}

describe('streamBody', () => {
  it("writes the text the DOM merge writes for docx's body, awkward values, links, notes, lists, images and tables", () => {
    const expected = normalised(domBody(document(everything)));
    expect(expected).toContain('<w:numId w:val="');
    expect(expected).toContain('r:embed="rId');
    expect(normalised(streamedBody(document(everything)))).toBe(expected);
  });

  it("leaves docx's body empty for its compile, with the images' relationships its compile would have added", () => {
    const file = document(everything);
    const stream = streamBody(file, docxCompiler(), NO_SUPPORT);
    expect(stream).toBeDefined();
    const parts = compileParts(file);
    const xml = String(parts.get('word/document.xml'));
    expect(xml.slice(xml.indexOf('<w:body>'), xml.indexOf('<w:sectPr'))).toBe('<w:body>');
    const rels = String(parts.get('word/_rels/document.xml.rels'));
    const [key, rId] = [...(stream?.imageIds ?? [])][0] ?? [];
    expect(key).toMatch(/\.png$/);
    expect(rels).toMatch(new RegExp(`Id="rId${String(rId)}" Type="[^"]*/image" Target="media/image1\\.png"`));
    // The late values: placeholders resolved, the rest as docx wrote them.
    const kinds = new Map<string, string[]>();
    for (const late of stream?.late ?? []) kinds.set(late.kind, [...(kinds.get(late.kind) ?? []), late.value]);
    expect(kinds.get('embed')).toEqual([`rId${String(rId)}`]);
    expect(kinds.get('footnote')).toEqual(['1']);
    expect(kinds.get('bookmark')?.length).toBe(2);
    expect(kinds.get('numId')).toEqual(['2', '3']);
    expect(kinds.get('ilvl')).toEqual(['0', '0']);
    expect(kinds.get('drawing')?.length).toBe(1);
    expect(kinds.get('link')?.length).toBe(1);
  });

  it("writes the parts the package step reads as docx's compile writes them, read by xmldom", () => {
    const file = new Document({
      numbering: {
        config: [{ reference: 'list', levels: [{ level: 0, format: 'decimal', text: '%1.', alignment: 'left' }] }],
      },
      footnotes: {
        1: {
          children: [
            new Paragraph({ text: AWKWARD, numbering: { reference: 'list', level: 0 } }),
            new Paragraph({
              children: [new ExternalHyperlink({ link: 'https://note.example/?a&b', children: [new TextRun('n')] })],
            }),
          ],
        },
      },
      sections: [{ children: everything() }],
    });
    expect(streamBody(file, docxCompiler(), NO_SUPPORT)).toBeDefined();
    const parts = streamedParts(file, docxCompiler(), true);
    const compiled = compileParts(file);
    const paths = [
      'word/_rels/document.xml.rels',
      'word/numbering.xml',
      'word/footnotes.xml',
      'word/_rels/footnotes.xml.rels',
    ];
    for (const path of paths) {
      const ours = parts?.documents.get(path);
      expect(ours, path).toBeDefined();
      if (!ours) continue;
      // docx's compile adds its font table (the template's stays), which the package step does not read.
      const docx = serializeDocument(parsePart(String(compiled.get(path)), path)).replace(
        /<Relationship [^>]*Target="fontTable\.xml"\/>/,
        '',
      );
      expect(serializeDocument(ours), path).toBe(docx);
    }
    expect(serializeDocument(parts?.documents.get('word/footnotes.xml') as never)).toContain('<w:numId w:val="');
    const media = [...compiled.keys()].filter((k) => k.startsWith('word/media/'));
    expect(media.length).toBe(1);
    for (const path of media) expect(parts?.media.get(path)).toEqual(compiled.get(path));
    // Without lists nothing is written for them.
    expect(streamedParts(file, docxCompiler(), false)?.documents.has('word/numbering.xml')).toBe(false);
  });

  it('gives the list references with their paragraph styles, the body namespaces, and renames support styles', () => {
    const file = document(everything);
    const stream = streamBody(file, docxCompiler(), {
      supportStyle: (id) => (id === 'ListParagraph' ? 'TemplateList' : undefined),
      supportStyleIds: ['ListParagraph', 'FootnoteReference'],
    });
    expect(stream?.sites.map((s) => s.paragraph?.pStyle ?? '')).toEqual(['ListParagraph', 'Heading1']);
    expect([...(stream?.supportStyles ?? [])].sort()).toEqual(['FootnoteReference', 'ListParagraph']);
    expect(stream?.chunks.join('')).toContain('<w:pStyle w:val="TemplateList"/>');
    expect([...(stream?.namespaces.keys() ?? [])]).toEqual(expect.arrayContaining(['w', 'r', 'wp', 'a', 'pic']));
    expect(stream?.namespaces.get('w')).toBe(W);
  });

  it('gives up, changing nothing, on what it does not know', () => {
    const file = document(() => [new Paragraph('a'), new Paragraph({ text: 'b', style: '{odd}' })]);
    const body = (file as unknown as { Document: { View: { Body: { root: unknown[] } } } }).Document.View.Body;
    const before = [...body.root];
    expect(streamBody(file, docxCompiler(), NO_SUPPORT)).toBeUndefined();
    expect(body.root).toEqual(before);
  });

  it('gives up before letting go of anything quietly, after that with StreamGaveUp', () => {
    const odd = () => new Paragraph({ text: 'b', style: '{odd}' });
    const early = document(() => [odd(), new Paragraph('a')]);
    expect(streamBody(early, docxCompiler(), { ...NO_SUPPORT, release: true })).toBeUndefined();
    const late = document(() => [new Paragraph('a'), odd()]);
    expect(() => streamBody(late, docxCompiler(), { ...NO_SUPPORT, release: true })).toThrow(StreamGaveUp);
  });

  it('a body it gives up on: the package step says so once it let go of docx objects, and without the writer gives the DOM merge bytes', () => {
    const compiledWithOddStyle = (oddFirst: boolean) => {
      const compiled = toDocx(parseMarkdown('A [link](https://a.example).\n\n- item'), {
        styles: resolveStyles(DEFAULT_RULES, defaultTemplateRead().styles).styles,
        textWidthTwips: 9000,
        options: elementOptions(DEFAULT_RULES),
      });
      // Template style ids are sanitised when read (no braces), so only a hand-made body has such a style.
      const odd = new Paragraph({
        style: '{odd}',
        children: [new ExternalHyperlink({ link: 'https://b.example', children: [new TextRun('b')] })],
      });
      if (oddFirst) compiled.children.unshift(odd);
      else compiled.children.push(odd);
      return compiled;
    };
    const plainBytes = (oddFirst: boolean): Buffer => {
      process.env.DOCWRIGHT_UNOPTIMISED = '1';
      try {
        return Buffer.from(packageDocument(defaultTemplateRead(), compiledWithOddStyle(oddFirst), new Date(0)));
      } finally {
        delete process.env.DOCWRIGHT_UNOPTIMISED;
      }
    };
    // Given up at once: nothing was let go, docx's compile lays the same document out and the DOM merge writes it.
    const first = packageDocument(defaultTemplateRead(), compiledWithOddStyle(true), new Date(0));
    expect(Buffer.from(first).equals(plainBytes(true))).toBe(true);
    // Given up later: convert() lays it out again without the writer (stream: false).
    expect(() => packageDocument(defaultTemplateRead(), compiledWithOddStyle(false), new Date(0))).toThrow(
      StreamGaveUp,
    );
    const again = packageDocument(defaultTemplateRead(), compiledWithOddStyle(false), new Date(0), { stream: false });
    expect(Buffer.from(again).equals(plainBytes(false))).toBe(true);
  });

  it('lets go of the docx objects once the package is written, the array docx keeps of them included', () => {
    const compiled = toDocx(parseMarkdown('# a\n\nb\n\n- c'), {
      styles: resolveStyles(DEFAULT_RULES, defaultTemplateRead().styles).styles,
      textWidthTwips: 9000,
      options: elementOptions(DEFAULT_RULES),
    });
    const children = compiled.children;
    expect(children.length).toBe(3);
    expect(packageDocument(defaultTemplateRead(), compiled, new Date(0)).length).toBeGreaterThan(0);
    expect(children.length).toBe(0);
    expect(compiled.children.length).toBe(0);
  });
});

function shellOf(bytes: Uint8Array, declared: ReadonlyMap<string, string>) {
  const template = readTemplate(bytes);
  const main = template.parts.get(template.mainPart);
  if (main === undefined) throw new Error('no main part');
  return templateShell(templateBody(parsePart(main, template.mainPart)), declared);
}

describe('templateShell', () => {
  const declared = docxDeclarations(document(() => [new Paragraph('a')])) ?? new Map<string, string>();

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
