/**
 * `npm run bench`: Docwright against pandoc on generated markdown of about 10 KB, 120 KB and 1.2 MB.
 *
 *   tsx bench/run.ts [--sizes 10,120,1200] [--runs N] [--keep]
 *
 * Sizes are in KB (1 KB = 1024 bytes). Per size: Docwright in-process (convert(), 1 warm-up then the median of
 * N runs), Docwright as a process (node bin/docwright.js convert IN -o OUT) and pandoc as a process
 * (pandoc -f gfm -t docx --reference-doc=<Docwright's default template>), both the median of N runs, with the
 * children's peak RSS. Then the in-process linearity, a parse/compile/package profile (median of 5, or --runs) and
 * bench/results/latest.json. Inputs and outputs live in a temp dir, never in the repository.
 */
import { cpus, loadavg, tmpdir, platform, release } from 'node:os';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { convert, defaultTemplate } from '../server/convert/index.ts';
import { DEFAULT_RULES } from '../server/convert/default-template.ts';
import { parseMarkdown } from '../server/convert/parse.ts';
import { toDocx } from '../server/convert/compile/index.ts';
import { resolveStyles } from '../server/convert/mapping.ts';
import { readTemplate } from '../server/convert/template/read.ts';
import { packageDocument } from '../server/convert/package.ts';
import { generateMarkdown } from './generate.ts';
import { hasTimeBin, median, ProcessError, timeInProcess, timeProcess, versionOf, type ProcessSample } from './measure.ts';
import { formatTable, ratio, fixed } from './table.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(repoRoot, 'bin/docwright.js');
const CREATED = new Date('2024-01-01T00:00:00Z');
const DEFAULT_SIZES = [10, 120, 1200];
const PANDOC_FORMAT = 'gfm'; // pandoc 2.17's gfm reader: +footnotes +task_lists +pipe_tables +strikeout by default

interface Options {
  sizes: number[];
  runs: number | null;
  keep: boolean;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { sizes: DEFAULT_SIZES, runs: null, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      return v;
    };
    if (name === '--sizes') {
      options.sizes = value()
        .split(',')
        .map((s) => Number(s.trim()))
        .filter((n) => Number.isFinite(n) && n > 0);
      if (options.sizes.length === 0) throw new Error('--sizes: expected e.g. 10,120,1200 (KB)');
    } else if (name === '--runs') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) throw new Error('--runs: expected a positive integer');
      options.runs = n;
    } else if (name === '--keep') options.keep = true;
    else if (name === '--help' || name === '-h') {
      console.log('usage: tsx bench/run.ts [--sizes 10,120,1200] [--runs N] [--keep]');
      process.exit(0);
    } else if (name !== '--') throw new Error(`unknown option ${arg}`);
  }
  return options;
}

/** N = 7 up to 120 KB, 3 above (unless --runs). */
const runsFor = (kb: number, override: number | null): number => override ?? (kb > 500 ? 3 : 7);

type ProcessResult =
  | { ok: true; samples: ProcessSample[]; medianMs: number; peakRssMiB: number | null; outputBytes: number }
  | { ok: false; reason: string; detail?: string };

async function measureProcess(command: string, args: readonly string[], output: string, runs: number, rssFile: string): Promise<ProcessResult> {
  const samples: ProcessSample[] = [];
  try {
    for (let i = 0; i < runs; i++) samples.push(await timeProcess(command, args, output, repoRoot, rssFile));
  } catch (err) {
    if (err instanceof ProcessError) return { ok: false, reason: `error (${err.message})`, detail: err.detail };
    throw err;
  }
  const rss = samples.map((s) => s.rssKiB).filter((r): r is number => r !== null);
  return {
    ok: true,
    samples,
    medianMs: median(samples.map((s) => s.ms)),
    peakRssMiB: rss.length ? Math.max(...rss) / 1024 : null,
    outputBytes: statSync(output).size,
  };
}

interface SizeResult {
  targetKB: number;
  inputBytes: number;
  inputKB: number;
  runs: number;
  inProcess: { samplesMs: number[]; medianMs: number; mbPerSec: number; msPerKB: number; outputBytes: number };
  docwrightProcess: ProcessResult;
  pandoc: ProcessResult;
  ratioPandocToInProcess: number | null;
  ratioPandocToProcess: number | null;
}

