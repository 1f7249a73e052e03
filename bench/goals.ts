/**
 * The one table against issue 31's and issue 17's targets: each measurement of this run beside pandoc's from the same
 * run (or today's figure where the target is "within N % of today's"), its ratio, what it must reach and the goal.
 */
import { availableParallelism } from 'node:os';
import type { LoadResult } from './load.ts';
import type { StorageResult } from './storage.ts';
import { fixed, formatTable } from './table.ts';

interface ProcessLike {
  ok: boolean;
  medianMs?: number;
  peakRssMiB?: number | null;
}

interface BatchLike {
  ok: boolean;
  ms?: number;
  reason?: string;
}

export interface SizeLike {
  targetKB: number;
  inProcess: { medianMs: number };
  /** `docwright convert` with no server running: a cold process doing the whole conversion. */
  docwrightProcess: ProcessLike;
  pandoc: ProcessLike;
}

/** The command line at 120 KB and the server at rest (bench/run.ts, CliResult). */
export interface CliLike {
  server: ProcessLike;
  mixed: { docwright: ProcessLike; pandoc: ProcessLike };
  batch: { count: number; docwright: BatchLike; pandoc: BatchLike };
  rest: { idleSec: number; memory: { totalMB: number } | null } | null;
}

/**
 * Today's figures before issue 31 (main at 94bf5f9, this machine, `npm run bench`): the in-process times and the
 * 1.2 MB conversion's peak RSS, which must stay within 10 % and 20 % of them.
 */
export const BEFORE_ISSUE_31 = { inProcess120Ms: 208.6, inProcess1200Ms: 2265.9, peakRss1200MB: 309 };

const ms = (p: ProcessLike): number | null => (p.ok && typeof p.medianMs === 'number' ? p.medianMs : null);
const cell = (n: number | null, digits = 0, unit = '') => (n === null ? 'n/a' : `${fixed(n, digits)}${unit}`);
const verdict = (value: number | null, ok: (v: number) => boolean) =>
  value === null ? '?' : ok(value) ? 'met' : 'NOT met';
const sizeName = (kb: number) => (kb >= 1000 ? `${fixed(kb / 1024, 1)} MB` : `${kb} KB`);

/** Issue 33's highlighting measure (bench/run.ts, HighlightResult): in-process medians with and without. */
export interface HighlightLike {
  inputKB: number;
  blocks: number;
  onMs: number;
  offMs: number;
}

