// A slow body (R.U.D.Y.: the head at once, then one byte a second, for ever) is cut off with 408 request_timeout
// and the connection closed once the whole request has taken `requestTimeout`. Here on a real socket with the
// timeout shortened to 2 s, so it runs in `npm test`; test/hostile/http.test.ts checks the real 120 s under SOAK.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { TIMEOUTS } from '../../server/http/hardening.ts';
import { Store } from '../../server/store/store.ts';

const REQUEST_TIMEOUT = 2_000;
const dir = mkdtempSync(join(tmpdir(), 'dw-slow-body-'));
let store: Store;
let app: Awaited<ReturnType<typeof buildApp>>;
let port = 0;
let key = '';

beforeAll(async () => {
  store = await Store.open(dir);
  app = await buildApp({
    store,
    secret: randomBytes(32),
    adminToken: 'admin',
    timeouts: { requestTimeout: REQUEST_TIMEOUT, headersTimeout: REQUEST_TIMEOUT },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  const created = await app.inject({
    method: 'POST',
    url: '/api/settings/api-keys',
    headers: { host: `127.0.0.1:${port}`, 'x-docwright-admin': 'admin' },
    payload: { name: 'slow' },
  });
  key = created.json<{ key: string }>().key;
});

afterAll(async () => {
  await app?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a slow body', () => {
  it(`is answered 408 request_timeout and closed once the request takes requestTimeout (${REQUEST_TIMEOUT / 1000} s here)`, async () => {
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise((resolve) => socket.once('connect', resolve));
    const started = Date.now();
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
    socket.write(
      `POST /api/v1/convert HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
    );
    const drip = setInterval(() => socket.destroyed || socket.write(' '), 200);
    const after = await Promise.race([
      closed,
      new Promise<number>((resolve) => setTimeout(() => resolve(-1), REQUEST_TIMEOUT + 10_000)),
    ]);
    clearInterval(drip);
    socket.destroy();
    expect(after, 'the server closed the slow connection').toBeGreaterThan(0);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
      error: {
        code: 'request_timeout',
        message: expect.stringContaining(`whole request within ${REQUEST_TIMEOUT / 1000} s`),
      },
    });
    expect(after).toBeGreaterThanOrEqual(REQUEST_TIMEOUT - 500);
    expect(after).toBeLessThan(REQUEST_TIMEOUT + 3_000);
    expect(store.listConversions(0, 10).total, 'nothing behind it was processed').toBe(0);
  });

  it(`a server built with the defaults cuts requests off after ${TIMEOUTS.requestTimeout / 1000} s (Node's own default is 300 s)`, async () => {
    const other = await buildApp({ store, secret: randomBytes(32) });
    expect(other.server.requestTimeout).toBe(TIMEOUTS.requestTimeout);
    expect(other.server.headersTimeout).toBe(TIMEOUTS.headersTimeout);
    await other.close();
  });
});
