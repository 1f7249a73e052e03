// The record of what every conversion writes (test/fixtures/same-output.json): for each case (every fixture with the
// built-in template, every corpus document with the built-in template and each corpus template with its mapping, the
// bench documents, the spec documents, the templates that take the packaging's less common turns), the sha256 of
// each part of its .docx by part name, or the error's message. The creation time is fixed, so the zip's are too.
// `npx tsx test/convert/same-output.ts --write` writes the record; test/convert/same-output.test.ts compares.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { convert, defaultTemplate, type ImageSource } from '../../server/convert/index.ts';
import { folderSource } from '../../server/confined/image-folder.ts';
import { generateMarkdown } from '../../bench/generate.ts';
import { EXTRA_CORPUS, SHARED_CORPUS } from '../corpus/run.ts';
import { fixtureOptions } from '../helpers/fixture-options.ts';

export const CREATED = new Date('2026-01-01T00:00:00Z');
export const RECORD = join(import.meta.dirname, '../fixtures/same-output.json');
const ELEMENTS = join(import.meta.dirname, '../fixtures/elements');
const WP = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';

function files(dir: string, pattern: RegExp): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => pattern.test(f))
        .sort()
        .map((f) => join(dir, f))
    : [];
}

export const fixtures = readdirSync(ELEMENTS)
  .sort()
  .map((name) => join(ELEMENTS, name, 'input.md'))
  .filter((path) => existsSync(path));
export const corpusDocs = [SHARED_CORPUS, EXTRA_CORPUS].flatMap((root) => files(join(root, 'docs'), /\.md$/));
export const corpusTemplates = [SHARED_CORPUS, EXTRA_CORPUS].flatMap((root) =>
  files(join(root, 'templates'), /\.(docx|dotx)$/),
);

/** One conversion to record. */
export interface Case {
  /** Unique within the record. */
  name: string;
  /** Group a test runs together. */
  group: string;
  markdown: () => string;
  template: () => Uint8Array;
  mapping?: unknown;
  images?: ImageSource;
  /** A fixture's bibliography and style (test/helpers/fixture-options.ts). */
  citations?: ReturnType<typeof fixtureOptions>;
  /**
   * The drawings' ids (wp:docPr) numbered in order before hashing: docx takes them from a counter shared by the whole
   * process, so they depend on what was converted before.
   */
  drawingsInOrder?: boolean;
}

/** What a case gives: each part's sha256 by name, or the error. */
export type Outcome = { parts: Record<string, string> } | { error: string };

const mappingOf = (templatePath: string): unknown => {
  const mappingPath = templatePath.replace(/\.(docx|dotx)$/, '.mapping.json');
  return existsSync(mappingPath) ? JSON.parse(readFileSync(mappingPath, 'utf8')) : undefined;
};
const bytesOf = (path: string) => () => new Uint8Array(readFileSync(path));
const textOf = (path: string) => () => readFileSync(path, 'utf8');

// Every kind of GFM autolink literal: micromark links most literals itself; the transform catches those in text made
// of several tokens (escapes, character references, brackets that are no link), which these lines have.
const AUTOLINKS = [
  'Escaped a\\_b@c.example',
  'Referenced &#x61;@b.example',
  'x&amp;www.a.example',
  'x&amp;http://h.example/p',
  '[x a@b.example] [y www.y.example] [z https://z.example] [mailto:w@x.example] [xmpp:u@v.example/r]',
  'Mail a@b.example, A.B+c@d-e.example. or mailto:x@y.example and xmpp:u@v.example/res; not a@b.example_ or 1@2.3.',
  'URLs www.example.com/a(b)c). WWW.UPPER.example http://h.example/p?q=1&r=2, https://s.example/, (http://in.parens.example)',
  '*em www.em.example* **strong x@strong.example** [a link www.not.example](https://t.example) ![i](https://img.example/a.png)',
  '| a | www.cell.example |\n|---|---|\n| b@c.example | https://d.example |',
  '> quote http://q.example\n\n- item mailto:m@n.example\n\n[^1]: note www.note.example\n\nText[^1] [ref]\n\n[ref]: https://ref.example',
].join('\n\n');

