// No speed-up changes an output: every fixture (built-in template) and every corpus document (the built-in template
// and each corpus template, with its mapping) converts to the same bytes with the optimisations on and off
// (DOCWRIGHT_UNOPTIMISED=1, server/convert/optimisations.ts). The creation time is fixed, so the zip's are too.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import {
  convert,
  DEFAULT_RULES,
  defaultTemplate,
  readTemplate,
  type ImageSource,
  type MappingRules,
} from '../../server/convert/index.ts';
import { folderSource } from '../../server/confined/image-folder.ts';
import { templateFromJson, templateToJson } from '../../server/convert/template/prepared.ts';
import { ConvertPool } from '../../server/convert-pool/pool.ts';
import { generateMarkdown } from '../../bench/generate.ts';
import { EXTRA_CORPUS, SHARED_CORPUS } from '../corpus/run.ts';

const CREATED = new Date('2026-01-01T00:00:00Z');
const ELEMENTS = join(import.meta.dirname, '../fixtures/elements');

function files(dir: string, pattern: RegExp): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => pattern.test(f))
        .sort()
        .map((f) => join(dir, f))
    : [];
}

const fixtures = readdirSync(ELEMENTS)
  .map((name) => join(ELEMENTS, name, 'input.md'))
  .filter((path) => existsSync(path));
const corpusDocs = [SHARED_CORPUS, EXTRA_CORPUS].flatMap((root) => files(join(root, 'docs'), /\.md$/));
const corpusTemplates = [SHARED_CORPUS, EXTRA_CORPUS].flatMap((root) =>
  files(join(root, 'templates'), /\.(docx|dotx)$/),
);

