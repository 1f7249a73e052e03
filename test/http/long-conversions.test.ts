// A conversion that takes longer than the server's connection timeout (30 s; half a second here, on a real socket) is
// answered, not cut: waiting for the pool is not idleness, on every route that converts (the pool's own time limit
// bounds the wait). Before, `docwright convert` through a running server lost a long conversion's answer at 30 s and
// converted the document again in its own process.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMarkdown } from '../../bench/generate.ts';
import { buildApp } from '../../server/app.ts';
import { Store } from '../../server/store/store.ts';

const CONNECTION_TIMEOUT = 500;
const ADMIN = 'admin-token-for-long-conversions';
const dir = mkdtempSync(join(tmpdir(), 'dw-long-conversions-'));
let store: Store;
let app: Awaited<ReturnType<typeof buildApp>>;
let port = 0;

beforeAll(async () => {
  store = await Store.open(dir);
  app = await buildApp({
    store,
    secret: randomBytes(32),
    adminToken: ADMIN,
    convert: { size: 1 },
    timeouts: { connectionTimeout: CONNECTION_TIMEOUT },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
});

afterAll(async () => {
  await app?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** POSTs JSON on a real socket: the status and how long the answer took, or the error that cut it. */
function post(path: string, body: unknown): Promise<{ status: number; ms: number } | { error: string }> {
  const payload = Buffer.from(JSON.stringify(body));
  const started = Date.now();
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: {
          host: `127.0.0.1:${String(port)}`,
          'x-docwright-admin': ADMIN,
          'content-type': 'application/json',
          'content-length': String(payload.length),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Date.now() - started }));
      },
    );
    req.on('error', (error) => resolve({ error: error.message }));
    req.end(payload);
  });
}

describe('a conversion longer than the connection timeout', () => {
  it(`is answered through /api/cli/convert (the timeout ${String(CONNECTION_TIMEOUT)} ms here)`, async () => {
    // A first conversion starts the pool's worker; 400 KB of markdown then takes well over half a second.
    const answer = await post('/api/cli/convert', { markdown: generateMarkdown(400 * 1024), created: Date.now() });
    expect(answer).toMatchObject({ status: 200 });
    expect('ms' in answer && answer.ms).toBeGreaterThan(CONNECTION_TIMEOUT);
  }, 120_000);
});