// Every rewrite of our content the packaging makes (hyperlink and image ids in the body and in notes, drawing ids,
// bookmark ids, footnote references, list numbering with and without the template's list styles, support styles,
// namespaces).
export const EVERY_REWRITE = [
  '# Heading one',
  'A [link](https://a.example) and [another](https://b.example "t"), a note[^n] and a second[^m].',
  '![Chart](img/small.png "Figure 1: costs") and ![Chip](img/small.png) in [a linked ![Banner](img/wide.png)](https://c.example)',
  '## Lists',
  '1. one\n   - nested [link](https://d.example)\n     1. deeper\n2. two\n\n- [ ] task\n- [x] done',
  '| a | b |\n|---|---|\n| [cell link](https://e.example) | `code` |',
  '> quote with a note[^n]\n>\n> - list in a quote',
  '### Third <span dir="rtl">עברית</span>',
  '[^n]: A note with [a link](https://f.example) and a list:\n\n    - inside\n    - the note',
  '[^m]: Another ![Chip](img/small.png)',
].join('\n\n');
const IMAGES = folderSource(join(import.meta.dirname, '../fixtures/images/doc'));

/** A template with its document.xml rewritten by `edit`. */
function withDocument(template: Uint8Array, edit: (xml: string) => string): Uint8Array {
  const parts = unzipSync(template);
  parts['word/document.xml'] = strToU8(edit(strFromU8(parts['word/document.xml'] ?? new Uint8Array())));
  return zipSync(parts, { mtime: CREATED });
}

/** Templates that keep text around the content, use other prefixes, bind a prefix elsewhere, or lack parts. */
function oddTemplates(): [string, Uint8Array][] {
  const base = defaultTemplate();
  const kept =
    '<w:p><w:bookmarkStart w:id="7" w:name="cover"/><w:r><w:t>Cover</w:t></w:r><w:bookmarkEnd w:id="7"/></w:p>' +
    '<w:p><w:r><w:t>{{content}}</w:t></w:r></w:p>' +
    `<w:p><w:r><w:drawing><wp:inline xmlns:wp="${WP}"><wp:docPr id="9" name="x"/></wp:inline></w:drawing></w:r></w:p>`;
  const parts = unzipSync(base);
  for (const part of ['word/numbering.xml', 'word/footnotes.xml']) delete parts[part];
  const unlisted = (path: string, pattern: RegExp) => {
    parts[path] = strToU8(strFromU8(parts[path] ?? new Uint8Array()).replace(pattern, ''));
  };
  unlisted('[Content_Types].xml', /<Override PartName="\/word\/(numbering|footnotes)\.xml"[^>]*\/>/g);
  unlisted('word/_rels/document.xml.rels', /<Relationship [^>]*Target="(numbering|footnotes)\.xml"\/>/g);
  return [
    ['without numbering or notes parts', zipSync(parts, { mtime: CREATED })],
    [
      'nothing kept of the body',
      withDocument(
        base,
        (xml) => `${xml.slice(0, xml.indexOf('<w:body>') + '<w:body>'.length)}${xml.slice(xml.indexOf('</w:body>'))}`,
      ),
    ],
    [
      'a {{content}} placeholder between kept paragraphs',
      withDocument(base, (xml) => xml.replace('<w:body>', `<w:body>${kept}`)),
    ],
    [
      'w as ns0',
      withDocument(base, (xml) =>
        xml
          .replaceAll('<w:', '<ns0:')
          .replaceAll('</w:', '</ns0:')
          .replaceAll(' w:', ' ns0:')
          .replaceAll('xmlns:w=', 'xmlns:ns0='),
      ),
    ],
    ['wp bound elsewhere', withDocument(base, (xml) => xml.replace(`xmlns:wp="${WP}"`, 'xmlns:wp="urn:elsewhere"'))],
  ];
}

