// Runs every document × template pair of a corpus through a converter and checks each output: schema-valid, opens
// in LibreOffice (two LibreOffice runs side by side for all outputs), words kept, ids defined, template kept, no
// external relationships but hyperlinks; on request the reader's checks on the rendered pages (pages.ts). Shared by
// test/corpus/corpus.test.ts and bench/corpus.ts.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { externalRelationships, idsDefined, templateKept, unzip, wordCoverage } from './checks.ts';
import { PAGE_CHECKS, pageChecks, readPdf, type PageCheck } from './pages.ts';

const run = promisify(execFile);

export const VALIDATOR = resolve(import.meta.dirname, '../../../shared/ooxml-schemas/validate-docx');
export const SHARED_CORPUS = resolve(import.meta.dirname, '../../../shared/corpus');
export const EXTRA_CORPUS = resolve(import.meta.dirname, '../fixtures/corpus-extra');
export const MIN_WORDS = 0.97;
export const CHECKS = ['valid', 'opens', 'words', 'ids', 'template', 'external'] as const;
export type Check = (typeof CHECKS)[number];

export interface Pair {
  name: string;
  docPath: string;
  templatePath: string;
  /** The mapping's rules (templates/<name>.mapping.json), when the template has one. */
  mapping: unknown;
}

type PageResults = Record<PageCheck, string | null>;

export interface PairResult {
  pair: Pair;
  /** null: passed; a string: why it failed. */
  checks: Record<Check, string | null>;
  /** The reader's checks on the rendered pages (pages.ts), when asked for: null passed, a string why not. */
  pages?: PageResults;
  wordRatio: number;
}

/** Every docs/*.md × templates/*.docx|dotx pair of the corpus folders given. */
export function corpusPairs(roots: string[]): Pair[] {
  const docs: string[] = [];
  const templates: string[] = [];
  for (const root of roots) {
    const d = join(root, 'docs');
    const t = join(root, 'templates');
    if (existsSync(d))
      docs.push(
        ...readdirSync(d)
          .filter((f) => f.endsWith('.md'))
          .sort()
          .map((f) => join(d, f)),
      );
    if (existsSync(t))
      templates.push(
        ...readdirSync(t)
          .filter((f) => /\.(docx|dotx)$/.test(f))
          .sort()
          .map((f) => join(t, f)),
      );
  }
  const pairs: Pair[] = [];
  for (const templatePath of templates) {
    const mappingPath = templatePath.replace(/\.(docx|dotx)$/, '.mapping.json');
    const mapping: unknown = existsSync(mappingPath) ? JSON.parse(readFileSync(mappingPath, 'utf8')) : undefined;
    for (const docPath of docs) {
      pairs.push({ name: `${basename(docPath, '.md')} × ${basename(templatePath)}`, docPath, templatePath, mapping });
    }
  }
  return pairs;
}

export type Converter = (
  markdown: string,
  template: Uint8Array,
  mapping: unknown,
  pair: Pair,
) => Promise<Uint8Array | string>;

async function pool<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

/**
 * Converts and checks every pair. A converter that throws fails every check of its pair. With `pages`, the reader's
 * checks (pages.ts) also run on each PDF LibreOffice made.
 */