/** The output (or the error's message) of one conversion, with the optimisations on or off. */
function outcome(
  markdown: string,
  template: Uint8Array,
  mapping: unknown,
  optimised: boolean,
  images?: ImageSource,
): Buffer | string {
  if (optimised) delete process.env.DOCWRIGHT_UNOPTIMISED;
  else process.env.DOCWRIGHT_UNOPTIMISED = '1';
  try {
    return Buffer.from(convert({ markdown, template, mapping: mapping as never, created: CREATED, images }).docx);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

function expectSame(markdown: string, template: Uint8Array, mapping: unknown, label: string, images?: ImageSource) {
  const plain = outcome(markdown, template, mapping, false, images);
  const fast = outcome(markdown, template, mapping, true, images);
  expect(typeof plain === 'string' ? plain : 'a document', label).toBe(typeof fast === 'string' ? fast : 'a document');
  if (Buffer.isBuffer(plain) && Buffer.isBuffer(fast))
    expect(fast.equals(plain), `${label}: the same bytes`).toBe(true);
}

afterEach(() => {
  delete process.env.DOCWRIGHT_UNOPTIMISED;
});

describe('optimisations change no output', () => {
  it('has documents and templates to compare', () => {
    expect(fixtures.length).toBeGreaterThan(10);
    expect(corpusDocs.length).toBeGreaterThanOrEqual(8);
    expect(corpusTemplates.length).toBeGreaterThanOrEqual(5);
  });

  it('every kind of GFM autolink literal, and the bench documents', () => {
    // micromark links most literals itself; the transform catches those in text made of several tokens
    // (escapes, character references, brackets that are no link), which these lines have.
    const autolinks = [
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
    expectSame(autolinks, defaultTemplate(), undefined, 'autolinks');
    for (const kb of [10, 120]) expectSame(generateMarkdown(kb * 1024), defaultTemplate(), undefined, `bench ${kb} KB`);
  }, 300_000);

  it('documents long enough to be parsed in pieces: the CommonMark and GFM spec documents', () => {
    const specs = [
      createRequire(import.meta.url).resolve('commonmark-spec/spec.txt'),
      join(import.meta.dirname, '../fixtures/gfm-spec/spec.txt'),
    ];
    for (const path of specs) expectSame(readFileSync(path, 'utf8'), defaultTemplate(), undefined, path);
  }, 300_000);

  it('every fixture, built-in template', () => {
    for (const path of fixtures)
      expectSame(readFileSync(path, 'utf8'), defaultTemplate(), undefined, basename(join(path, '..')));
  });

  for (const doc of corpusDocs) {
    it(`${basename(doc)}: the built-in template and each corpus template`, () => {
      const markdown = readFileSync(doc, 'utf8');
      expectSame(markdown, defaultTemplate(), undefined, 'built-in template');
      for (const templatePath of corpusTemplates) {
        const mappingPath = templatePath.replace(/\.(docx|dotx)$/, '.mapping.json');
        const mapping: unknown = existsSync(mappingPath) ? JSON.parse(readFileSync(mappingPath, 'utf8')) : undefined;
        expectSame(markdown, new Uint8Array(readFileSync(templatePath)), mapping, basename(templatePath));
      }
    }, 300_000);
  }
});

// The body written as text in slices (package/body-text.ts) against the DOM merge: every rewrite of our content
// (hyperlink and image ids in the body and in notes, drawing ids, bookmark ids, footnote references, list numbering
// with and without the template's list styles, support styles, namespaces) with each kind of template, including
// those that must fall back to the DOM merge (other prefixes, a prefix bound elsewhere, a table of contents).
const EVERY_REWRITE = [
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
const WP = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
const IMAGES = folderSource(join(import.meta.dirname, '../fixtures/images/doc'));

/** A template with its document.xml rewritten by `edit`. */
function withDocument(template: Uint8Array, edit: (xml: string) => string): Uint8Array {
  const files = unzipSync(template);
  files['word/document.xml'] = strToU8(edit(strFromU8(files['word/document.xml'] ?? new Uint8Array())));
  return zipSync(files);
}

/**
 * The parts of a package with the drawings' ids (wp:docPr) numbered in order: docx takes them from a counter shared by
 * the whole process, so two conversions of one document never get the same ones (unless a template's headers make
 * the package renumber them).
 */
function withDrawingsInOrder(docx: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, data] of Object.entries(unzipSync(docx))) {
    if (!path.endsWith('.xml')) {
      out.set(path, Buffer.from(data).toString('base64'));
      continue;
    }
    const doc = new DOMParser().parseFromString(strFromU8(data), 'text/xml');
    const drawings = doc.getElementsByTagNameNS(WP, 'docPr');
    for (let i = 0; i < drawings.length; i++) drawings.item(i)?.setAttribute('id', String(i + 1));
    out.set(path, new XMLSerializer().serializeToString(doc));
  }
  return out;
}

function expectSameDrawings(markdown: string, template: Uint8Array, mapping: unknown, label: string) {
  const plain = outcome(markdown, template, mapping, false, IMAGES);
  const fast = outcome(markdown, template, mapping, true, IMAGES);
  // These documents all convert: an error both ways would prove nothing.
  expect(typeof plain === 'string' ? plain : 'a document', label).toBe('a document');
  expect(typeof fast === 'string' ? fast : 'a document', label).toBe('a document');
  if (Buffer.isBuffer(plain) && Buffer.isBuffer(fast))
    expect(withDrawingsInOrder(fast), `${label}: the same parts`).toEqual(withDrawingsInOrder(plain));
}

describe('the body written as text changes no output', () => {
  it('every rewrite, with the built-in template and each corpus template', () => {
    const templates: [string, Uint8Array, unknown][] = [
      ['built-in', defaultTemplate(), undefined],
      ...corpusTemplates.map((path): [string, Uint8Array, unknown] => {
        const mappingPath = path.replace(/\.(docx|dotx)$/, '.mapping.json');
        const mapping: unknown = existsSync(mappingPath) ? JSON.parse(readFileSync(mappingPath, 'utf8')) : undefined;
        return [basename(path), new Uint8Array(readFileSync(path)), mapping];
      }),
    ];
    for (const [label, template, mapping] of templates) {
      expectSame(EVERY_REWRITE, template, mapping, label);
      expectSameDrawings(EVERY_REWRITE, template, mapping, `${label}, with images`);
    }
  }, 300_000);

  it('templates that keep text around the content, use other prefixes or bind a prefix elsewhere', () => {
    const base = defaultTemplate();
    const kept =
      '<w:p><w:bookmarkStart w:id="7" w:name="cover"/><w:r><w:t>Cover</w:t></w:r><w:bookmarkEnd w:id="7"/></w:p>' +
      '<w:p><w:r><w:t>{{content}}</w:t></w:r></w:p>' +
      '<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:docPr id="9" name="x"/></wp:inline></w:drawing></w:r></w:p>';
    const placeholder = withDocument(base, (xml) => xml.replace('<w:body>', `<w:body>${kept}`));
    const prefixed = withDocument(base, (xml) =>
      xml
        .replaceAll('<w:', '<ns0:')
        .replaceAll('</w:', '</ns0:')
        .replaceAll(' w:', ' ns0:')
        .replaceAll('xmlns:w=', 'xmlns:ns0='),
    );
    const elsewhere = withDocument(base, (xml) => xml.replace(`xmlns:wp="${WP}"`, 'xmlns:wp="urn:elsewhere"'));
    const bare = withDocument(
      base,
      (xml) => `${xml.slice(0, xml.indexOf('<w:body>') + '<w:body>'.length)}${xml.slice(xml.indexOf('</w:body>'))}`,
    );
    // No numbering or notes part of its own: docx's parts (built from its objects on the fast path) become them.
    const files = unzipSync(base);
    for (const part of ['word/numbering.xml', 'word/footnotes.xml']) delete files[part];
    const unlisted = (path: string, pattern: RegExp) => {
      files[path] = strToU8(strFromU8(files[path] ?? new Uint8Array()).replace(pattern, ''));
    };
    unlisted('[Content_Types].xml', /<Override PartName="\/word\/(numbering|footnotes)\.xml"[^>]*\/>/g);
    unlisted('word/_rels/document.xml.rels', /<Relationship [^>]*Target="(numbering|footnotes)\.xml"\/>/g);
    const partless = zipSync(files);
    expectSame(EVERY_REWRITE, partless, undefined, 'a template without numbering or notes parts');
    expectSame('', bare, undefined, 'an empty document in a template with nothing kept of its body');
    for (const [label, template] of [
      ['nothing kept of the body', bare],
      ['a {{content}} placeholder between kept paragraphs', placeholder],
      ['w as ns0', prefixed],
      ['wp bound elsewhere', elsewhere],
    ] as const) {
      expectSame(EVERY_REWRITE, template, undefined, label);
      expectSameDrawings(EVERY_REWRITE, template, undefined, `${label}, with images`);
      expectSame(`[[_TOC_]]\n\n${EVERY_REWRITE}`, template, undefined, `${label}, with a TOC`);
    }
  }, 300_000);
});

describe("the pool's caches change no output", () => {
  it('a template read once and kept in a worker, sent again after a forget, gives the bytes of an in-process conversion of the template read afresh', async () => {
    const pool = new ConvertPool({ size: 1 });
    try {
      const markdown = generateMarkdown(10 * 1024);
      for (const templatePath of corpusTemplates.slice(0, 3)) {
        const bytes = new Uint8Array(readFileSync(templatePath));
        const mappingPath = templatePath.replace(/\.(docx|dotx)$/, '.mapping.json');
        const mapping = existsSync(mappingPath)
          ? (JSON.parse(readFileSync(mappingPath, 'utf8')) as MappingRules)
          : DEFAULT_RULES;
        process.env.DOCWRIGHT_UNOPTIMISED = '1';
        const expected = Buffer.from(convert({ markdown, template: bytes, mapping, created: CREATED }).docx);
        delete process.env.DOCWRIGHT_UNOPTIMISED;
        const key = `${basename(templatePath)}:1:x`;
        const job = { markdown, template: { key, bytes }, mapping, created: CREATED };
        const first = await pool.run(job);
        const cached = await pool.run(job);
        pool.forgetTemplate(basename(templatePath));
        const again = await pool.run(job);
        expect(pool.counters.templatesSent).toBeGreaterThan(0);
        for (const [label, result] of [
          ['first', first],
          ['cached', cached],
          ['sent again', again],
        ] as const)
          expect(Buffer.from(result.docx).equals(expected), `${basename(templatePath)}, ${label}`).toBe(true);
      }
      // Each template was sent twice: once, then again after it was forgotten.
      expect(pool.counters.templatesSent).toBe(2 * Math.min(3, corpusTemplates.length));
    } finally {
      await pool.close();
    }
  }, 300_000);
});

describe('the built-in template prepared at build time changes no output', () => {
  it('every fixture and the bench documents: the prepared template (as scripts/build.mjs embeds it) and the template read from its bytes', () => {
    const prepared = templateFromJson(templateToJson(readTemplate(defaultTemplate())));
    const documents = [
      ...fixtures.map((path) => [basename(join(path, '..')), readFileSync(path, 'utf8')] as const),
      ...[10, 120].map((kb) => [`bench ${kb} KB`, generateMarkdown(kb * 1024)] as const),
    ];
    for (const [label, markdown] of documents) {
      const fast = Buffer.from(convert({ markdown, template: prepared, created: CREATED }).docx);
      process.env.DOCWRIGHT_UNOPTIMISED = '1';
      const plain = Buffer.from(convert({ markdown, created: CREATED }).docx);
      delete process.env.DOCWRIGHT_UNOPTIMISED;
      expect(fast.equals(plain), `${label}: the same bytes`).toBe(true);
    }
  }, 300_000);
});
