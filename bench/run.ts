/**
 * `npm run bench`: Docwright against pandoc (and, with --peers, the npm peers markdown-docx and @mohtasham/md-to-docx)
 * on generated markdown of about 10 KB, 120 KB and 1.2 MB, the HTTPS server under load with a 9 KB document
 * (bench/load.ts, 1 and 8 clients), the storage write at 100 and 100,000 records (bench/storage.ts), then one table
 * of every measure against issue 31's and issue 17's targets (bench/goals.ts). Besides, at 120 KB: `docwright convert`
 * as a cold process on a second document of headings, lists, tables, code, links and PNG images, through a running
 * `docwright serve` (bench/cli-server.ts), and 20 documents in one `docwright convert … -o DIR/` against 20 pandoc
 * processes; and the resident memory of that server once it has converted nothing for 60 s (waited for while the
 * other measures run). Issue 33's highlighting: a 120 KB document with 50 code blocks in 5 languages, in-process with
 * highlighting and without (`code_highlighting: off`), and the first conversion that loads the highlighter.
 *
 *   tsx bench/run.ts [--sizes 10,120,1200] [--runs N] [--keep] [--peers] [--no-load] [--load-only]
 *                    [--no-storage] [--storage-only] [--no-highlight] [--highlight-only]
 *                    [--connections 1,8,32] [--duration S]
 *
 * Sizes are in KB (1 KB = 1024 bytes). Per size, in this process: Docwright's convert(), the same conversion in a
 * worker of the server's pool, and each npm peer called as its README shows (1 warm-up, then the median of N runs);
 * as processes (each with its peak RSS): Docwright (node bin/docwright.js convert IN -o OUT, no server running for its
 * data folder: a cold process), pandoc
 * (pandoc -f gfm -t docx --reference-doc=<Docwright's default template>) and each npm peer (node
 * bench/peer-cli.mjs). Then the in-process linearity, a parse/compile/package profile (median of 5, or --runs), the
 * load test, and bench/results/latest.json. Inputs and outputs live in a temp dir, never in the repository.
 */
