// A corrupted or hand-edited database file: the server refuses to start with a message naming the file, keeps a
// backup copy (one per distinct content, however often the start is retried), and never replaces, rewrites or
// sweeps anything: db.json and every stored file are byte for byte what they were. Valid hand edits (unknown
// fields, a setting left out) are accepted and kept.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../server/store/database.ts';
import { DataDirError, Store } from '../../server/store/store.ts';
import { runCli } from '../helpers/docwright-process.ts';
import { fileHashes } from '../helpers/file-hashes.ts';
import { readRecords } from '../helpers/records.ts';

const root = mkdtempSync(join(tmpdir(), 'dw-faults-db-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A data directory written by a real Store: the built-ins, a key, a conversion record and its output file; db.json's records (the conversions apart). */
async function populated(): Promise<{
  dir: string;
  db: Record<string, unknown> & {
    api_keys: Record<string, unknown>[];
    mappings: Record<string, unknown>[];
    templates: Record<string, unknown>[];
    settings: Record<string, unknown>;
  };
}> {
  const dir = mkdtempSync(join(root, 'd-'));
  const store = await Store.open(dir);
  await store.addKey({
    id: 'key_1',
    name: 'k',
    key_prefix: 'dw_abcd',
    hash: 'a'.repeat(64),
    created_at: new Date().toISOString(),
    last_used_at: null,
    revoked_at: null,
  });
  await store.addConversion(
    {
      conversion_id: '11111111-2222-4333-8444-555555555555',
      status: 'completed',
      filename: 'a.docx',
      warnings: [],
      stats: { headings: 1, paragraphs: 0, lists: 0, tables: 0, code_blocks: 0, images: 0 },
      created_at: new Date().toISOString(),
      template_id: 'x',
      mapping_id: 'y',
      channel: 'api',
    },
    new Uint8Array([0x50, 0x4b, 1, 2, 3]),
  );
  store.close();
  return {
    dir,
    db: JSON.parse(readFileSync(join(dir, 'db.json'), 'utf8')) as Awaited<ReturnType<typeof populated>>['db'],
  };
}

/** Every file of the directory (backups apart) with the hash of its bytes. */
const files = (dir: string) => fileHashes(dir, (name) => name.endsWith('.bak'));

function backups(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.startsWith('db.json.') && n.endsWith('.bak'));
}

/** Writes `content` as db.json, opens the directory twice, and checks the refusal and what was left. */
async function expectRefused(dir: string, content: string | Buffer, message: RegExp) {
  const file = join(dir, 'db.json');
  writeFileSync(file, content);
  const before = files(dir);
  for (let attempt = 0; attempt < 2; attempt++) {
    const error = await Store.open(dir).catch((e: unknown) => e);
    expect(error, String(error)).toBeInstanceOf(DatabaseError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/left as it is and copied to .*db\.json\..*\.bak/);
  }
  expect(files(dir), 'db.json and every stored file are untouched (no sweep, no rewrite)').toEqual(before);
  const kept = backups(dir);
  expect(kept, 'one backup, however often the start is retried').toHaveLength(1);
  expect(readFileSync(join(dir, kept[0] ?? ''))).toEqual(Buffer.from(content));
  expect(readdirSync(dir)).not.toContain('docwright.lock');
}

describe('a database that is not JSON', () => {
  const cases: [string, string | Buffer][] = [
    ['truncated in the middle', '{"schema_version": 2, "templates": ['],
    ['empty (0 bytes)', ''],
    ['binary garbage', Buffer.from([0x00, 0xff, 0xfe, 0x13, 0x37, 0x00])],
    ['UTF-16 with a BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"schema_version":2}', 'utf16le')])],
    ['two objects glued together', '{"schema_version":2}{"schema_version":2}'],
  ];
  for (const [label, content] of cases) {
    it(`${label} → refused, naming the file, with a backup`, async () => {
      const { dir } = await populated();
      await expectRefused(dir, content, /not valid JSON/);
    });
  }
});

