// The move from schema 1 (every record in db.json) to schema 2 (conversion records in conversions/) on a data
// directory of 100,000 records: nothing lost, nothing duplicated, the order kept, the monthly counts kept, the old
// file kept as a backup; a real child process killed with SIGKILL at each step and at random moments, the next
// start completes or redoes the move.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SEGMENT_CAP } from '../../server/store/conversion-log.ts';
import { Store } from '../../server/store/store.ts';
import { readRecords } from '../helpers/records.ts';

const RECORDS = 100_000;
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const child = fileURLToPath(new URL('./migrate-child.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'dw-migrate-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Conversion {
  conversion_id: string;
  file: string;
  created_at: string;
}

/** A schema-1 data directory: a fresh Store's built-ins, then 100,000 conversion records over 12 months (some with outputs). */
async function schema1Directory(): Promise<{
  dir: string;
  original: Buffer;
  conversions: Conversion[];
  usage: Record<string, number>;
}> {
  const dir = mkdtempSync(join(root, 'd-'));
  (await Store.open(dir)).close();
  const main = JSON.parse(readFileSync(join(dir, 'db.json'), 'utf8')) as Record<string, unknown>;
  const start = Date.parse('2025-12-01T00:00:00Z');
  const conversions = Array.from({ length: RECORDS }, (_, i) => {
    const id = `${String(i).padStart(8, '0')}-2222-4333-8444-555555555555`;
    return {
      conversion_id: id,
      status: 'completed',
      filename: `report ${i}.docx`,
      warnings: i % 7 === 0 ? ['missing_style: Heading 9'] : [],
      stats: { headings: i % 5, paragraphs: i % 11, lists: 0, tables: 0, code_blocks: 0, images: 0 },
      created_at: new Date(start + Math.floor((i * 365 * 86_400_000) / RECORDS)).toISOString(),
      template_id: '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000001',
      mapping_id: '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000002',
      file: `${id}.docx`,
      size: 5,
      channel: 'api',
    };
  });
  const usage: Record<string, number> = {};
  for (const c of conversions) usage[c.created_at.slice(0, 7)] = (usage[c.created_at.slice(0, 7)] ?? 0) + 1;
  // The newest 500 still have their output file (older ones were purged by retention in real use; their records stay here).
  for (const c of conversions.slice(-500)) writeFileSync(join(dir, 'outputs', c.file), 'PK\x03\x04x');
  writeFileSync(join(dir, 'db.json'), JSON.stringify({ ...main, schema_version: 1, conversions, usage }));
  return { dir, original: readFileSync(join(dir, 'db.json')), conversions, usage };
}

/** Runs the child on `dir`; kills it with SIGKILL at `pauseAt` (a step) or after `killAfterMs`, or lets it finish. */
function runChild(
  dir: string,
  options: { pauseAt?: string; killAfterMs?: number } = {},
): Promise<{ steps: string[]; finished: boolean; migrationMs: number }> {
  return new Promise((resolve, reject) => {
    let started = 0;
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', child, dir, ...(options.pauseAt ? [options.pauseAt] : [])],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const steps: string[] = [];
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      for (const line of lines) {
        if (steps.length === 0) started = Date.now();
        steps.push(line);
        if (options.pauseAt && line === `step ${options.pauseAt}`) proc.kill('SIGKILL');
      }
    });
    proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    // The delay counts from the migration's first step (the child's start-up is not the migration).
    if (options.killAfterMs !== undefined) {
      const wait = setInterval(() => {
        if (steps.length > 0 || proc.exitCode !== null) {
          clearInterval(wait);
          timer = setTimeout(() => proc.kill('SIGKILL'), options.killAfterMs);
        }
      }, 5);
    }
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal !== 'SIGKILL' && code !== 0) reject(new Error(`child exited ${String(code)}: ${err}`));
      else resolve({ steps, finished: steps.includes('opened'), migrationMs: Date.now() - started });
    });
  });
}

