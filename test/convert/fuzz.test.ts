// Seeded fuzzing of the engine through the conversion pool (real worker threads, so a case that hangs is stopped at
// the per-case limit instead of hanging the suite): random and mutated markdown must each give a document or a
// ConvertInputError in time. A sample of the documents (every 500th, and the cases with the warnings that mark
// unusual structure) must pass the OOXML schema check.
//
//   FUZZ_CASES=N FUZZ_SEED=S npx vitest run test/convert/fuzz.test.ts     (npm run soak runs 20,000 cases)
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConvertPool, type PoolResult } from '../../server/convert-pool/pool.ts';
import { ConvertInputError, defaultTemplate, DEFAULT_RULES } from '../../server/convert/index.ts';
import { tempFile, validateDocx, VALIDATOR } from '../helpers/docx.ts';
import { fuzzCases, type FuzzCase } from '../helpers/markdown-fuzz.ts';

const SOAK = process.env.SOAK === '1';
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_6);
const CASES = Number(process.env.FUZZ_CASES ?? (SOAK ? 20_000 : 600));
/** Longest one case may take (they are at most a few KB; a slow one is a finding). */
const CASE_LIMIT_MS = Number(process.env.FUZZ_CASE_LIMIT_MS ?? 10_000);
const SAMPLE_EVERY = 500;
/** Warnings that mark the structures most likely to go wrong in Word: deep lists, raw HTML, front matter. */
const INTERESTING = /^(list_depth_exceeded|unsupported_html|invalid_front_matter)/;
const MAX_INTERESTING = SOAK ? 200 : 6;

const run = promisify(execFile);
const pool = new ConvertPool({ timeoutMs: CASE_LIMIT_MS, size: availableParallelism() });
afterAll(() => pool.close());

const describeCase = (c: FuzzCase) =>
  `case ${c.index} (${c.origin}, ${c.markdown.length} chars): ${JSON.stringify(c.markdown.slice(0, 300))}`;

/** Validates documents in batches of 10 per validator run, 2 runs at a time; returns the failures' reports. */
async function validateAll(docs: { label: string; docx: Uint8Array }[]): Promise<string[]> {
  const failures: string[] = [];
  const batches: (typeof docs)[] = [];
  for (let i = 0; i < docs.length; i += 10) batches.push(docs.slice(i, i + 10));
  let next = 0;
  const lane = async () => {
    for (let b = next++; b < batches.length; b = next++) {
      const batch = batches[b] ?? [];
      const paths = batch.map((d) => tempFile(d.docx, 'fuzz.docx'));
      try {
        await run(VALIDATOR, ['--all', '--quiet', ...paths], { maxBuffer: 64 * 1024 * 1024 });
      } catch {
        // Which of the batch failed, each with its own report.
        for (const [i, d] of batch.entries()) {
          const { ok, report } = await validateDocx(paths[i] ?? '');
          if (!ok) failures.push(`${d.label}\n${report.slice(0, 2000)}`);
        }
      }
    }
  };
  await Promise.all([lane(), lane()]);
  return failures;
}

describe(`fuzz: ${CASES} seeded cases (seed ${SEED})`, () => {
  it(
    'every case gives a document or a ConvertInputError within the limit; a sample is schema-valid',
    async () => {
      const cases = fuzzCases({ seed: SEED, count: CASES });
      expect(cases).toHaveLength(CASES);
      const template = { key: 'builtin', bytes: defaultTemplate() };
      const failures: string[] = [];
      const sample: { label: string; docx: Uint8Array }[] = [];
      let interesting = 0;
      let inputErrors = 0;
      let next = 0;
      const lane = async () => {
        for (let i = next++; i < cases.length; i = next++) {
          const c = cases[i] as FuzzCase;
          let result: PoolResult;
          try {
            result = await pool.run({ markdown: c.markdown, mapping: DEFAULT_RULES, created: new Date(0), template });
          } catch (error) {
            if (error instanceof ConvertInputError) inputErrors += 1;
            else
              failures.push(
                `${describeCase(c)}\n  → ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
              );
            continue;
          }
          const { docx, warnings, stats } = result;
          if (docx[0] !== 0x50 || docx[1] !== 0x4b) failures.push(`${describeCase(c)}\n  → not a zip`);
          if (!warnings.every((w) => /^[a-z_]+: /.test(w)))
            failures.push(`${describeCase(c)}\n  → malformed warnings ${JSON.stringify(warnings)}`);
          if (!Object.values(stats).every((n) => Number.isInteger(n) && n >= 0))
            failures.push(`${describeCase(c)}\n  → bad stats ${JSON.stringify(stats)}`);
          const notable = warnings.some((w) => INTERESTING.test(w)) && interesting < MAX_INTERESTING;
          if (notable) interesting += 1;
          if (c.index % SAMPLE_EVERY === 0 || notable) sample.push({ label: describeCase(c), docx });
        }
      };
      await Promise.all(Array.from({ length: pool.size * 2 }, lane));
      expect(failures, failures.slice(0, 20).join('\n\n')).toEqual([]);
      // The engine refuses markdown only when it is not a string, which a fuzz case always is.
      expect(inputErrors).toBe(0);
      expect(sample.length).toBeGreaterThanOrEqual(Math.ceil(CASES / SAMPLE_EVERY));
      const invalid = await validateAll(sample);
      expect(invalid, invalid.slice(0, 5).join('\n\n')).toEqual([]);
    },
    600_000 + CASES * 200,
  );
});