/** Every case, in a fixed order. */
export function cases(): Case[] {
  const out: Case[] = [];
  const builtIn = () => defaultTemplate();
  for (const path of fixtures) {
    const name = basename(join(path, '..'));
    const citations = fixtureOptions(path);
    out.push({
      name: `fixture ${name}`,
      group: 'fixtures',
      markdown: textOf(path),
      template: builtIn,
      ...(Object.keys(citations).length > 0 ? { citations } : {}),
    });
  }
  for (const doc of corpusDocs) {
    const group = `corpus ${basename(doc)}`;
    out.push({ name: `${group} | built-in`, group, markdown: textOf(doc), template: builtIn });
    for (const templatePath of corpusTemplates)
      out.push({
        name: `${group} | ${basename(templatePath)}`,
        group,
        markdown: textOf(doc),
        template: bytesOf(templatePath),
        mapping: mappingOf(templatePath),
      });
  }
  out.push({ name: 'autolinks', group: 'bench', markdown: () => AUTOLINKS, template: builtIn });
  for (const kb of [10, 120])
    out.push({
      name: `bench ${String(kb)} KB`,
      group: 'bench',
      markdown: () => generateMarkdown(kb * 1024),
      template: builtIn,
    });
  const specs = [
    createRequire(import.meta.url).resolve('commonmark-spec/spec.txt'),
    join(import.meta.dirname, '../fixtures/gfm-spec/spec.txt'),
  ];
  for (const path of specs)
    out.push({ name: `spec ${basename(join(path, '..'))}`, group: 'specs', markdown: textOf(path), template: builtIn });
  const rewriteTemplates: [string, () => Uint8Array, unknown][] = [
    ['built-in', builtIn, undefined],
    ...corpusTemplates.map((path): [string, () => Uint8Array, unknown] => [
      basename(path),
      bytesOf(path),
      mappingOf(path),
    ]),
  ];
  for (const [label, template, mapping] of rewriteTemplates) {
    out.push({ name: `every rewrite | ${label}`, group: 'rewrites', markdown: () => EVERY_REWRITE, template, mapping });
    out.push({
      name: `every rewrite | ${label} | images`,
      group: 'rewrites',
      markdown: () => EVERY_REWRITE,
      template,
      mapping,
      images: IMAGES,
      drawingsInOrder: true,
    });
  }
  let odd: [string, Uint8Array][] | undefined;
  const oddTemplate = (i: number) => () => (odd ??= oddTemplates())[i]?.[1] ?? new Uint8Array();
  const oddNames = [
    'without numbering or notes parts',
    'nothing kept of the body',
    'a {{content}} placeholder between kept paragraphs',
    'w as ns0',
    'wp bound elsewhere',
  ];
  oddNames.forEach((label, i) => {
    const template = oddTemplate(i);
    const group = 'odd templates';
    out.push({ name: `odd | ${label}`, group, markdown: () => EVERY_REWRITE, template });
    if (i === 0) return;
    out.push({
      name: `odd | ${label} | images`,
      group,
      markdown: () => EVERY_REWRITE,
      template,
      images: IMAGES,
      drawingsInOrder: true,
    });
    out.push({ name: `odd | ${label} | TOC`, group, markdown: () => `[[_TOC_]]\n\n${EVERY_REWRITE}`, template });
  });
  out.push({
    name: 'odd | empty document, nothing kept of the body',
    group: 'odd templates',
    markdown: () => '',
    template: oddTemplate(1),
  });
  return out;
}

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

/** A part with its drawings' ids numbered in order. */
function drawingsNumbered(data: Uint8Array): string {
  const doc = new DOMParser().parseFromString(strFromU8(data), 'text/xml');
  const drawings = doc.getElementsByTagNameNS(WP, 'docPr');
  for (let i = 0; i < drawings.length; i++) drawings.item(i)?.setAttribute('id', String(i + 1));
  return new XMLSerializer().serializeToString(doc);
}

/** Converts one case; `docx` is the whole package's hash (the parts' order and the zip's bytes count too). */
export async function outcome(c: Case, pieceBlocks?: number): Promise<Outcome & { docx?: string }> {
  try {
    const result = await convert({
      markdown: c.markdown(),
      template: c.template(),
      mapping: c.mapping as never,
      created: CREATED,
      images: c.images,
      ...c.citations,
      ...(pieceBlocks === undefined ? {} : { pieceBlocks }),
    });
    const parts: Record<string, string> = {};
    for (const [path, data] of Object.entries(unzipSync(result.docx)))
      parts[path] = c.drawingsInOrder && path.endsWith('.xml') ? sha256(drawingsNumbered(data)) : sha256(data);
    return c.drawingsInOrder ? { parts } : { parts, docx: sha256(result.docx) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The first difference between a recorded outcome and a new one, or undefined. */
export function firstDifference(
  recorded: Outcome & { docx?: string },
  now: Outcome & { docx?: string },
): string | undefined {
  if ('error' in recorded || 'error' in now) {
    const was = 'error' in recorded ? `error: ${recorded.error}` : 'a document';
    const is = 'error' in now ? `error: ${now.error}` : 'a document';
    return was === is ? undefined : `was ${was}, now ${is}`;
  }
  const names = [...new Set([...Object.keys(recorded.parts), ...Object.keys(now.parts)])];
  for (const name of names) {
    if (recorded.parts[name] === now.parts[name]) continue;
    if (recorded.parts[name] === undefined) return `part ${name} is new`;
    if (now.parts[name] === undefined) return `part ${name} is gone`;
    return `part ${name} differs`;
  }
  if (Object.keys(recorded.parts).join('\n') !== Object.keys(now.parts).join('\n'))
    return 'the parts are in another order';
  if (recorded.docx !== now.docx) return 'the zip differs (every part the same)';
  return undefined;
}

if (process.argv.includes('--write')) {
  const record: Record<string, Outcome & { docx?: string }> = {};
  for (const c of cases()) record[c.name] = await outcome(c);
  writeFileSync(RECORD, `${JSON.stringify(record, null, 1)}\n`);
  console.log(`${String(Object.keys(record).length)} cases written to ${basename(RECORD)}`);
}