const hash = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** What must hold after any cut: db.json is the untouched schema-1 file, or schema 2 with every record in conversions/. */
function checkState(dir: string, original: Buffer, conversions: Conversion[], usage: Record<string, number>): 1 | 2 {
  const text = readFileSync(join(dir, 'db.json'));
  const db = JSON.parse(text.toString('utf8')) as { schema_version: number; usage: Record<string, number> };
  expect(readdirSync(join(dir, 'outputs')).length, 'no output swept').toBe(500);
  if (db.schema_version === 1) {
    expect(hash(text), 'a schema-1 db.json is untouched until it is replaced').toBe(hash(original));
    return 1;
  }
  expect(db.schema_version).toBe(2);
  const moved = readRecords<{ conversions: Conversion[] }>(dir).conversions;
  expect(moved.length, 'every record moved, none twice').toBe(conversions.length);
  expect(moved.map((c) => c.conversion_id)).toEqual(conversions.map((c) => c.conversion_id));
  expect(moved).toEqual(conversions);
  expect(db.usage).toEqual(usage);
  expect(hash(readFileSync(join(dir, 'db.schema-1.json.bak'))), 'the schema-1 file is kept').toBe(hash(original));
  return 2;
}

describe('migrating a 100,000-record schema-1 data directory', () => {
  it('moves every record once, keeps counts and order; survives SIGKILL at every step and at random moments', async () => {
    const { dir, original, conversions, usage } = await schema1Directory();
    const steps = ['segments', 'swap', 'rename', 'backup', 'database', 'done'];
    const log: string[] = [];
    // A kill at each step: the next state is consistent.
    for (const step of steps) {
      const run = await runChild(dir, { pauseAt: step });
      expect(run.finished).toBe(false);
      const version = checkState(dir, original, conversions, usage);
      log.push(`killed at ${step}: schema ${version}`);
      if (version === 2) break;
    }
    // Random kills: each from the schema-1 directory (with a cut attempt's leftovers), then a start that completes.
    const reset = (junk: boolean) => {
      rmSync(join(dir, 'conversions'), { recursive: true, force: true });
      if (junk) mkdirSync(join(dir, 'conversions.migrating', 'junk'), { recursive: true });
      writeFileSync(join(dir, 'db.json'), original);
    };
    reset(false);
    const full = await runChild(dir);
    expect(full.finished).toBe(true);
    const migrationMs = full.migrationMs;
    checkState(dir, original, conversions, usage);
    for (let cycle = 0; cycle < 3; cycle++) {
      reset(cycle % 2 === 1);
      const delay = Math.floor(Math.random() * 0.9 * migrationMs);
      const run = await runChild(dir, { killAfterMs: delay });
      const version = checkState(dir, original, conversions, usage);
      log.push(
        `random kill ${cycle}: after ${delay} ms of ${migrationMs} (last step ${run.steps.at(-1) ?? 'none'}) → schema ${version}${run.finished ? ' (finished first)' : ''}`,
      );
      const next = await runChild(dir);
      expect(next.finished).toBe(true);
      expect(checkState(dir, original, conversions, usage)).toBe(2);
      expect(existsSync(join(dir, 'conversions.migrating'))).toBe(false);
    }
    // The migrated directory opens and counts: the usage of each month is the old count.
    const store = await Store.open(dir);
    try {
      expect(store.listConversions(0, 1).total).toBe(RECORDS);
      expect(store.usage(new Date('2026-03-15T00:00:00Z'))).toBe(usage['2026-03']);
      expect(store.getConversion(conversions[12_345]?.conversion_id ?? '')?.filename).toBe('report 12345.docx');
    } finally {
      store.close();
    }
    const segments = readdirSync(join(dir, 'conversions')).filter((n) => n.endsWith('.json'));
    expect(segments.length).toBeGreaterThanOrEqual(RECORDS / SEGMENT_CAP);
    console.log(
      `migration of ${RECORDS} records: ${migrationMs} ms (first step to open), ${segments.length} segments\n${log.join('\n')}`,
    );
  }, 900_000);
});
