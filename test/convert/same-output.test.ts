// Every output stays what it was: each case of test/convert/same-output.ts (every fixture, every corpus document with
// each template, the bench and spec documents, the templates that take the packaging's less common turns) converts to
// the parts recorded in test/fixtures/same-output.json, part by part. A change that alters an output on purpose (a
// fix) writes the record again (`npx tsx test/convert/same-output.ts --write`) and names the fix in its commit.
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
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
import {
  cases,
  corpusDocs,
  corpusTemplates,
  CREATED,
  firstDifference,
  fixtures,
  outcome,
  RECORD,
  type Outcome,
} from './same-output.ts';
import { fixtureOptions } from '../helpers/fixture-options.ts';

const record = JSON.parse(readFileSync(RECORD, 'utf8')) as Record<string, Outcome & { docx?: string }>;
const all = cases();
const groups = [...new Set(all.map((c) => c.group))];

describe('every output is the one recorded', () => {
  it('has documents and templates to compare, and a record of every case', () => {
    expect(fixtures.length).toBeGreaterThan(10);
    expect(corpusDocs.length).toBeGreaterThanOrEqual(8);
    expect(corpusTemplates.length).toBeGreaterThanOrEqual(5);
    expect(all.map((c) => c.name).filter((name) => !(name in record))).toEqual([]);
  });

  for (const group of groups)
    it(
      group,
      async () => {
        for (const c of all.filter((k) => k.group === group)) {
          const recorded = record[c.name];
          if (!recorded) continue;
          expect(firstDifference(recorded, await outcome(c)), c.name).toBeUndefined();
        }
      },
      300_000,
    );
});

// docx lays a long body out in pieces (server/convert/package/docx-pieces.ts), put together as one Document writes the
// whole: every case but the corpus documents through the other templates (the pieces are put together before the
// template is merged, and the rewrites and odd templates take every turn of that merge) gives the bytes recorded, in
// pieces of one block, or of twenty for the long documents (the corpus and the specs: tens of pieces each, in seconds).
describe('a body laid out in pieces gives the bytes of one piece', () => {
  const long = (c: (typeof all)[number]): boolean => c.group.startsWith('corpus') || c.group === 'specs';
  const pieced = all.filter((c) => !c.group.startsWith('corpus') || c.name.endsWith('| built-in'));
  for (const [pieceBlocks, cases] of [
    [1, pieced.filter((c) => !long(c))],
    [20, pieced.filter(long)],
  ] as const)
    it(`in pieces of ${String(pieceBlocks)} block${pieceBlocks > 1 ? 's' : ''}: ${String(cases.length)} cases`, async () => {
      expect(cases.length).toBeGreaterThan(pieceBlocks === 1 ? 100 : 8);
      for (const c of cases) {
        const recorded = record[c.name];
        if (!recorded) continue;
        expect(firstDifference(recorded, await outcome(c, pieceBlocks)), c.name).toBeUndefined();
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
        const expected = Buffer.from(
          (await convert({ markdown, template: readTemplate(bytes), mapping, created: CREATED })).docx,
        );
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
  it('every fixture and the bench documents: the prepared template (as scripts/build.mjs embeds it) and the template read from its bytes', async () => {
    const prepared = templateFromJson(templateToJson(readTemplate(defaultTemplate())));
    const documents = [
      ...fixtures.map(
        (path) =>
          [basename(path.slice(0, -'/input.md'.length)), readFileSync(path, 'utf8'), fixtureOptions(path)] as const,
      ),
      ...[10, 120].map((kb) => [`bench ${String(kb)} KB`, generateMarkdown(kb * 1024), {}] as const),
    ];
    for (const [label, markdown, citations] of documents) {
      const fast = Buffer.from((await convert({ markdown, template: prepared, created: CREATED, ...citations })).docx);
      const plain = Buffer.from(
        (await convert({ markdown, template: readTemplate(defaultTemplate()), created: CREATED, ...citations })).docx,
      );
      expect(fast.equals(plain), `${label}: the same bytes`).toBe(true);
    }
  }, 300_000);
});