describe('valid JSON of the wrong shape', () => {
  type Db = Awaited<ReturnType<typeof populated>>['db'];
  const cases: [string, (db: Db, dir: string) => unknown, RegExp][] = [
    ['a list instead of an object', () => [], /does not hold a JSON object/],
    ['null', () => null, /does not hold a JSON object/],
    ['an object without schema_version', ({ schema_version: _v, ...rest }) => rest, /no valid schema_version/],
    ['schema_version "1" (a string)', (db) => ({ ...db, schema_version: '1' }), /no valid schema_version/],
    ['schema_version 0', (db) => ({ ...db, schema_version: 0 }), /no valid schema_version/],
    ['schema_version 1.5', (db) => ({ ...db, schema_version: 1.5 }), /no valid schema_version/],
    ['an unknown, newer schema_version (99)', (db) => ({ ...db, schema_version: 99 }), /newer Docwright \(schema 99\)/],
    [
      "schema_version 1 (development builds' layout before the first release: the conversions in db.json)",
      (db, dir) => ({
        ...db,
        schema_version: 1,
        conversions: readRecords<{ conversions: unknown[] }>(dir).conversions,
      }),
      /schema 1, the layout of Docwright's development builds before its first release, which this version does not read/,
    ],
    ['templates an object', (db) => ({ ...db, templates: {} }), /templates must be array/],
    ['a template that is null', (db) => ({ ...db, templates: [...db.templates, null] }), /templates\[1\]/],
    [
      'a template file with a backslash path',
      (db) => ({ ...db, templates: db.templates.map((t) => ({ ...t, file: '..\\..\\x.docx' })) }),
      /templates\[0\]\.file/,
    ],
    ['settings.plan "gold"', (db) => ({ ...db, settings: { ...db.settings, plan: 'gold' } }), /settings\.plan/],
    [
      'settings.port "47823" (a string)',
      (db) => ({ ...db, settings: { ...db.settings, port: '47823' } }),
      /settings\.port/,
    ],
    [
      'settings.retention_days -1',
      (db) => ({ ...db, settings: { ...db.settings, retention_days: -1 } }),
      /settings\.retention_days/,
    ],
    [
      'settings.monthly_quota "lots"',
      (db) => ({ ...db, settings: { ...db.settings, monthly_quota: 'lots' } }),
      /settings\.monthly_quota/,
    ],
    [
      'a key whose hash is a number',
      (db) => ({ ...db, api_keys: db.api_keys.map((k) => ({ ...k, hash: 123 })) }),
      /api_keys\[0\]\.hash/,
    ],
    [
      'a key whose revoked_at is true',
      (db) => ({ ...db, api_keys: db.api_keys.map((k) => ({ ...k, revoked_at: true })) }),
      /api_keys\[0\]\.revoked_at/,
    ],
    [
      'mapping rules naming heading level 9',
      (db) => ({ ...db, mappings: db.mappings.map((m) => ({ ...m, rules: { heading: { '9': 'Title' } } })) }),
      /mappings\[0\]\.rules\.heading\.9/,
    ],
  ];
  for (const [label, edit, message] of cases) {
    it(`${label} → refused, naming the file and the field`, async () => {
      const { dir, db } = await populated();
      await expectRefused(dir, JSON.stringify(edit(db, dir), null, 2), message);
    });
  }
});

describe('other damage', () => {
  it('db.json is a folder → refused, naming it', async () => {
    const { dir } = await populated();
    rmSync(join(dir, 'db.json'));
    mkdirSync(join(dir, 'db.json'));
    const error = await Store.open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseError);
    expect((error as Error).message).toContain(join(dir, 'db.json'));
  });

  it('db.json deleted while outputs remain → refused (a fresh database would sweep them as orphans)', async () => {
    const { dir } = await populated();
    rmSync(join(dir, 'db.json'));
    const before = files(dir);
    const error = await Store.open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataDirError);
    expect((error as Error).message).toContain(join(dir, 'db.json'));
    expect((error as Error).message).toMatch(/missing.*1 stored file/);
    expect(files(dir)).toEqual(before);
  });
});

describe('hand edits that are valid', () => {
  it('unknown fields and a setting left out are accepted; the unknown fields survive the next write', async () => {
    const { dir, db } = await populated();
    const { port: _port, ...settings } = db.settings;
    const edited = {
      ...db,
      settings,
      note: 'kept by hand',
      api_keys: db.api_keys.map((k) => ({ ...k, comment: 'CI key' })),
    };
    writeFileSync(join(dir, 'db.json'), JSON.stringify(edited));
    const store = await Store.open(dir);
    try {
      expect(store.settings().port).toBe(47823);
      await store.updateSettings({ retention_days: 7 });
      const after = JSON.parse(readFileSync(join(dir, 'db.json'), 'utf8')) as typeof edited;
      expect(after.note).toBe('kept by hand');
      expect(after.api_keys[0]).toMatchObject({ comment: 'CI key' });
      expect(after.settings).toMatchObject({ retention_days: 7, port: 47823 });
    } finally {
      store.close();
    }
    expect(backups(dir)).toEqual([]);
  });
});