interface Profile {
  sizeKB: number;
  runs: number;
  readTemplateMs: number;
  resolveStylesMs: number;
  parseMs: number;
  toDocxMs: number;
  compileMs: number;
  packageMs: number;
  totalMs: number;
}

function profile(markdown: string, sizeKB: number, runs: number): Profile {
  const bytes = defaultTemplate();
  const readTemplateMs = median(timeInProcess(() => void readTemplate(bytes), runs));
  const template = readTemplate(bytes);
  const stages = { resolve: [] as number[], parse: [] as number[], toDocx: [] as number[], pack: [] as number[] };
  const once = (record: boolean): void => {
    const t0 = performance.now();
    const { styles } = resolveStyles(DEFAULT_RULES, template.styles);
    const t1 = performance.now();
    const tree = parseMarkdown(markdown);
    const t2 = performance.now();
    const compiled = toDocx(tree, { styles, textWidthTwips: template.textWidthTwips });
    const t3 = performance.now();
    packageDocument(template, compiled, CREATED);
    const t4 = performance.now();
    if (!record) return;
    stages.resolve.push(t1 - t0);
    stages.parse.push(t2 - t1);
    stages.toDocx.push(t3 - t2);
    stages.pack.push(t4 - t3);
  };
  once(false);
  for (let i = 0; i < runs; i++) once(true);
  const resolveStylesMs = median(stages.resolve);
  const parseMs = median(stages.parse);
  const toDocxMs = median(stages.toDocx);
  const packageMs = median(stages.pack);
  return {
    sizeKB,
    runs,
    readTemplateMs,
    resolveStylesMs,
    parseMs,
    toDocxMs,
    compileMs: resolveStylesMs + toDocxMs,
    packageMs,
    totalMs: resolveStylesMs + parseMs + toDocxMs + packageMs,
  };
}

