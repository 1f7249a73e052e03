// Issue 12, failed-authentication throttle: a key that verifies always works (12 bad keys from 127.0.0.1 used to
// lock out a valid, never-used key), and guessing is bounded globally (binding 127.0.0.2 … 127.0.0.50 used to give
// 490 guesses without a single 429). Real HTTP over raw sockets, each from a chosen loopback source address.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKey } from '../../server/auth/keys.ts';
import { buildApp } from '../../server/app.ts';
import { Store } from '../../server/store/store.ts';
import { rawRequest } from './raw-http.ts';

const ADMIN = 'admin-token-for-throttle';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function server(): Promise<{ app: FastifyInstance; port: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-throttle-'));
  const store = await Store.open(dir);
  const app = await buildApp({ store, secret: randomBytes(32), adminToken: ADMIN, uiDir: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  closers.push(async () => {
    await app.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { app, port: typeof address === 'object' && address ? address.port : 0 };
}

async function createKey(port: number): Promise<string> {
  const res = await rawRequest({
    port,
    method: 'POST',
    target: '/api/settings/api-keys',
    headers: { 'x-docwright-admin': ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'k' }),
  });
  expect(res.status).toBe(201);
  return (JSON.parse(res.body) as { key: string }).key;
}

const templates = (port: number, key: string, from = '127.0.0.1') =>
  rawRequest({
    port,
    method: 'GET',
    target: '/api/v1/templates',
    headers: { authorization: `Bearer ${key}` },
    localAddress: from,
  });

describe('failed-authentication throttle', () => {
  it('12 bad keys from 127.0.0.1, then a valid key never used before works from 127.0.0.1 at once', async () => {
    const { port } = await server();
    const valid = await createKey(port);
    for (let i = 0; i < 12; i++) expect([401, 429]).toContain((await templates(port, generateKey().key)).status);
    const started = Date.now();
    expect((await templates(port, valid)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_000);
    // The same wrong key retried: its own prefix runs out after 10 and it gets 429 with Retry-After.
    const wrong = generateKey().key;
    const retried: number[] = [];
    for (let i = 0; i < 12; i++) retried.push((await templates(port, wrong)).status);
    expect(retried.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(retried.slice(10)).toEqual([429, 429]);
  });

  it('490 guesses from 49 source addresses (127.0.0.2 … 127.0.0.50) are bounded globally; valid keys work throughout', async () => {
    const { port } = await server();
    const valid = await createKey(port);
    const statuses: number[] = [];
    let retryAfter = 0;
    const started = Date.now();
    for (let host = 2; host <= 50; host++) {
      for (let i = 0; i < 10; i++) {
        const res = await templates(port, generateKey().key, `127.0.0.${host}`);
        statuses.push(res.status);
        if (res.status === 429) retryAfter = Number(res.headers['retry-after']);
      }
      // A valid key from any address, never used from there, works at once.
      expect((await templates(port, valid, `127.0.0.${host}`)).status).toBe(200);
    }
    const seconds = (Date.now() - started) / 1000;
    const plain = statuses.filter((s) => s === 401).length;
    const limited = statuses.filter((s) => s === 429).length;
    console.log(
      `throttle: 490 guesses from 49 addresses in ${seconds.toFixed(1)} s → ${plain} × 401, ${limited} × 429 (Retry-After ${retryAfter} s)`,
    );
    expect(plain + limited).toBe(490);
    // The burst (60) plus one a second of refill, whatever the source address.
    expect(plain).toBeLessThanOrEqual(60 + Math.ceil(seconds) + 1);
    expect(limited).toBeGreaterThan(300);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The owner is not locked out either: the admin token works; a wrong one is answered 429 like any failure.
    expect(
      (
        await rawRequest({
          port,
          method: 'GET',
          target: '/api/settings',
          headers: { 'x-docwright-admin': ADMIN },
          localAddress: '127.0.0.9',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await rawRequest({
          port,
          method: 'GET',
          target: '/api/settings',
          headers: { 'x-docwright-admin': 'wrong-admin' },
          localAddress: '127.0.0.9',
        })
      ).status,
    ).toBe(429);
  }, 60_000);
});