describe('docwright serve on a damaged database (a real process)', () => {
  it('exits 1 with one line naming the file and the backup, for bad JSON and for a wrong shape', async () => {
    const { dir, db } = await populated();
    const file = join(dir, 'db.json');
    for (const content of [
      '{"schema_version": 2, "templ',
      JSON.stringify({ ...db, settings: { ...db.settings, plan: 'gold' } }),
    ]) {
      writeFileSync(file, content);
      const before = files(dir);
      const result = await runCli(['serve', '--port', '0', '--data-dir', dir]);
      expect(result.code, result.stderr).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^docwright: The database .*db\.json (is not valid JSON|is damaged: settings\.plan)/);
      expect(lines[0]).toContain(file);
      expect(lines[0]).toMatch(/copied to .*\.bak/);
      expect(result.stdout).not.toMatch(/running at/);
      expect(files(dir)).toEqual(before);
    }
    expect(backups(dir)).toHaveLength(2);
  });
});

describe('a damaged conversions/ segment', () => {
  /** A data directory with its one segment file. */
  async function withSegment(): Promise<{
    dir: string;
    segment: string;
    content: Record<string, unknown> & { conversions: Record<string, unknown>[] };
  }> {
    const { dir } = await populated();
    const names = readdirSync(join(dir, 'conversions')).filter((n) => n.endsWith('.json'));
    expect(names).toHaveLength(1);
    const segment = join(dir, 'conversions', names[0] ?? '');
    return { dir, segment, content: JSON.parse(readFileSync(segment, 'utf8')) };
  }
  const cases: [string, (s: Record<string, unknown> & { conversions: Record<string, unknown>[] }) => string, RegExp][] =
    [
      ['truncated', (s) => JSON.stringify(s).slice(0, 40), /is not valid JSON/],
      [
        'a conversion whose file climbs out of outputs/',
        (s) => JSON.stringify({ ...s, conversions: s.conversions.map((c) => ({ ...c, file: '../../etc/passwd' })) }),
        /is damaged: conversions\[0\]\.file/,
      ],
      [
        'a conversion whose file is an absolute path',
        (s) => JSON.stringify({ ...s, conversions: s.conversions.map((c) => ({ ...c, file: '/etc/passwd' })) }),
        /is damaged: conversions\[0\]\.file/,
      ],
      [
        'a conversion status "pending"',
        (s) => JSON.stringify({ ...s, conversions: s.conversions.map((c) => ({ ...c, status: 'pending' })) }),
        /is damaged: conversions\[0\]\.status/,
      ],
      [
        'stats of the wrong type',
        (s) => JSON.stringify({ ...s, conversions: s.conversions.map((c) => ({ ...c, stats: { headings: 'one' } })) }),
        /is damaged: conversions\[0\]\.stats/,
      ],
      ['conversions missing', ({ conversions: _c, ...rest }) => JSON.stringify(rest), /is damaged: .*conversions/],
      ['a usage month that is not YYYY-MM', (s) => JSON.stringify({ ...s, usage: { June: 3 } }), /is damaged: usage/],
      ['a negative usage count', (s) => JSON.stringify({ ...s, usage: { '2026-01': -5 } }), /is damaged: usage/],
    ];
  for (const [label, edit, message] of cases) {
    it(`${label} → refused, naming the segment file and the field; nothing touched`, async () => {
      const { dir, segment, content } = await withSegment();
      writeFileSync(segment, edit(content));
      const before = fileHashes(dir, (name) => name.endsWith('.bak'));
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = await Store.open(dir).catch((e: unknown) => e);
        expect(error, String(error)).toBeInstanceOf(DatabaseError);
        expect((error as Error).message).toContain(segment);
        expect((error as Error).message).toMatch(message);
        expect((error as Error).message).toMatch(/left as it is and copied to .*\.bak/);
      }
      expect(fileHashes(dir, (name) => name.endsWith('.bak'))).toEqual(before);
      expect(readdirSync(join(dir, 'conversions')).filter((n) => n.endsWith('.bak'))).toHaveLength(1);
      expect(readdirSync(dir)).not.toContain('docwright.lock');
    });
  }

  it('conversions/ deleted while outputs remain → refused (starting would sweep them as orphans)', async () => {
    const { dir } = await withSegment();
    rmSync(join(dir, 'conversions'), { recursive: true });
    const before = files(dir);
    const error = await Store.open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataDirError);
    expect((error as Error).message).toContain(join(dir, 'conversions'));
    expect(files(dir)).toEqual(before);
  });
});
