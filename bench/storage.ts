/**
 * The storage write a conversion costs at 100 and at 100,000 stored records: Store.addConversion (its output file
 * and its record) on a data directory of schema 2, against rewriting a schema-1 db.json holding every record (what
 * each conversion cost before). Median of N.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { toSegments } from '../server/store/conversion-log.ts';
import type { ConversionRecord } from '../server/store/database.ts';
import { writeFileAtomic, writeFileAtomicSync } from '../server/store/files.ts';
import { Store } from '../server/store/store.ts';
import { median } from './measure.ts';

export interface StorageResult {
  records: number;
  /** Store.addConversion, median ms. */
  writeMs: number;
  /** A schema-1 db.json with as many records rewritten whole, median ms. */
  schema1WriteMs: number;
}

function record(i: number, created: Date): ConversionRecord {
  const id = `${String(i).padStart(8, '0')}-2222-4333-8444-555555555555`;
  return {
    conversion_id: id,
    status: 'completed',
    filename: `report ${i}.docx`,
    warnings: [],
    stats: { headings: 3, paragraphs: 12, lists: 1, tables: 0, code_blocks: 0, images: 0 },
    created_at: created.toISOString(),
    template_id: '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000001',
    mapping_id: '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000002',
    file: `${id}.docx`,
    size: 9000,
    channel: 'api',
  };
}

/**
 * The data directories are laid out first (each file flushed to disk: otherwise the first fsyncs measured would
 * also write out the 65 MB of records just laid out at 100,000), their stores opened, a few writes made untimed;
 * then the timed writes alternate between the stores, so a slow moment of the disk falls on both alike.
 */
export async function measureStorage(counts: readonly number[] = [100, 100_000], runs = 40): Promise<StorageResult[]> {
  const dirs: string[] = [];
  try {
    const now = Date.now();
    const opened: { count: number; dir: string; store: Store; history: ConversionRecord[]; times: number[] }[] = [];
    for (const count of counts) {
      const dir = mkdtempSync(join(tmpdir(), 'dw-bench-storage-'));
      dirs.push(dir);
      (await Store.open(dir)).close();
      // `count` records over the past year, laid out as the server writes them.
      const history = Array.from({ length: count }, (_, i) =>
        record(i, new Date(now - 365 * 86_400_000 + Math.floor((i * 365 * 86_400_000) / count))),
      );
      mkdirSync(join(dir, 'conversions'), { recursive: true });
      for (const { name, data } of toSegments(history))
        writeFileAtomicSync(join(dir, 'conversions', name), Buffer.from(JSON.stringify(data)));
      opened.push({ count, dir, store: await Store.open(dir), history, times: [] });
    }
    const add = async (entry: (typeof opened)[number], i: number): Promise<number> => {
      const { file: _file, size: _size, ...fresh } = record(entry.count + i, new Date());
      const started = performance.now();
      await entry.store.addConversion(fresh, new Uint8Array(9000));
      return performance.now() - started;
    };
    for (let i = 0; i < 5; i++) for (const entry of opened) await add(entry, i);
    for (let i = 5; i < runs + 5; i++) {
      const order = i % 2 === 0 ? opened : [...opened].reverse();
      for (const entry of order) entry.times.push(await add(entry, i));
    }
    const results: StorageResult[] = [];
    for (const entry of opened) {
      entry.store.close();
      const legacy = JSON.stringify({ schema_version: 1, conversions: entry.history });
      const legacyTimes: number[] = [];
      for (let i = 0; i < Math.min(runs, 7); i++) {
        const started = performance.now();
        await writeFileAtomic(join(entry.dir, 'legacy-db.json'), JSON.stringify(JSON.parse(legacy)));
        legacyTimes.push(performance.now() - started);
      }
      results.push({ records: entry.count, writeMs: median(entry.times), schema1WriteMs: median(legacyTimes) });
    }
    return results;
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

export function printStorage(results: readonly StorageResult[]): void {
  console.log('\nStorage: one conversion stored (output file + record), median');
  for (const r of results) {
    console.log(
      `  ${String(r.records).padStart(7)} records: ${r.writeMs.toFixed(2)} ms (schema-1 db.json rewritten whole: ${r.schema1WriteMs.toFixed(1)} ms)`,
    );
  }
  const small = results[0];
  const large = results.at(-1);
  if (small && large && small !== large)
    console.log(
      `  ratio ${large.records} ÷ ${small.records}: ${(large.writeMs / small.writeMs).toFixed(2)} (goal: 1, the same cost)`,
    );
}
