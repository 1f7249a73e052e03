// Storage and secrets behind the API: keyed hashes only, the keychain-held secret, retention, damaged databases,
// and 500s that say nothing of the server's insides.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashKey } from '../../server/auth/keys.ts';
import { loadSecret } from '../../server/auth/secret.ts';
import { buildApp } from '../../server/app.ts';
import { DatabaseError } from '../../server/store/database.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../../server/store/store.ts';

const HOST = { host: '127.0.0.1:47823' };
const ADMIN = 'admin-token-for-tests';
const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(now: () => Date = () => new Date()) {
  const dir = mkdtempSync(join(tmpdir(), 'dw-storage-'));
  const store = await Store.open(dir);
  const { secret, store: secretStore } = await loadSecret(dir);
  const app = await buildApp({ store, secret, adminToken: ADMIN, now });
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => store.close(),
    () => app.close(),
  );
  const createKey = async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/settings/api-keys',
      headers: { ...HOST, 'x-docwright-admin': ADMIN },
      payload: { name: 'k' },
    });
    expect(res.statusCode).toBe(201);
    return res.json<{ id: string; key: string }>();
  };
  return { dir, store, app, secret, secretStore, createKey };
}

describe('API keys at rest', () => {
  it('stores only an HMAC-SHA256 of each key, under a secret kept in the OS keychain', async () => {
    const { dir, secret, secretStore, createKey } = await setup();
    expect(secretStore).toBe('keychain');
    expect(existsSync(join(dir, 'secret.key'))).toBe(false);
    const { id, key } = await createKey();
    const db = readFileSync(join(dir, 'db.json'), 'utf8');
    expect(db).not.toContain(key);
    expect(db).not.toContain(key.slice(10));
    const record = (JSON.parse(db) as { api_keys: { id: string; hash: string }[] }).api_keys.find((k) => k.id === id);
    expect(record?.hash).toBe(hashKey(secret, key));
  });
});

describe('retention', () => {
  it('keeps outputs for retention_days; after that the record and its download are 404 and the file is gone', async () => {
    let clock = new Date('2026-11-01T10:00:00Z');
    const { dir, app, createKey } = await setup(() => clock);
    const { key } = await createKey();
    const auth = { ...HOST, authorization: `Bearer ${key}` };
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/convert',
      headers: auth,
      payload: {
        markdown: '# Kept',
        template_id: BUILTIN_TEMPLATE_ID,
        mapping_id: BUILTIN_MAPPING_ID,
        response_format: 'json',
      },
    });
    const id = res.json<{ conversion_id: string }>().conversion_id;
    clock = new Date('2026-11-30T10:00:00Z');
    expect(
      (await app.inject({ method: 'GET', url: `/api/v1/conversions/${id}/download`, headers: auth })).statusCode,
    ).toBe(200);
    clock = new Date('2026-12-01T10:00:01Z');
    for (const url of [`/api/v1/conversions/${id}`, `/api/v1/conversions/${id}/download`]) {
      const gone = await app.inject({ method: 'GET', url, headers: auth });
      expect(gone.statusCode).toBe(404);
      expect(gone.json()).toMatchObject({ error: { code: 'not_found' } });
    }
    const list = await app.inject({ method: 'GET', url: '/api/v1/conversions', headers: auth });
    expect(list.json<{ total: number }>().total).toBe(0);
    expect(readdirSync(join(dir, 'outputs'))).toEqual([]);
  });
});

describe('a damaged database', () => {
  it('stops the start with a message naming the file, keeps a backup and never replaces it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-broken-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'db.json');
    writeFileSync(file, '{"schema_version": 2, "templates": [');
    const error = await Store.open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseError);
    expect((error as Error).message).toContain(file);
    expect(readFileSync(file, 'utf8')).toBe('{"schema_version": 2, "templates": [');
    expect(readdirSync(dir).some((name) => name.startsWith('db.json.') && name.endsWith('.bak'))).toBe(true);
    // The lock is released: once repaired, the directory opens.
    writeFileSync(
      file,
      JSON.stringify({
        schema_version: 2,
        settings: {},
        templates: [],
        mappings: [],
        api_keys: [],
      }),
    );
    const store = await Store.open(dir);
    store.close();
  });

  it('refuses a database of a newer schema', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-newer-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'db.json'), JSON.stringify({ schema_version: 99 }));
    await expect(Store.open(dir)).rejects.toThrow(/newer Docwright/);
  });
});

describe('server errors', () => {
  it('answers 500 internal_error without internals', async () => {
    const { app } = await setup();
    // Every route declares its access (server/web/access.ts), test routes too.
    app.get('/api/v1/test-failure', { config: { access: 'api' } }, async () => {
      throw new Error('ENOENT: /home/someone/.local/share/docwright/secret stuff');
    });
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/test-failure',
      headers: { ...HOST, 'x-docwright-admin': ADMIN },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'internal_error', message: expect.any(String) } });
    expect(res.body).not.toMatch(/ENOENT|home|secret/);
  });
});