const cell = (r: ProcessResult, f: (ok: Extract<ProcessResult, { ok: true }>) => string): string => (r.ok ? f(r) : r.reason);

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const started = new Date();
  const loadAtStart = loadavg();
  const work = mkdtempSync(join(tmpdir(), 'docwright-bench-'));
  const rssFile = join(work, 'rss.txt');
  const referenceDoc = join(work, 'reference.docx');
  writeFileSync(referenceDoc, defaultTemplate());

  const pandocVersion = versionOf('pandoc', ['--version']);
  const cliMissing = !existsSync(cli);
  const nodeCmd = process.execPath;
  const cpuList = cpus();
  console.log(
    `Docwright bench — node ${process.version}, ${pandocVersion ?? 'pandoc missing'}, ${cpuList.length} × ${cpuList[0]?.model.trim() ?? 'cpu'}, ` +
      `load ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`,
  );
  if (!cliMissing) console.log(`bin/docwright.js runs ${cliMode()}`);
  console.log(`inputs in ${work}; peak RSS via ${hasTimeBin ? '/usr/bin/time -f %M' : '/proc/<pid>/status VmHWM polling (lower bound)'}`);

  // One warm-up of each whole-process tool on a tiny input, so the first measured size does not pay a cold start.
  const tiny = join(work, 'warmup.md');
  writeFileSync(tiny, generateMarkdown(2048));
  const warm = async (command: string, args: string[], out: string): Promise<void> => {
    try {
      await timeProcess(command, args, out, repoRoot, rssFile);
    } catch {
      // reported by the measured runs
    }
  };
  if (!cliMissing) await warm(nodeCmd, [cli, 'convert', tiny, '-o', join(work, 'warmup-dw.docx')], join(work, 'warmup-dw.docx'));
  if (pandocVersion) await warm('pandoc', pandocArgs(tiny, join(work, 'warmup-pandoc.docx'), referenceDoc, work), join(work, 'warmup-pandoc.docx'));

  const results: SizeResult[] = [];
  const markdowns = new Map<number, string>();
  for (const kb of options.sizes) {
    const runs = runsFor(kb, options.runs);
    const markdown = generateMarkdown(Math.round(kb * 1024));
    markdowns.set(kb, markdown);
    const inputBytes = Buffer.byteLength(markdown, 'utf8');
    const deviation = inputBytes / (kb * 1024) - 1;
    if (Math.abs(deviation) > 0.05) throw new Error(`generated ${inputBytes} bytes for ${kb} KB (${(deviation * 100).toFixed(1)} %)`);
    const input = join(work, `doc-${kb}kb.md`);
    writeFileSync(input, markdown);
    process.stdout.write(`${kb} KB (${runs} runs): in-process`);

    let outputBytes = 0;
    const inSamples = timeInProcess(() => {
      outputBytes = convert({ markdown, created: CREATED }).docx.byteLength;
    }, runs);
    const inMedian = median(inSamples);

    process.stdout.write(', docwright process');
    const dwOut = join(work, `doc-${kb}kb.docwright.docx`);
    const dw: ProcessResult = cliMissing
      ? { ok: false, reason: 'n/a (bin/docwright.js missing)' }
      : await measureProcess(nodeCmd, [cli, 'convert', input, '-o', dwOut], dwOut, runs, rssFile);

    process.stdout.write(', pandoc');
    const pdOut = join(work, `doc-${kb}kb.pandoc.docx`);
    const pd: ProcessResult = pandocVersion
      ? await measureProcess('pandoc', pandocArgs(input, pdOut, referenceDoc, work), pdOut, runs, rssFile)
      : { ok: false, reason: 'n/a (pandoc missing)' };
    process.stdout.write('\n');

    results.push({
      targetKB: kb,
      inputBytes,
      inputKB: inputBytes / 1024,
      runs,
      inProcess: {
        samplesMs: inSamples,
        medianMs: inMedian,
        mbPerSec: inputBytes / 1024 / 1024 / (inMedian / 1000),
        msPerKB: inMedian / (inputBytes / 1024),
        outputBytes,
      },
      docwrightProcess: dw,
      pandoc: pd,
      ratioPandocToInProcess: pd.ok ? pd.medianMs / inMedian : null,
      ratioPandocToProcess: pd.ok && dw.ok ? pd.medianMs / dw.medianMs : null,
    });
  }

  // Profile of the 120 KB document (or of the largest size run when 120 KB was not selected).
  const profileKB = options.sizes.includes(120) ? 120 : Math.max(...options.sizes);
  const profileMarkdown = markdowns.get(profileKB) ?? generateMarkdown(profileKB * 1024);
  const prof = profile(profileMarkdown, profileKB, options.runs ?? 5);

  // Report.
  console.log('');
  const header = [
    'input KB',
    'Docwright in-process ms',
    'Docwright process ms',
    'pandoc ms',
    'pandoc/DW in-proc',
    'pandoc/DW process',
    'DW MB/s',
    'DW peak RSS MB',
    'pandoc peak RSS MB',
  ];
  const rows = results.map((r) => [
    fixed(r.inputKB, 1),
    fixed(r.inProcess.medianMs, 1),
    cell(r.docwrightProcess, (p) => fixed(p.medianMs, 1)),
    cell(r.pandoc, (p) => fixed(p.medianMs, 1)),
    r.ratioPandocToInProcess === null ? 'n/a' : ratio(r.ratioPandocToInProcess),
    r.ratioPandocToProcess === null ? 'n/a' : ratio(r.ratioPandocToProcess),
    fixed(r.inProcess.mbPerSec, 2),
    r.docwrightProcess.ok ? (r.docwrightProcess.peakRssMiB === null ? '?' : fixed(r.docwrightProcess.peakRssMiB, 1)) : 'n/a',
    r.pandoc.ok ? (r.pandoc.peakRssMiB === null ? '?' : fixed(r.pandoc.peakRssMiB, 1)) : 'n/a',
  ]);
  console.log(formatTable(header, rows, [false, true, true, true, true, true, true, true, true]));
  console.log('(medians; ratios > 1× mean pandoc is slower; 1 KB = 1024 bytes, 1 MB = 1024 KB)');

  for (const r of results) {
    for (const [name, p] of [['Docwright process', r.docwrightProcess], ['pandoc', r.pandoc]] as const) {
      if (!p.ok && p.detail) console.log(`${r.targetKB} KB ${name}: ${p.reason}\n  ${p.detail.split('\n').join('\n  ')}`);
    }
  }

  console.log('');
  const perKB = results.map((r) => `${fixed(r.inputKB, 0)} KB: ${fixed(r.inProcess.msPerKB, 3)} ms/KB`).join(', ');
  const r120 = results.find((r) => r.targetKB === 120);
  const r1200 = results.find((r) => r.targetKB === 1200);
  const linearity = r120 && r1200 ? r1200.inProcess.msPerKB / r120.inProcess.msPerKB : null;
  console.log(
    `Linearity (in-process): ${perKB}` +
      (linearity === null ? '' : `; 1.2 MB per-KB time / 120 KB per-KB time = ${linearity.toFixed(2)} (1.00 = linear)`),
  );

  console.log('');
  const pct = (ms: number): string => `${((ms / prof.totalMs) * 100).toFixed(0)} %`;
  console.log(`Profile, ${prof.sizeKB} KB document (median of ${prof.runs}; the template is read once and cached by convert()):`);
  console.log(
    formatTable(
      ['stage', 'ms', 'share'],
      [
        ['parse (parseMarkdown)', fixed(prof.parseMs, 1), pct(prof.parseMs)],
        ['compile (resolveStyles + toDocx)', fixed(prof.compileMs, 1), pct(prof.compileMs)],
        ['  resolveStyles', fixed(prof.resolveStylesMs, 2), pct(prof.resolveStylesMs)],
        ['  toDocx', fixed(prof.toDocxMs, 1), pct(prof.toDocxMs)],
        ['package (packageDocument)', fixed(prof.packageMs, 1), pct(prof.packageMs)],
        ['total', fixed(prof.totalMs, 1), '100 %'],
        ['readTemplate (once, not in total)', fixed(prof.readTemplateMs, 2), ''],
      ],
      [false, true, true],
    ),
  );

  const resultsDir = join(repoRoot, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  const json = {
    date: started.toISOString(),
    durationSec: (Date.now() - started.getTime()) / 1000,
    environment: {
      node: process.version,
      pandoc: pandocVersion,
      pandocFormat: PANDOC_FORMAT,
      platform: `${platform()} ${release()}`,
      cpus: cpuList.length,
      cpuModel: cpuList[0]?.model.trim() ?? null,
      loadavgAtStart: loadAtStart,
      loadavgAtEnd: loadavg(),
      rssSource: hasTimeBin ? '/usr/bin/time -f %M' : '/proc VmHWM polling',
      docwrightCli: cliMissing ? null : cliMode(),
    },
    options: { sizes: options.sizes, runs: options.runs },
    results,
    linearity: { msPerKB: Object.fromEntries(results.map((r) => [r.targetKB, r.inProcess.msPerKB])), ratio1200to120: linearity },
    profile: prof,
  };
  const out = join(resultsDir, 'latest.json');
  writeFileSync(out, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`\nwrote ${out} (${json.durationSec.toFixed(0)} s)`);
  if (!options.keep) rmSync(work, { recursive: true, force: true });
}

/** How bin/docwright.js will run: its bundle when dist/cli.js is newer than every file in server/, else the sources via tsx. */
function cliMode(): string {
  const bundle = join(repoRoot, 'dist/cli.js');
  const newest = (dir: string): number => {
    let max = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      max = Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
    }
    return max;
  };
  const sources = join(repoRoot, 'server');
  if (!existsSync(bundle)) return 'the sources through tsx (no dist/cli.js: process times include TypeScript loading)';
  if (existsSync(sources) && statSync(bundle).mtimeMs < newest(sources))
    return 'the sources through tsx (dist/cli.js is older than server/: process times include TypeScript loading; `npm install` rebuilds it)';
  return 'the bundle dist/cli.js';
}

function pandocArgs(input: string, output: string, referenceDoc: string, resourcePath: string): string[] {
  return ['-f', PANDOC_FORMAT, '-t', 'docx', `--reference-doc=${referenceDoc}`, `--resource-path=${resourcePath}`, '-o', output, input];
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
