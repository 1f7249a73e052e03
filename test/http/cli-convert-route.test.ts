// POST /api/cli/convert, the route `docwright convert` sends its conversions to when a server runs for its data
// folder (docs/cli.md, "Where the conversion runs"): the admin token only (it reads a folder of this computer),
// never an API key or the app's session; the document comes back, nothing is recorded, stored or charged; GET
// counts them for `docwright status`.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { Store } from '../../server/store/store.ts';
import { dataPaths } from '../../server/store/paths.ts';
import { validateDocx } from '../helpers/docx.ts';

const ADMIN = 'admin-token-for-cli-convert';
const admin = { 'x-docwright-admin': ADMIN };
let dir: string;
let store: Store;
let app: FastifyInstance;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-cli-route-'));
  store = await Store.open(join(dir, 'data'));
  app = await buildApp({ store, secret: randomBytes(32), adminToken: ADMIN, convert: { size: 1 } });
});

afterAll(async () => {
  await app.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (headers: Record<string, string>, body: unknown) =>
  app.inject({ method: 'POST', url: '/api/cli/convert', headers, payload: body as Record<string, unknown> });

describe('POST /api/cli/convert', () => {
  it("converts for the admin token and records nothing: no History, no stored file, no quota's use", async () => {
    const res = await post(admin, { markdown: '# Hello\n\nWorld.\n', created: Date.now() });
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json<{ docx: string; warnings: string[]; stats: { headings: number } }>();
    expect(answer.stats.headings).toBe(1);
    const { ok, report } = await validateDocx(new Uint8Array(Buffer.from(answer.docx, 'base64')));
    expect(ok, report).toBe(true);
    expect(store.listConversions(0, 10).total).toBe(0);
    expect(store.usage(new Date())).toBe(0);
    expect(readdirSync(dataPaths(join(dir, 'data')).outputs)).toEqual([]);
    const count = await app.inject({ method: 'GET', url: '/api/cli/convert', headers: admin });
    expect(count.json()).toEqual({ conversions: 1 });
  }, 120_000);

  it("says a conversion's input error as the API does", async () => {
    const res = await post(admin, { markdown: '# x', mapping: { rules: 'no' }, created: 0 });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ error: { code: 'validation_error' } });
  }, 120_000);

  it('takes only an absolute images folder', async () => {
    const res = await post(admin, { markdown: '# x', folder: 'relative/images', created: 0 });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error: { code: 'validation_error', message: 'folder must be an absolute path.' } });
  });

  it('is refused without the admin token: none, a wrong one, an API key', async () => {
    const { key } = (
      await app.inject({ method: 'POST', url: '/api/settings/api-keys', headers: admin, payload: { name: 'k' } })
    ).json<{ key: string }>();
    const refused: Record<string, string>[] = [
      {},
      { 'x-docwright-admin': 'wrong' },
      { authorization: `Bearer ${key}` },
    ];
    for (const headers of refused) {
      const res = await post(headers, { markdown: '# x', created: 0 });
      expect([401, 403], res.body).toContain(res.statusCode);
    }
  });

  it("is refused to the app's session (a web page must not read a folder of this computer)", async () => {
    const link = await app.inject({ method: 'POST', url: '/api/settings/session-link', headers: admin });
    const opened = await app.inject({ method: 'GET', url: link.json<{ path: string }>().path });
    const session = /#session=([A-Za-z0-9_-]+)$/.exec(String(opened.headers.location))?.[1] ?? '';
    expect(session).not.toBe('');
    const res = await post({ 'x-docwright-session': session }, { markdown: '# x', folder: '/etc', created: 0 });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: { code: 'forbidden' } });
  });
  it('refuses a mapping nested thousands deep as an invalid mapping (422), not an internal error', async () => {
    let deep: unknown = 'Normal';
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    for (const mapping of [deep, { rules: { paragraph: deep } }]) {
      const res = await post(admin, { markdown: '# Hello\n', mapping, created: Date.now() });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject({
        error: {
          code: 'validation_error',
          message: 'Invalid mapping: it nests more than 64 levels deep (a mapping is a few)',
        },
      });
    }
    // The server converts on.
    expect((await post(admin, { markdown: '# Hello\n', created: Date.now() })).statusCode).toBe(200);
  });
});
