// No speed-up changes an output: every fixture (built-in template) and every corpus document (the built-in template
// and each corpus template, with its mapping) converts to the same bytes with the optimisations on and off
// (DOCWRIGHT_UNOPTIMISED=1, server/convert/optimisations.ts). The creation time is fixed, so the zip's are too.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  convert,
  DEFAULT_RULES,
  defaultTemplate,
  readTemplate,
  type MappingRules,
} from '../../server/convert/index.ts';
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
function outcome(markdown: string, template: Uint8Array, mapping: unknown, optimised: boolean): Buffer | string {
  if (optimised) delete process.env.DOCWRIGHT_UNOPTIMISED;
  else process.env.DOCWRIGHT_UNOPTIMISED = '1';
  try {
    return Buffer.from(convert({ markdown, template, mapping: mapping as never, created: CREATED }).docx);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

function expectSame(markdown: string, template: Uint8Array, mapping: unknown, label: string) {
  const plain = outcome(markdown, template, mapping, false);
  const fast = outcome(markdown, template, mapping, true);
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
