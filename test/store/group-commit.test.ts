// Group commit: records that arrive while their segment is being written go into one next write (one fsync for
// all of them), and every one of them is on disk when its addConversion resolves.
import { mkdtempSync, readFileSync, readdirSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dataPaths } from '../../server/store/paths.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../../server/store/store.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanups.splice(0).reverse()) fn();
});

const now = new Date('2026-11-23T12:00:00Z');

function record(n: number) {
  return {
    conversion_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
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

describe('Store: concurrent conversions share segment writes', () => {
  it('16 records stored at once take far fewer than 16 writes of their segment, and each is on disk when it resolves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-group-'));
    cleanups.push(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    const store = await Store.open(dir);
    cleanups.push(() => {
      store.close();
    });
    const segments = dataPaths(dir).conversions;
    // Each write of a segment ends with a rename of its temporary file onto the segment's name.
    const written: string[] = [];
    const watcher = watch(segments, (event, name) => {
      if (event === 'rename' && name && !name.startsWith('.')) written.push(name);
    });
    cleanups.push(() => {
      watcher.close();
    });
    const count = 16;
    const onDisk: number[] = [];
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        await store.addConversion(record(i + 1), new Uint8Array([i]));
        // Read from disk the moment this record's write is reported done: it must be there already.
        const [name] = readdirSync(segments).filter((n) => n.endsWith('.json'));
        const data = JSON.parse(readFileSync(join(segments, String(name)), 'utf8')) as {
          conversions: { conversion_id: string }[];
        };
        onDisk.push(data.conversions.some((c) => c.conversion_id === record(i + 1).conversion_id) ? 1 : 0);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200)); // inotify events arrive after the rename
    expect(onDisk).toEqual(Array.from({ length: count }, () => 1));
    expect(written.length).toBeGreaterThanOrEqual(1);
    expect(written.length).toBeLessThanOrEqual(4);
    store.close();
    const reopened = await Store.open(dir);
    expect(reopened.listConversions(0, 100).total).toBe(count);
    reopened.close();
  });
});
