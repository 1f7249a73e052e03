// Before/after numbers on the corpus: checks passed per document × template pair for Docwright (this checkout, or
// the engine given with --engine path/to/server/convert/index.ts, e.g. an old main's worktree) or for pandoc
// (--pandoc, `pandoc --reference-doc=template`).
// --pages adds the reader's checks on the rendered pages (test/corpus/pages.ts), one line per failure.
// Usage: npx tsx bench/corpus.ts [--engine FILE | --pandoc] [--shared-only | --extra-template-only] [--keep DIR]
//        [--pages]
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { PAGE_CHECKS } from '../test/corpus/pages.ts';
import { corpusPairs, EXTRA_CORPUS, runCorpus, SHARED_CORPUS, summary, type Converter } from '../test/corpus/run.ts';

const run = promisify(execFile);
const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

async function docwright(enginePath: string): Promise<Converter> {
  const engine = (await import(resolve(enginePath))) as {
    convert: (input: { markdown: string; template: Uint8Array; mapping?: unknown; created: Date }) => Promise<{
      docx: Uint8Array;
    }>;
  };
  return async (markdown, template, mapping) =>
    (await engine.convert({ markdown, template, mapping, created: new Date('2026-01-01T00:00:00Z') })).docx;
}

function pandoc(): Converter {
  const dir = mkdtempSync(join(tmpdir(), 'dw-pandoc-'));
  let n = 0;
  return async (_markdown, template, _mapping, pair) => {
    n += 1;
    const reference = join(dir, `ref-${n}.docx`);
    writeFileSync(reference, template);
    const out = join(dir, `out-${n}.docx`);
    await run(
      'pandoc',
      ['-f', 'gfm+yaml_metadata_block', '-t', 'docx', `--reference-doc=${reference}`, '-o', out, pair.docPath],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    return out;
  };
}

const roots = args.includes('--shared-only') ? [SHARED_CORPUS] : [SHARED_CORPUS, EXTRA_CORPUS];
// --extra-template-only: the shared documents through the extra corpus's templates only.
const pairs = corpusPairs(roots).filter(
  (p) => !args.includes('--extra-template-only') || p.templatePath.startsWith(EXTRA_CORPUS),
);
const converter = args.includes('--pandoc')
  ? pandoc()
  : await docwright(flag('--engine') ?? resolve(import.meta.dirname, '../server/convert/index.ts'));
const pages = args.includes('--pages');
const results = await runCorpus(pairs, converter, { keep: flag('--keep'), pages });
console.log(summary(results));
if (pages) {
  const failed = PAGE_CHECKS.map((c) => [c, results.filter((r) => r.pages?.[c])] as const);
  for (const [c, rs] of failed) for (const r of rs) console.log(`${c}: ${String(r.pages?.[c])}`);
  console.log(
    `reader's checks failed: ${failed.map(([c, rs]) => `${c} ${String(rs.length)}/${String(results.length)}`).join(', ')}`,
  );
}