export function goalsTable(
  sizes: readonly SizeLike[],
  load: LoadResult | null,
  storage: readonly StorageResult[] | null,
  cli: CliLike | null = null,
  highlight: HighlightLike | null = null,
): string {
  const rows: string[][] = [];
  const against = (name: string, dw: number | null, other: number | null, unit: string, max: number, what: string) => {
    const r = dw !== null && other !== null ? dw / other : null;
    rows.push([
      name,
      cell(dw, 0, unit),
      cell(other, 0, unit),
      cell(r, 2, '×'),
      `≤ ${fixed(max, Number.isInteger(max * 10) ? 1 : 2)}× ${what}`,
      '–',
      verdict(r, (v) => v <= max),
    ]);
  };
  // Issue 31: speed must hold.
  for (const [kb, before] of [
    [120, BEFORE_ISSUE_31.inProcess120Ms],
    [1200, BEFORE_ISSUE_31.inProcess1200Ms],
  ] as const) {
    const s = sizes.find((size) => size.targetKB === kb);
    if (s) against(`in-process, ${sizeName(kb)} (vs today's)`, s.inProcess.medianMs, before, ' ms', 1.1, "today's");
  }
  const s1200 = sizes.find((size) => size.targetKB === 1200);
  if (s1200)
    against(
      "peak RSS, 1.2 MB, cold process (vs today's)",
      s1200.docwrightProcess.ok ? (s1200.docwrightProcess.peakRssMiB ?? null) : null,
      BEFORE_ISSUE_31.peakRss1200MB,
      ' MB',
      1.2,
      "today's",
    );
  const s120 = sizes.find((size) => size.targetKB === 120);
  if (s120)
    against(
      'CLI cold process, 120 KB, bench document',
      ms(s120.docwrightProcess),
      ms(s120.pandoc),
      ' ms',
      1.2,
      'pandoc',
    );
  if (cli) {
    against(
      'CLI cold process, 120 KB, mixed + PNGs',
      ms(cli.mixed.docwright),
      ms(cli.mixed.pandoc),
      ' ms',
      1.2,
      'pandoc',
    );
    if (s120) against('CLI through a running server, 120 KB', ms(cli.server), ms(s120.pandoc), ' ms', 0.5, 'pandoc');
    const batch = cli.batch;
    const dw = batch.docwright.ok ? (batch.docwright.ms ?? null) : null;
    const pd = batch.pandoc.ok ? (batch.pandoc.ms ?? null) : null;
    if (dw === null && batch.docwright.reason)
      rows.push([
        `CLI batch, ${String(batch.count)} × 120 KB, one process`,
        batch.docwright.reason,
        cell(pd, 0, ' ms'),
        '–',
        '≤ 0.5× pandoc',
        '–',
        '?',
      ]);
    else against(`CLI batch, ${String(batch.count)} × 120 KB, one process`, dw, pd, ' ms', 0.5, 'pandoc');
    const rest = cli.rest?.memory?.totalMB ?? null;
    rows.push([
      `server at rest (${fixed(cli.rest?.idleSec ?? 60, 0)} s idle), RSS, all processes`,
      cell(rest, 0, ' MB'),
      '–',
      '–',
      '≤ 150 MB',
      '–',
      verdict(rest, (v) => v <= 150),
    ]);
  }
  // Issue 33: highlighting may cost at most a quarter more than the same document's plain code.
  if (highlight)
    against(
      `highlighting, ${fixed(highlight.inputKB, 0)} KB, ${String(highlight.blocks)} code blocks (vs off)`,
      highlight.onMs,
      highlight.offMs,
      ' ms',
      1.25,
      'off',
    );
  const eightClients = load?.rows.find((r) => r.connections === 8) ?? null;
  if (eightClients) {
    // What the machine allows: every core's time divided by the server's CPU time per conversion.
    const allowed = (availableParallelism() * 1000) / eightClients.cpuMsPerRequest;
    const share = eightClients.requestsPerSec / allowed;
    rows.push([
      'HTTPS, 8 clients, of what the cores allow',
      `${fixed(share * 100, 0)} %`,
      '–',
      `${fixed(eightClients.requestsPerSec, 1)} of ${fixed(allowed, 1)}/s`,
      '≥ 85 %',
      '–',
      verdict(share, (v) => v >= 0.85),
    ]);
  }
  // Issue 17.
  for (const s of sizes) {
    const pd = ms(s.pandoc);
    const r = pd !== null ? s.inProcess.medianMs / pd : null;
    const [must, goal] = s.targetKB === 1200 ? ['≤ 0.6×', '≤ 0.4×'] : ['–', '–'];
    rows.push([
      `in-process, ${sizeName(s.targetKB)} (vs pandoc's process)`,
      cell(s.inProcess.medianMs, 0, ' ms'),
      cell(pd, 0, ' ms'),
      cell(r, 2, '×'),
      must,
      goal,
      s.targetKB === 1200 ? verdict(r, (v) => v <= 0.6) : '',
    ]);
  }
  const one = load?.rows.find((r) => r.connections === 1) ?? null;
  const eight = load?.rows.find((r) => r.connections === 8) ?? null;
  const kb = load ? `${fixed(load.sizeBytes / 1024, 0)} KB` : '9 KB';
  rows.push([
    `HTTPS, ${kb}, 1 client, p50`,
    cell(one?.p50 ?? null, 0, ' ms'),
    '–',
    '–',
    '≤ 25 ms',
    '≤ 20 ms',
    verdict(one?.p50 ?? null, (v) => v <= 25),
  ]);
  rows.push([
    `HTTPS, ${kb}, 8 clients, throughput`,
    cell(eight?.requestsPerSec ?? null, 1, ' conv/s'),
    '–',
    '–',
    '≥ 60 conv/s',
    '≥ 80 conv/s',
    verdict(eight?.requestsPerSec ?? null, (v) => v >= 60),
  ]);
  rows.push([
    `HTTPS, ${kb}, 8 clients, p99`,
    cell(eight?.p99 ?? null, 0, ' ms'),
    '–',
    '–',
    '≤ 250 ms',
    '–',
    verdict(eight?.p99 ?? null, (v) => v <= 250),
  ]);
  const iso = load?.isolation ?? null;
  if (iso) {
    const r = iso.busyP99 / iso.idleP99;
    rows.push([
      `HTTPS, ${kb}, ${iso.clients} clients, p99 during ${fixed(iso.largeKB / 1000, 1)} MB`,
      cell(iso.busyP99, 0, ' ms'),
      '–',
      `${fixed(r, 2)}× of ${fixed(iso.idleP99, 0)} ms`,
      '≤ 2× idle',
      '–',
      verdict(r, (v) => v <= 2),
    ]);
  }
  const big = sizes.find((s) => s.targetKB === 1200);
  if (big) {
    // The whole conversion's memory is that of the process doing it: the cold command line.
    const whole = big.docwrightProcess;
    const dw = whole.ok ? (whole.peakRssMiB ?? null) : null;
    const pd = big.pandoc.ok ? (big.pandoc.peakRssMiB ?? null) : null;
    rows.push([
      'peak RSS, 1.2 MB, whole process',
      cell(dw, 0, ' MB'),
      cell(pd, 0, ' MB'),
      cell(dw !== null && pd !== null ? dw / pd : null, 2, '×'),
      '≤ 300 MB',
      '≤ 200 MB',
      verdict(dw, (v) => v <= 300),
    ]);
  }
  if (storage && storage.length >= 2) {
    const small = storage[0];
    const large = storage.at(-1);
    if (small && large) {
      rows.push([`storage write at ${small.records} records`, cell(small.writeMs, 2, ' ms'), '–', '–', '', '', '']);
      const r = large.writeMs / small.writeMs;
      rows.push([
        `storage write at ${large.records} records`,
        cell(large.writeMs, 2, ' ms'),
        '–',
        `${fixed(r, 2)}× of ${small.records}`,
        'the same',
        '–',
        verdict(r, (v) => v <= 2),
      ]);
    }
  }
  return formatTable(['measure', 'Docwright', 'pandoc / today', 'ratio', 'must reach', 'goal', 'acceptance'], rows, [
    false,
    true,
    true,
    true,
    true,
    true,
    false,
  ]);
}