export async function runCorpus(
  pairs: Pair[],
  converter: Converter,
  options: { keep?: string; pages?: boolean } = {},
): Promise<PairResult[]> {
  const dir = options.keep ?? mkdtempSync(join(tmpdir(), 'dw-corpus-'));
  mkdirSync(dir, { recursive: true });
  try {
    const results: PairResult[] = [];
    const files: (string | null)[] = [];
    // Each template is read and unzipped once (the checks cache what they parse per package).
    const templates = new Map<string, { bytes: Uint8Array; parts: ReturnType<typeof unzip> }>();
    for (const [i, pair] of pairs.entries()) {
      const checks = Object.fromEntries(CHECKS.map((c) => [c, null])) as Record<Check, string | null>;
      const result: PairResult = { pair, checks, wordRatio: 0 };
      results.push(result);
      const markdown = readFileSync(pair.docPath, 'utf8');
      let known = templates.get(pair.templatePath);
      if (!known) {
        const bytes = new Uint8Array(readFileSync(pair.templatePath));
        known = { bytes, parts: unzip(bytes) };
        templates.set(pair.templatePath, known);
      }
      const template = known.bytes;
      let bytes: Uint8Array;
      try {
        const out = await converter(markdown, template, pair.mapping, pair);
        bytes = typeof out === 'string' ? new Uint8Array(readFileSync(out)) : out;
      } catch (error) {
        const why = `conversion failed: ${error instanceof Error ? error.message : String(error)}`;
        for (const c of CHECKS) checks[c] = why;
        if (options.pages) result.pages = Object.fromEntries(PAGE_CHECKS.map((c) => [c, why])) as PageResults;
        files.push(null);
        continue;
      }
      const file = join(dir, `pair-${String(i).padStart(3, '0')}.docx`);
      writeFileSync(file, bytes);
      files.push(file);
      const parts = unzip(bytes);
      const words = wordCoverage(markdown, parts);
      result.wordRatio = words.ratio;
      if (words.ratio < MIN_WORDS)
        checks.words = `${(words.ratio * 100).toFixed(1)} % of words (missing: ${words.missing.join(' ')})`;
      checks.ids = idsDefined(parts);
      checks.template = templateKept(known.parts, parts);
      checks.external = externalRelationships(parts);
    }
    await pool(
      results
        .map((r, i) => ({ r, file: files[i] }))
        .filter((x): x is { r: PairResult; file: string } => x.file !== null && x.file !== undefined),
      2,
      async ({ r, file }) => {
        try {
          await run(VALIDATOR, ['--all', '-q', '-n', '3', file], { maxBuffer: 64 * 1024 * 1024 });
        } catch (error) {
          const e = error as { stdout?: string; stderr?: string };
          r.checks.valid = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(0, 6).join(' | ') || 'invalid';
        }
      },
    );
    const docx = files.filter((f): f is string => f !== null);
    if (docx.length > 0) {
      const pdfDir = join(dir, 'pdf');
      await renderPdfs(docx, pdfDir);
      for (const [i, file] of files.entries()) {
        const r = results[i];
        if (!file || !r) continue;
        const pdf = join(pdfDir, basename(file).replace(/\.docx$/, '.pdf'));
        if (!existsSync(pdf)) {
          r.checks.opens = 'LibreOffice made no PDF';
          if (options.pages) r.pages = Object.fromEntries(PAGE_CHECKS.map((c) => [c, 'no PDF'])) as PageResults;
        }
      }
      if (options.pages)
        await pool(
          results.flatMap((r, i) => {
            const file = files[i];
            const pdf = file ? join(pdfDir, basename(file).replace(/\.docx$/, '.pdf')) : '';
            return file && existsSync(pdf) ? [{ r, file, pdf }] : [];
          }),
          2,
          async ({ r, file, pdf }) => {
            const template = templates.get(r.pair.templatePath)?.parts ?? {};
            r.pages = pageChecks(
              r.pair.name,
              await readPdf(pdf),
              readFileSync(r.pair.docPath, 'utf8'),
              template,
              unzip(new Uint8Array(readFileSync(file))),
            );
          },
        );
    }
    return results;
  } finally {
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * LibreOffice makes a PDF of each .docx into `outDir`: the files in two batches, one LibreOffice (with its own
 * profile) each, side by side; a batch that fails or times out leaves its PDFs missing (the caller checks).
 */
export async function renderPdfs(files: string[], outDir: string): Promise<void> {
  const batches = [files.filter((_, i) => i % 2 === 0), files.filter((_, i) => i % 2 === 1)];
  await Promise.all(
    batches
      .filter((batch) => batch.length > 0)
      .map((batch, b) =>
        run(
          'libreoffice',
          [
            `-env:UserInstallation=file://${outDir}-profile-${String(b)}`,
            '--headless',
            '--convert-to',
            'pdf',
            '--outdir',
            outDir,
            ...batch,
          ],
          { timeout: 15 * 60_000, maxBuffer: 16 * 1024 * 1024 },
        ).catch(() => undefined),
      ),
  );
  for (let b = 0; b < 2; b++) rmSync(`${outDir}-profile-${String(b)}`, { recursive: true, force: true });
}

/** Checks passed, out of all checks, per pair and in total. */
export function summary(results: PairResult[]): string {
  const lines = results.map((r) => {
    const passed = CHECKS.filter((c) => r.checks[c] === null).length;
    const failed = CHECKS.filter((c) => r.checks[c] !== null).map((c) => `${c}: ${String(r.checks[c])}`);
    return `${passed}/${CHECKS.length}  ${r.pair.name}  words ${(r.wordRatio * 100).toFixed(1)} %${failed.length ? `\n      ${failed.join('\n      ')}` : ''}`;
  });
  const total = results.reduce((n, r) => n + CHECKS.filter((c) => r.checks[c] === null).length, 0);
  const perCheck = CHECKS.map(
    (c) => `${c} ${results.filter((r) => r.checks[c] === null).length}/${results.length}`,
  ).join(', ');
  const clean = results.filter((r) => CHECKS.every((c) => r.checks[c] === null)).length;
  return `${lines.join('\n')}\n\nchecks passed: ${total}/${results.length * CHECKS.length}; pairs passing every check: ${clean}/${results.length}\nper check: ${perCheck}`;
}
