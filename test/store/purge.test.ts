// The retention purge runs before every conversion list (GET /api/v1/conversions): with nothing expired it must not
// read every record's date (100,000 records are a year of a team's use), and it still removes exactly the expired.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toSegments } from '../../server/store/conversion-log.ts';
import type { ConversionRecord } from '../../server/store/database.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../../server/store/store.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const fn of cleanups.splice(0).reverse()) fn();
});

const DAY = 86_400_000;
const now = new Date('2026-11-23T12:00:00Z');

function record(n: number, created: Date): ConversionRecord {
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return {
    conversion_id: id,
    status: 'completed',
    filename: `document ${n}.docx`,
    warnings: [],
    stats: { headings: 0, paragraphs: 1, lists: 0, tables: 0, code_blocks: 0, images: 0 },
    created_at: created.toISOString(),
    template_id: BUILTIN_TEMPLATE_ID,
    mapping_id: BUILTIN_MAPPING_ID,
    channel: 'api',
    file: `${id}.docx`,
    size: 3,
  };
}

/** A data directory holding `records` (laid out as the server writes them, each with its output file). */
async function storeWith(records: ConversionRecord[]): Promise<{ store: Store; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-purge-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  (await Store.open(dir)).close();
  mkdirSync(join(dir, 'conversions'), { recursive: true });
  for (const { name, data } of toSegments(records)) writeFileSync(join(dir, 'conversions', name), JSON.stringify(data));
  for (const r of records) writeFileSync(join(dir, 'outputs', r.file), 'out');
  const store = await Store.open(dir);
  cleanups.push(() => store.close());
  return { store, dir };
}

describe('Store.purgeExpired', () => {
  it('with nothing expired, reads no record dates once it knows the oldest (10,000 records)', async () => {
    const records = Array.from({ length: 10_000 }, (_, i) => record(i, new Date(now.getTime() - DAY + i)));
    const { store } = await storeWith(records);
    expect(await store.purgeExpired(now)).toBe(0);
    const parse = vi.spyOn(Date, 'parse');
    for (let i = 0; i < 5; i++) expect(await store.purgeExpired(now)).toBe(0);
    expect(parse.mock.calls.length).toBeLessThan(10);
    expect(store.listConversions(0, 1).total).toBe(10_000);
  });

  it('removes exactly the expired records and their files, also after records are added and deleted', async () => {
    // Retention is 30 days by default; records 0–9 are 40 days old, 10–19 are 10 days old, out of order.
    const old = (i: number) => record(i, new Date(now.getTime() - 40 * DAY + i));
    const recent = (i: number) => record(i, new Date(now.getTime() - 10 * DAY + i));
    const records = [recent(10), ...Array.from({ length: 10 }, (_, i) => old(i)), recent(11)];
    const { store, dir } = await storeWith(records);
    // Nothing expires before the cutoff reaches the oldest.
    expect(await store.purgeExpired(new Date(now.getTime() - 11 * DAY))).toBe(0);
    // An older record added later (a conversion that took long) is still seen.
    const { file: _f, size: _s, ...older } = record(99, new Date(now.getTime() - 50 * DAY));
    await store.addConversion(older, new Uint8Array([1]));
    expect(await store.deleteConversion(records[0]?.conversion_id ?? '')).toBe(true);
    expect(await store.purgeExpired(now)).toBe(11);
    const left = store.listConversions(0, 100).items.map((r) => r.conversion_id);
    expect(left).toEqual([recent(11).conversion_id]);
    expect(readdirSync(join(dir, 'outputs'))).toEqual([recent(11).file]);
    expect(await store.purgeExpired(now)).toBe(0);
    // Past the last one's retention, it goes too.
    expect(await store.purgeExpired(new Date(now.getTime() + 25 * DAY))).toBe(1);
    expect(store.listConversions(0, 100).total).toBe(0);
  });
});
