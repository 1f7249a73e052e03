/**
 * The one table against issue 17's targets: each measurement of this run beside pandoc's from the same run, its
 * ratio, what it must reach and the goal.
 */
import type { LoadResult } from './load.ts';
import type { StorageResult } from './storage.ts';
import { fixed, formatTable } from './table.ts';

interface ProcessLike {
  ok: boolean;
  medianMs?: number;
  peakRssMiB?: number | null;
}

export interface SizeLike {
  targetKB: number;
  inProcess: { medianMs: number };
  /** `docwright convert` (no server running). */
  docwrightProcess: ProcessLike;
  /** `docwright convert` again (a cold process doing the whole conversion). */
  docwrightColdProcess?: ProcessLike;
  pandoc: ProcessLike;
}

const ms = (p: ProcessLike): number | null => (p.ok && typeof p.medianMs === 'number' ? p.medianMs : null);
const cell = (n: number | null, digits = 0, unit = '') => (n === null ? 'n/a' : `${fixed(n, digits)}${unit}`);
const verdict = (value: number | null, ok: (v: number) => boolean) =>
  value === null ? '?' : ok(value) ? 'met' : 'NOT met';
const sizeName = (kb: number) => (kb >= 1000 ? `${fixed(kb / 1024, 1)} MB` : `${kb} KB`);

export function goalsTable(
  sizes: readonly SizeLike[],
  load: LoadResult | null,
  storage: readonly StorageResult[] | null,
): string {
  const rows: string[][] = [];
  for (const s of sizes) {
    const dw = ms(s.docwrightProcess);
    const pd = ms(s.pandoc);
    const r = dw !== null && pd !== null ? dw / pd : null;
    const [must, goal] = s.targetKB === 120 ? ['≤ 0.7×', '≤ 0.5×'] : ['–', '–'];
    rows.push([
      `CLI, whole process, ${sizeName(s.targetKB)}`,
      cell(dw, 0, ' ms'),
      cell(pd, 0, ' ms'),
      cell(r, 2, '×'),
      must,
      goal,
      s.targetKB === 120 ? verdict(r, (v) => v <= 0.7) : '',
    ]);
  }
  for (const s of sizes) {
    if (!s.docwrightColdProcess) continue;
    const dw = ms(s.docwrightColdProcess);
    const pd = ms(s.pandoc);
    rows.push([
      `CLI cold process, ${sizeName(s.targetKB)}`,
      cell(dw, 0, ' ms'),
      cell(pd, 0, ' ms'),
      cell(dw !== null && pd !== null ? dw / pd : null, 2, '×'),
      '–',
      '–',
      '',
    ]);
  }
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
    // The whole conversion's memory is that of the process doing it: the cold one .
    const whole = big.docwrightColdProcess ?? big.docwrightProcess;
    const dw = whole.ok ? (whole.peakRssMiB ?? null) : null;
    const pd = big.pandoc.ok ? (big.pandoc.peakRssMiB ?? null) : null;
    rows.push([
      `peak RSS, 1.2 MB, whole process${big.docwrightColdProcess ? ' (cold)' : ''}`,
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
  return formatTable(['measure', 'Docwright', 'pandoc', 'ratio', 'must reach', 'goal', 'acceptance'], rows, [
    false,
    true,
    true,
    true,
    true,
    true,
    false,
  ]);
}