import { cpus, loadavg, tmpdir, platform, release } from 'node:os';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { convert, defaultTemplate } from '../server/convert/index.ts';
import { DEFAULT_RULES } from '../server/convert/default-template.ts';
import { parseMarkdown } from '../server/convert/parse/index.ts';
import { toDocx } from '../server/convert/compile/index.ts';
import { resolveStyles } from '../server/convert/mapping.ts';
import { readTemplate } from '../server/convert/template/read.ts';
import { packageDocument } from '../server/convert/package/index.ts';
import { ConvertPool } from '../server/convert-pool/pool.ts';
import {
  CODE_LANGUAGES,
  generateCodeMarkdown,
  generateMarkdown,
  generateMixedMarkdown,
  MIXED_IMAGES,
  pngImage,
} from './generate.ts';
import {
  convertThroughApi,
  startServe,
  timeBatch,
  timePandocEach,
  treeMemory,
  type BatchResult,
  type RunningServe,
  type TreeMemory,
} from './cli-server.ts';
import { printLoad, runLoad, type LoadResult } from './load.ts';
import { measureStorage, printStorage } from './storage.ts';
import { goalsTable } from './goals.ts';
import {
  hasTimeBin,
  median,
  ProcessError,
  timeInProcess,
  timeInProcessAsync,
  timeProcess,
  versionOf,
  type ProcessSample,
} from './measure.ts';
import { peers } from './peers.mjs';
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
  peers: boolean;
  load: boolean;
  engine: boolean;
  storage: boolean;
  highlight: boolean;
  connections: number[];
  duration: number;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = {
    sizes: DEFAULT_SIZES,
    runs: null,
    keep: false,
    peers: false,
    load: true,
    engine: true,
    storage: true,
    highlight: true,
    connections: [1, 8],
    duration: 10,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [name, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
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
    else if (name === '--no-peers') options.peers = false;
    else if (name === '--peers') options.peers = true;
    else if (name === '--no-load') options.load = false;
    else if (name === '--load-only') {
      options.engine = false;
      options.highlight = false;
    } else if (name === '--no-storage') options.storage = false;
    else if (name === '--no-highlight') options.highlight = false;
    else if (name === '--highlight-only') {
      options.engine = false;
      options.load = false;
      options.storage = false;
    } else if (name === '--storage-only') {
      options.engine = false;
      options.load = false;
      options.highlight = false;
    } else if (name === '--connections')
      options.connections = value()
        .split(',')
        .map(Number)
        .filter((n) => Number.isInteger(n) && n > 0);
    else if (name === '--duration') options.duration = Number(value());
    else if (name === '--help' || name === '-h') {
      console.log(
        [
          'usage: npm run bench -- [options]   (tsx bench/run.ts; run `npm run build` first)',
          '',
          'Docwright beside pandoc (needs `pandoc` on PATH) on generated documents, then the HTTPS server under load and',
          "the storage write; ends with one table against issue 31's and 17's targets. A full run takes 3 to 5 minutes on 2 cores;",
          'run it on a quiet machine (docs/performance.md has the latest table).',
          '',
          '  --sizes 10,120,1200   document sizes in KB',
          '  --runs N              runs per size (default 7 up to 120 KB, 3 above)',
          '  --keep                keep the generated documents and outputs',
          '  --peers               also the npm converters (markdown-docx, @mohtasham/md-to-docx); minutes longer',
          '  --no-load             skip the HTTPS load test        --load-only     only the HTTPS load test',
          '  --no-storage          skip the storage write          --storage-only  only the storage write',
          '  --no-highlight        skip highlighting on/off        --highlight-only  only highlighting on/off',
          '  --connections 1,8,32  concurrent HTTPS clients        --duration S    seconds per load step',
        ].join('\n'),
      );
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

async function measureProcess(
  command: string,
  args: readonly string[],
  output: string,
  runs: number,
  rssFile: string,
): Promise<ProcessResult> {
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

interface PeerResult {
  name: string;
  version: string;
  /** In this process: median ms, or the error. */
  inProcess: { ok: true; medianMs: number; outputBytes: number } | { ok: false; reason: string };
  process: ProcessResult;
  /** Peer in-process time ÷ Docwright in-process time (> 1: Docwright is faster). */
  ratioToDocwright: number | null;
}

interface SizeResult {
  targetKB: number;
  inputBytes: number;
  inputKB: number;
  runs: number;
  inProcess: { samplesMs: number[]; medianMs: number; mbPerSec: number; msPerKB: number; outputBytes: number };
  /** The same conversion in a worker of the server's pool (its heap settings), median ms. */
  worker: { medianMs: number };
  /** `docwright convert` with no server running for its data folder: the whole conversion in a cold process. */
  docwrightProcess: ProcessResult;
  pandoc: ProcessResult;
  peers: PeerResult[];
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

async function profile(markdown: string, sizeKB: number, runs: number): Promise<Profile> {
  const bytes = defaultTemplate();
  const readTemplateMs = median(timeInProcess(() => void readTemplate(bytes), runs));
  const template = readTemplate(bytes);
  const stages = { resolve: [] as number[], parse: [] as number[], toDocx: [] as number[], pack: [] as number[] };
  const once = async (record: boolean): Promise<void> => {
    const t0 = performance.now();
    const { styles } = resolveStyles(DEFAULT_RULES, template.styles);
    const t1 = performance.now();
    const tree = parseMarkdown(markdown);
    const t2 = performance.now();
    const compiled = toDocx(tree, { styles, textWidthTwips: template.textWidthTwips });
    const t3 = performance.now();
    await packageDocument(template, compiled, CREATED);
    const t4 = performance.now();
    if (!record) return;
    stages.resolve.push(t1 - t0);
    stages.parse.push(t2 - t1);
    stages.toDocx.push(t3 - t2);
    stages.pack.push(t4 - t3);
  };
  await once(false);
  for (let i = 0; i < runs; i++) await once(true);
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

/** Issue 33's highlighting measure: a 120 KB document with 50 code blocks, converted with and without highlighting. */
export interface HighlightResult {
  inputKB: number;
  blocks: number;
  languages: readonly string[];
  runs: number;
  /** The first conversion with highlighting in this process: it loads the highlighter and the grammars. */
  firstMs: number;
  onMs: number;
  offMs: number;
  /** The same conversions' CPU time (process.cpuUsage: this process's threads, its GC helpers included), medians. */
  onCpuMs: number;
  offCpuMs: number;
}

/** The highlighting document converted `runs` times each way, alternately (after one warm-up each), medians. */
async function highlightBench(runs: number): Promise<HighlightResult> {
  const markdown = generateCodeMarkdown(120 * 1024);
  const on = { markdown, created: CREATED };
  const off = { ...on, mapping: { ...DEFAULT_RULES, code_highlighting: 'off' as const } };
  const first = performance.now();
  await convert(on);
  const firstMs = performance.now() - first;
  await convert(off);
  const samples = { on: [] as number[], off: [] as number[] };
  const cpu = { on: [] as number[], off: [] as number[] };
  const cpuMs = (): number => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  for (let i = 0; i < runs; i++)
    for (const [input, into, cpuInto] of [
      [on, samples.on, cpu.on],
      [off, samples.off, cpu.off],
    ] as const) {
      const start = performance.now();
      const startCpu = cpuMs();
      await convert(input);
      into.push(performance.now() - start);
      cpuInto.push(cpuMs() - startCpu);
    }
  return {
    inputKB: Buffer.byteLength(markdown, 'utf8') / 1024,
    blocks: (markdown.match(/^(```|~~~)\w+$/gm) ?? []).length,
    languages: CODE_LANGUAGES,
    runs,
    firstMs,
    onMs: median(samples.on),
    offMs: median(samples.off),
    onCpuMs: median(cpu.on),
    offCpuMs: median(cpu.off),
  };
}

/** Prints the highlighting measure. */
function printHighlight(highlighting: HighlightResult): void {
  console.log('');
  console.log(
    `Highlighting (issue 33), ${fixed(highlighting.inputKB, 1)} KB with ${String(highlighting.blocks)} code blocks in ${highlighting.languages.join(', ')} (in-process, medians of ${String(highlighting.runs)}, ms):`,
  );
  console.log(
    formatTable(
      ['', 'highlighting on', 'off (code_highlighting: off)', 'on/off', 'first conversion (loads lowlight + grammars)'],
      [
        [
          'elapsed',
          fixed(highlighting.onMs, 1),
          fixed(highlighting.offMs, 1),
          ratio(highlighting.onMs / highlighting.offMs),
          fixed(highlighting.firstMs, 1),
        ],
        [
          'CPU',
          fixed(highlighting.onCpuMs, 1),
          fixed(highlighting.offCpuMs, 1),
          ratio(highlighting.onCpuMs / highlighting.offCpuMs),
          '',
        ],
      ],
      [false, true, true, true, true],
    ),
  );
  console.log(
    "(CPU: the process's CPU time during each conversion; on a machine other jobs keep busy, the elapsed times move with them more than it does)",
  );
}

const cell = (r: ProcessResult, f: (ok: Extract<ProcessResult, { ok: true }>) => string): string =>
  r.ok ? f(r) : r.reason;

/** Cores other programs may keep busy during an HTTPS row before the bench says so (see LoadRow.otherCores). */
const OTHER_CORES_NOTED = 0.1;

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const started = new Date();
  const loadAtStart = loadavg();
  const cpuList = cpus();
  const pandocVersion = versionOf('pandoc', ['--version']);
  console.log(
    `Docwright bench — node ${process.version}, ${pandocVersion ?? 'pandoc missing'}, ` +
      `${peers.map((p) => `${p.name} ${p.version}`).join(', ')}, ${cpuList.length} × ${cpuList[0]?.model.trim() ?? 'cpu'}, ` +
      `load ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`,
  );
  const engine = options.engine ? await engineBench(options, pandocVersion) : null;
  const highlighting = options.highlight ? await highlightBench(options.runs ?? 7) : null;
  if (highlighting) printHighlight(highlighting);
  let load: LoadResult | null = null;
  if (options.load) {
    load = await runLoad({ connections: options.connections, duration: options.duration, format: 'json', sizeKB: 9 });
    printLoad(load);
  }
  const storage = options.storage ? await measureStorage() : null;
  if (storage) printStorage(storage);
  console.log(
    `\nIssue 31's and issue 17's targets (this run; load ${loadAtStart.map((l) => l.toFixed(1)).join(' ')} at start, ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} now):`,
  );
  console.log(goalsTable(engine?.results ?? [], load, storage, engine?.cli ?? null, highlighting));
  // The HTTPS rows share 2 cores with the load generator: anything else running then moves them first.
  const shared = load?.rows.filter((r) => r.otherCores > OTHER_CORES_NOTED) ?? [];
  if (shared.length > 0)
    console.log(
      `(other programs kept the cores busy during the HTTPS rows: ${shared
        .map((r) => `${fixed(r.otherCores, 2)} cores at ${r.connections} client${r.connections === 1 ? '' : 's'}`)
        .join(', ')}; those rows measured a shared machine: run the bench alone)`,
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
      peers: Object.fromEntries(peers.map((p) => [p.name, p.version])),
      platform: `${platform()} ${release()}`,
      cpus: cpuList.length,
      cpuModel: cpuList[0]?.model.trim() ?? null,
      loadavgAtStart: loadAtStart,
      loadavgAtEnd: loadavg(),
      rssSource: hasTimeBin ? '/usr/bin/time -f %M' : '/proc VmHWM polling',
      docwrightCli: existsSync(cli) ? cliMode() : null,
    },
    options,
    ...(engine ?? {}),
    highlighting,
    load,
    storage,
  };
  const out = join(resultsDir, 'latest.json');
  writeFileSync(out, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`\nwrote ${out} (${json.durationSec.toFixed(0)} s)`);
}

/** Median ms of `runs` conversions in one worker of the server's pool (after warm-ups: a fresh thread compiles). */
async function timeInWorker(markdown: string, runs: number): Promise<number> {
  const pool = new ConvertPool({ size: 1, timeoutMs: 600_000 });
  try {
    const job = {
      markdown,
      mapping: DEFAULT_RULES,
      created: CREATED,
      template: { key: 'builtin', bytes: defaultTemplate() },
    };
    for (let i = 0; i < Math.max(2, Math.min(runs, 5)); i++) await pool.run(job);
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await pool.run(job);
      samples.push(performance.now() - start);
    }
    return median(samples);
  } finally {
    await pool.close();
  }
}

async function timePeer(
  convertPeer: (markdown: string) => Promise<Uint8Array>,
  markdown: string,
  runs: number,
): Promise<PeerResult['inProcess']> {
  try {
    let outputBytes = (await convertPeer(markdown)).byteLength;
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      outputBytes = (await convertPeer(markdown)).byteLength;
      samples.push(performance.now() - start);
    }
    return { ok: true, medianMs: median(samples), outputBytes };
  } catch (error) {
    return {
      ok: false,
      reason: `error (${String(error instanceof Error ? error.message.split('\n')[0] : String(error))})`,
    };
  }
}

async function engineBench(options: Options, pandocVersion: string | null) {
  const work = mkdtempSync(join(tmpdir(), 'docwright-bench-'));
  const rssFile = join(work, 'rss.txt');
  const referenceDoc = join(work, 'reference.docx');
  writeFileSync(referenceDoc, defaultTemplate());
  const cliMissing = !existsSync(cli);
  const nodeCmd = process.execPath;
  const peerCli = join(repoRoot, 'bench/peer-cli.mjs');
  const activePeers = options.peers ? peers : [];
  if (!cliMissing) console.log(`bin/docwright.js runs ${cliMode()}`);
  console.log(
    `inputs in ${work}; peak RSS via ${hasTimeBin ? '/usr/bin/time -f %M' : '/proc/<pid>/status VmHWM polling (lower bound)'}`,
  );

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
  // The cold command line's data folder: one of this run, where no server runs.
  process.env.DOCWRIGHT_HOME = join(work, 'home');
  if (!cliMissing)
    await warm(nodeCmd, [cli, 'convert', tiny, '-o', join(work, 'warmup-dw.docx')], join(work, 'warmup-dw.docx'));
  if (pandocVersion)
    await warm(
      'pandoc',
      pandocArgs(tiny, join(work, 'warmup-pandoc.docx'), referenceDoc, work),
      join(work, 'warmup-pandoc.docx'),
    );
  for (const peer of activePeers)
    await warm(
      nodeCmd,
      [peerCli, peer.name, tiny, join(work, `warmup-${peer.name}.docx`)],
      join(work, `warmup-${peer.name}.docx`),
    );

  // A server (`docwright serve` on a data folder of this run) first: `docwright convert` through it, then it rests
  // while the other measures run, and its memory is read once it has converted nothing for 60 s.
  const cliRows = await serverBench(options, work, cliMissing, rssFile);

  const results: SizeResult[] = [];
  const markdowns = new Map<number, string>();
  for (const kb of options.sizes) {
    const runs = runsFor(kb, options.runs);
    const markdown = generateMarkdown(Math.round(kb * 1024));
    markdowns.set(kb, markdown);
    const inputBytes = Buffer.byteLength(markdown, 'utf8');
    const deviation = inputBytes / (kb * 1024) - 1;
    if (Math.abs(deviation) > 0.05)
      throw new Error(`generated ${inputBytes} bytes for ${kb} KB (${(deviation * 100).toFixed(1)} %)`);
    const input = join(work, `doc-${kb}kb.md`);
    writeFileSync(input, markdown);
    process.stdout.write(`${kb} KB (${runs} runs): in-process`);

    let outputBytes = 0;
    const inSamples = await timeInProcessAsync(async () => {
      outputBytes = (await convert({ markdown, created: CREATED })).docx.byteLength;
    }, runs);
    const inMedian = median(inSamples);
    process.stdout.write(', worker');
    const workerMedian = await timeInWorker(markdown, runs);

    const peerResults: PeerResult[] = [];
    for (const peer of activePeers) {
      process.stdout.write(`, ${peer.name}`);
      const inProcess = await timePeer(peer.convert, markdown, runs);
      const out = join(work, `doc-${kb}kb.${peer.name}.docx`);
      process.stdout.write(` (process)`);
      const proc = await measureProcess(nodeCmd, [peerCli, peer.name, input, out], out, runs, rssFile);
      peerResults.push({
        name: peer.name,
        version: peer.version,
        inProcess,
        process: proc,
        ratioToDocwright: inProcess.ok ? inProcess.medianMs / inMedian : null,
      });
    }

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
      worker: { medianMs: workerMedian },
      docwrightProcess: dw,
      pandoc: pd,
      peers: peerResults,
      ratioPandocToInProcess: pd.ok ? pd.medianMs / inMedian : null,
      ratioPandocToProcess: pd.ok && dw.ok ? pd.medianMs / dw.medianMs : null,
    });
  }

  const cliResult = await cliRows.finish(
    pandocVersion ? (input, output, resourcePath) => pandocArgs(input, output, referenceDoc, resourcePath) : null,
  );

  // Profile of the 120 KB document (or of the largest size run when 120 KB was not selected).
  const profileKB = options.sizes.includes(120) ? 120 : Math.max(...options.sizes);
  const profileMarkdown = markdowns.get(profileKB) ?? generateMarkdown(profileKB * 1024);
  const prof = await profile(profileMarkdown, profileKB, options.runs ?? 5);

  // Report: in one process (libraries), then as processes (command lines, with their memory).
  console.log('');
  const peerNames = activePeers.map((p) => p.name);
  console.log('In-process (a library call, the way a server or script uses it; medians, ms):');
  console.log(
    formatTable(
      ['input KB', 'Docwright', 'Docwright worker', ...peerNames.flatMap((n) => [n, `${n}/DW`]), 'DW MB/s'],
      results.map((r) => [
        fixed(r.inputKB, 1),
        fixed(r.inProcess.medianMs, 1),
        fixed(r.worker.medianMs, 1),
        ...r.peers.flatMap((p) => [
          p.inProcess.ok ? fixed(p.inProcess.medianMs, 1) : p.inProcess.reason,
          p.ratioToDocwright === null ? 'n/a' : ratio(p.ratioToDocwright),
        ]),
        fixed(r.inProcess.mbPerSec, 2),
      ]),
      [false, true, true, ...peerNames.flatMap(() => [true, true]), true],
    ),
  );
  console.log(
    "(Docwright worker: the same conversion in a worker thread of the server's pool, with its heap settings; peer/DW > 1× means Docwright is faster)",
  );
  console.log('');
  console.log('As processes (a command run per document, start-up included; medians, ms; peak RSS, MB):');
  const rss = (p: ProcessResult) => (p.ok ? (p.peakRssMiB === null ? '?' : fixed(p.peakRssMiB, 0)) : 'n/a');
  console.log(
    formatTable(
      [
        'input KB',
        'Docwright',
        'pandoc',
        ...peerNames,
        'pandoc/DW',
        'pandoc/DW in-proc',
        'RSS Docwright',
        'RSS pandoc',
        ...peerNames.map((n) => `RSS ${n}`),
      ],
      results.map((r) => [
        fixed(r.inputKB, 1),
        cell(r.docwrightProcess, (p) => fixed(p.medianMs, 1)),
        cell(r.pandoc, (p) => fixed(p.medianMs, 1)),
        ...r.peers.map((p) => cell(p.process, (x) => fixed(x.medianMs, 1))),
        r.ratioPandocToProcess === null ? 'n/a' : ratio(r.ratioPandocToProcess),
        r.ratioPandocToInProcess === null ? 'n/a' : ratio(r.ratioPandocToInProcess),
        rss(r.docwrightProcess),
        rss(r.pandoc),
        ...r.peers.map((p) => rss(p.process)),
      ]),
      [false, true, true, ...peerNames.map(() => true), true, true, true, true, ...peerNames.map(() => true)],
    ),
  );
  console.log(
    "(Docwright: `docwright convert` with no server running for its data folder, the whole conversion in a cold process, whose peak RSS is the conversion's; pandoc/DW > 1× means pandoc is slower; 1 KB = 1024 bytes, 1 MB = 1024 KB)",
  );
  printCli(cliResult, results);

  for (const r of results) {
    const procs: [string, ProcessResult][] = [
      ['Docwright process', r.docwrightProcess],
      ['pandoc', r.pandoc],
      ...r.peers.map((p): [string, ProcessResult] => [p.name, p.process]),
    ];
    for (const [name, p] of procs) {
      if (!p.ok && p.detail)
        console.log(`${r.targetKB} KB ${name}: ${p.reason}\n  ${p.detail.split('\n').join('\n  ')}`);
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
  console.log(
    `Profile, ${prof.sizeKB} KB document (median of ${prof.runs}; the template is read once and cached by convert()):`,
  );
  console.log(
    formatTable(
      ['stage', 'ms', 'share'],
      [
        ['parse (parseMarkdown: remark/micromark)', fixed(prof.parseMs, 1), pct(prof.parseMs)],
        ['compile (resolveStyles + toDocx)', fixed(prof.compileMs, 1), pct(prof.compileMs)],
        ['  resolveStyles', fixed(prof.resolveStylesMs, 2), pct(prof.resolveStylesMs)],
        ['  toDocx', fixed(prof.toDocxMs, 1), pct(prof.toDocxMs)],
        ['package (packageDocument: merge + zip)', fixed(prof.packageMs, 1), pct(prof.packageMs)],
        ['total', fixed(prof.totalMs, 1), '100 %'],
        ['readTemplate (once, not in total)', fixed(prof.readTemplateMs, 2), ''],
      ],
      [false, true, true],
    ),
  );
  if (!options.keep) rmSync(work, { recursive: true, force: true });
  return {
    results,
    linearity: {
      msPerKB: Object.fromEntries(results.map((r) => [r.targetKB, r.inProcess.msPerKB])),
      ratio1200to120: linearity,
    },
    profile: prof,
    cli: cliResult,
  };
}

/** What the command line does at 120 KB beside pandoc (issue 31), and a `docwright serve` at rest. */
export interface CliResult {
  kb: number;
  /** `docwright convert` through a running `docwright serve` on a data folder of this run (once the command line
   * sends its jobs to a running server; before that, what it does with that data folder). */
  server: ProcessResult;
  /** That server's first conversion, through its API as the command line calls it (it starts a worker then), ms. */
  serverFirstMs: number | null;
  /** A document of headings, lists, tables, code, links and PNG images, as a cold process, and pandoc on it. */
  mixed: { docwright: ProcessResult; pandoc: ProcessResult; images: number };
  /** COUNT documents of 120 KB in one `docwright convert … -o DIR/`, and one pandoc process each. */
  batch: { count: number; docwright: BatchResult; pandoc: BatchResult };
  /** The server once it has converted nothing for idleSec: all its processes' memory, then its next conversion. */
  rest: {
    idleSec: number;
    serverPid: number;
    launcherPid: number | null;
    memory: TreeMemory | null;
    firstAfterIdleMs: number | null;
  } | null;
  error?: string;
}

const BATCH_COUNT = 20;
const REST_SEC = 60;

/**
 * Starts `docwright serve` on a data folder of this run and measures `docwright convert` through it now; `finish`
 * measures the mixed document and the batch (cold, in the command line's own data folder), waits until the server
 * has rested REST_SEC since its last conversion, reads its memory, times its next conversion and stops it.
 */
async function serverBench(options: Options, work: string, cliMissing: boolean, rssFile: string) {
  const kb = 120;
  const runs = runsFor(kb, options.runs);
  const input = join(work, `serve-${kb}kb.md`);
  writeFileSync(input, generateMarkdown(kb * 1024));
  const output = join(work, `serve-${kb}kb.docx`);
  let serve: RunningServe | null = null;
  let server: ProcessResult = { ok: false, reason: 'n/a (bin/docwright.js missing)' };
  let serverFirstMs: number | null = null;
  let lastUse = Date.now();
  let error: string | undefined;
  const args = (dir: string): string[] => [cli, '--data-dir', dir, 'convert', input, '-o', output];
  if (!cliMissing) {
    try {
      process.stdout.write(`docwright serve: starting`);
      serve = await startServe(process.execPath, cli, join(work, 'serve-data'), repoRoot);
      const stop = serve.stop;
      process.once('exit', () => void stop());
      process.stdout.write(` (pid ${String(serve.pid)}), ${kb} KB through it\n`);
      // Its first conversion through the API (the command line's route once it sends jobs to a running server; the
      // server has then converted, whatever this command line does).
      serverFirstMs = await convertThroughApi(serve, readFileSync(input, 'utf8'));
      server = await measureProcess(process.execPath, args(serve.dataDir), output, runs, rssFile);
      lastUse = Date.now();
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
      server = { ok: false, reason: `error (${error})` };
    }
  }
  return {
    finish: async (
      pandocFor: ((input: string, output: string, resourcePath: string) => string[]) | null,
    ): Promise<CliResult> => {
      // The mixed document and its images, beside it in images/ (docwright embeds the files beside INPUT; pandoc
      // finds them through --resource-path).
      const mixedDir = join(work, 'mixed');
      mkdirSync(join(mixedDir, 'images'), { recursive: true });
      MIXED_IMAGES.forEach((name, i) =>
        writeFileSync(join(mixedDir, name), pngImage(160 + 40 * i, 90 + 20 * i, i + 1)),
      );
      const mixed = join(mixedDir, `mixed-${kb}kb.md`);
      writeFileSync(mixed, generateMixedMarkdown(kb * 1024));
      process.stdout.write(`mixed ${kb} KB document with ${MIXED_IMAGES.length} PNGs: docwright process`);
      const mixedOut = join(mixedDir, 'mixed.docwright.docx');
      const mixedDw: ProcessResult = cliMissing
        ? { ok: false, reason: 'n/a (bin/docwright.js missing)' }
        : await measureProcess(process.execPath, [cli, 'convert', mixed, '-o', mixedOut], mixedOut, runs, rssFile);
      process.stdout.write(', pandoc');
      const mixedPdOut = join(mixedDir, 'mixed.pandoc.docx');
      const mixedPd: ProcessResult = pandocFor
        ? await measureProcess('pandoc', pandocFor(mixed, mixedPdOut, mixedDir), mixedPdOut, runs, rssFile)
        : { ok: false, reason: 'n/a (pandoc missing)' };

      process.stdout.write(`\nbatch of ${BATCH_COUNT} × ${kb} KB: one docwright convert`);
      const batchDir = join(work, 'batch');
      mkdirSync(batchDir, { recursive: true });
      const inputs = Array.from({ length: BATCH_COUNT }, (_, i) => {
        const file = join(batchDir, `doc-${String(i + 1).padStart(2, '0')}.md`);
        writeFileSync(file, generateMarkdown(kb * 1024, 0x5eed + i));
        return file;
      });
      const batchOut = join(work, 'batch-out');
      const batchDw: BatchResult = cliMissing
        ? { ok: false, reason: 'n/a (bin/docwright.js missing)' }
        : timeBatch(process.execPath, [cli, 'convert', ...inputs, '-o', `${batchOut}/`], inputs, batchOut, repoRoot);
      process.stdout.write(`, ${BATCH_COUNT} pandoc processes`);
      const batchPd: BatchResult = pandocFor
        ? timePandocEach(inputs, join(work, 'batch-pandoc'), (i, o) => pandocFor(i, o, batchDir), repoRoot)
        : { ok: false, reason: 'n/a (pandoc missing)' };
      process.stdout.write('\n');

      let rest: CliResult['rest'] = null;
      if (serve) {
        const wait = lastUse + REST_SEC * 1000 - Date.now();
        if (wait > 0) {
          process.stdout.write(`docwright serve at rest: waiting ${(wait / 1000).toFixed(0)} s more\n`);
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
        const memory = treeMemory(serve.child.pid ?? serve.pid);
        let firstAfterIdleMs: number | null = null;
        try {
          firstAfterIdleMs = (await timeProcess(process.execPath, args(serve.dataDir), output, repoRoot, rssFile)).ms;
        } catch {
          // said by the memory row alone
        }
        rest = {
          idleSec: (Date.now() - lastUse) / 1000,
          serverPid: serve.pid,
          launcherPid: serve.child.pid !== undefined && serve.child.pid !== serve.pid ? serve.child.pid : null,
          memory,
          firstAfterIdleMs,
        };
        await serve.stop();
      }
      return {
        kb,
        server,
        serverFirstMs,
        mixed: { docwright: mixedDw, pandoc: mixedPd, images: MIXED_IMAGES.length },
        batch: { count: BATCH_COUNT, docwright: batchDw, pandoc: batchPd },
        rest,
        ...(error ? { error } : {}),
      };
    },
  };
}

/** The command line's rows at 120 KB (issue 31), Docwright ÷ pandoc, and the server at rest. */
function printCli(cli: CliResult, results: readonly SizeResult[]): void {
  const bench = results.find((r) => r.targetKB === cli.kb);
  const msOf = (p: ProcessResult | BatchResult | undefined): number | null =>
    p?.ok ? ('medianMs' in p ? p.medianMs : p.ms) : null;
  const reasonOf = (p: ProcessResult | BatchResult | undefined): string => (p && !p.ok ? p.reason : 'n/a');
  const row = (
    name: string,
    dw: ProcessResult | BatchResult | undefined,
    pd: ProcessResult | BatchResult | undefined,
  ) => {
    const a = msOf(dw);
    const b = msOf(pd);
    return [
      name,
      a === null ? reasonOf(dw) : fixed(a, 0),
      b === null ? reasonOf(pd) : fixed(b, 0),
      a !== null && b !== null ? ratio(a / b) : 'n/a',
    ];
  };
  console.log('');
  console.log(
    `The command line at ${cli.kb} KB beside pandoc (medians, ms; DW/pandoc < 1× means Docwright is faster):`,
  );
  console.log(
    formatTable(
      ['measure', 'Docwright', 'pandoc', 'DW/pandoc'],
      [
        row("cold process (no server running), the bench's document", bench?.docwrightProcess, bench?.pandoc),
        row(
          `cold process, headings, lists, tables, code, links, ${String(cli.mixed.images)} PNGs`,
          cli.mixed.docwright,
          cli.mixed.pandoc,
        ),
        row('through a running `docwright serve`', cli.server, bench?.pandoc),
        [
          '  its first conversion, through the API (a fresh server starts a worker)',
          cli.serverFirstMs === null ? 'n/a' : fixed(cli.serverFirstMs, 0),
          '',
          '',
        ],
        row(
          `batch: ${String(cli.batch.count)} documents in one docwright convert, ${String(cli.batch.count)} pandoc processes`,
          cli.batch.docwright,
          cli.batch.pandoc,
        ),
      ],
      [false, true, true, true],
    ),
  );
  if (!cli.batch.docwright.ok && cli.batch.docwright.detail) console.log(`(batch: ${cli.batch.docwright.detail})`);
  const rest = cli.rest;
  if (rest?.memory) {
    const warm = msOf(cli.server);
    console.log(
      `docwright serve at rest, ${fixed(rest.idleSec, 0)} s after its last conversion: ${fixed(rest.memory.totalMB, 0)} MB RSS in ${String(rest.memory.processes.length)} process${rest.memory.processes.length === 1 ? '' : 'es'} (${rest.memory.processes.map((p) => `${p.name} ${fixed(p.rssMB, 0)}`).join(', ')}; ${rest.launcherPid === null ? 'no launcher parent' : `launcher pid ${String(rest.launcherPid)} included`})`,
    );
    console.log(
      `its next conversion (${cli.kb} KB, workers started again): ${rest.firstAfterIdleMs === null ? 'failed' : `${fixed(rest.firstAfterIdleMs, 0)} ms`}${warm === null ? '' : ` (warm: ${fixed(warm, 0)} ms)`}`,
    );
  } else if (cli.error) console.log(`docwright serve: ${cli.error}`);
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
  return [
    '-f',
    PANDOC_FORMAT,
    '-t',
    'docx',
    `--reference-doc=${referenceDoc}`,
    `--resource-path=${resourcePath}`,
    '-o',
    output,
    input,
  ];
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
