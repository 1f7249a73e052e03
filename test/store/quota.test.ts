// The monthly quota across the moment a conversion's record is being written: a real Store on a real data
// directory. A conversion counts exactly once at every instant (reserved, committed, being stored, stored), so
// parallel conversions at the boundary get exactly the quota (the MCP-over-HTTP Solo test saw one unit fewer).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dataPaths } from '../../server/store/paths.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../../server/store/store.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanups.splice(0).reverse()) fn();
});

async function open(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-quota-'));
  const store = await Store.open(dir);
  cleanups.push(
    () => {
      rmSync(dir, { recursive: true, force: true });
    },
    () => {
      store.close();
    },
  );
  return store;
}

const now = new Date('2026-11-23T12:00:00Z');

function record(id: string) {
  return {
    conversion_id: id,
    status: 'completed' as const,
    filename: 'document.docx',
    warnings: [],
    stats: { headings: 0, paragraphs: 1, lists: 0, tables: 0, code_blocks: 0, images: 0 },
    created_at: now.toISOString(),
    template_id: BUILTIN_TEMPLATE_ID,
    mapping_id: BUILTIN_MAPPING_ID,
    channel: 'api' as const,
    warning_details: [],
  };
}

/** Reserves and commits one unit, as Services.convert does once the conversion succeeded. */
function commitOne(store: Store, quota: number): void {
  const reservation = store.reserve(now, quota);
  if (!reservation) throw new Error('the quota refused a unit it had');
  reservation.commit();
}

describe('Store: the quota while records are written', () => {
  it('a conversion being stored counts once, not twice: the next unit under the quota is still free', async () => {
    const store = await open();
    commitOne(store, 2);
    expect(store.usage(now)).toBe(1);
    const storing = store.addConversion(record('00000000-0000-4000-8000-000000000001'), new Uint8Array([1, 2, 3]));
    // Check at every step of the write (the output file, then the record's segment), not only at its end.
    const seen = new Set<number>();
    const progress = { settled: false };
    void storing.finally(() => (progress.settled = true));
    while (!progress.settled) {
      seen.add(store.usage(now));
      await new Promise((r) => setImmediate(r));
    }
    await storing;
    expect([...seen]).toEqual([1]);
    expect(store.usage(now)).toBe(1);
    expect(store.reserve(now, 2)).not.toBe(false);
  });

  it('parallel conversions at the boundary: exactly the quota is stored, the rest refused, usage equals the quota', async () => {
    const store = await open();
    const quota = 20;
    const stored: Promise<unknown>[] = [];
    let refused = 0;
    // Conversions finish one after another while later ones ask for their unit, as requests do.
    for (let i = 0; i < quota + 2; i++) {
      const reservation = store.reserve(now, quota);
      if (!reservation) {
        refused += 1;
        continue;
      }
      reservation.commit();
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      stored.push(store.addConversion(record(id), new Uint8Array([i])));
      await new Promise((r) => setTimeout(r, 3));
    }
    await Promise.all(stored);
    expect({ stored: stored.length, refused }).toEqual({ stored: quota, refused: 2 });
    expect(store.usage(now)).toBe(quota);
  });

  it('a record that cannot be written: the refund leaves the usage as before, never below', async () => {
    const store = await open();
    commitOne(store, 5);
    await store.addConversion(record('00000000-0000-4000-8000-0000000000aa'), new Uint8Array([1]));
    const reservation = store.reserve(now, 5);
    if (!reservation) throw new Error('refused');
    reservation.commit();
    expect(store.usage(now)).toBe(2);
    // The segments' folder is gone: the record's write fails after the output file was written.
    rmSync(dataPaths(store.dataDir).conversions, { recursive: true, force: true });
    await expect(
      store.addConversion(record('00000000-0000-4000-8000-0000000000bb'), new Uint8Array([2])),
    ).rejects.toThrow();
    reservation.cancel();
    expect(store.usage(now)).toBe(1);
  });
});
