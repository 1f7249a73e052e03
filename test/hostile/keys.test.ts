// Keys under attack: brute force is bounded (after 60 failed authentications in a minute, from wherever they come,
// further failures get 429 too_many_requests with Retry-After) while valid credentials are never held up (any key
// that verifies, proven before or not, the CLI's admin token and the session link work at once); and no key, Authorization header, session token, session id
// or admin token ever reaches the logs of a real server with its request logger on, nor `docwright serve`'s output.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../server/auth/keys.ts';
import { startServer } from '../../server/serve.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, killAllChildren, startServe, trustingAgent } from '../helpers/docwright-process.ts';

const SOAK = Boolean(process.env.SOAK);
const root = mkdtempSync(join(tmpdir(), 'dw-hostile-keys-'));
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
  await killAllChildren();
  rmSync(root, { recursive: true, force: true });
});

/** A well-formed key (right prefix and checksum) that was never issued. */
const guess = () => generateKey().key;

interface Handoff {
  url: string;
  uiLink: string;
  adminToken: string;
  certPath: string;
}

/** Starts test/hostile/log-server.ts (a real server, logger on) and captures everything it writes. */
async function loggingServer(): Promise<{ handoff: Handoff; output: () => string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(root, 'log-'));
  const handoffFile = join(root, `handoff-${randomBytes(4).toString('hex')}.json`);
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'log-server.ts'), dir, handoffFile],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = Date.now();
  while (!existsSync(handoffFile)) {
    if (child.exitCode !== null || Date.now() - started > 30_000)
      throw new Error(`log-server did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 50));
  const handoff = JSON.parse(readFileSync(handoffFile, 'utf8')) as Handoff;
  return {
    handoff,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Every secret a test sent or received; none may appear in the output. */
function expectNoSecrets(output: string, secrets: string[]) {
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThan(8);
    expect(output, `the output holds ${secret.slice(0, 6)}…`).not.toContain(secret);
    // Not even the random part of a key without its prefix.
    if (secret.startsWith('dw_')) expect(output).not.toContain(secret.slice(3, 20));
  }
  expect(output).not.toMatch(/Bearer/i);
}

describe('logs', () => {
  it('a real server with its logger on logs every request, and never a key, header, token or session id', async () => {
    const server = await loggingServer();
    cleanups.push(server.stop);
    const { url, uiLink, adminToken, certPath } = server.handoff;
    const agent = trustingAgent(certPath);
    cleanups.push(() => agent.close());
    const admin = { 'x-docwright-admin': adminToken };
    const created = (
      await call(agent, `${url}/api/settings/api-keys`, { method: 'POST', headers: admin, body: { name: 'logged' } })
    ).json() as { key: string };
    const revoked = (
      await call(agent, `${url}/api/settings/api-keys`, { method: 'POST', headers: admin, body: { name: 'revoked' } })
    ).json() as { id: string; key: string };
    expect(
      (await call(agent, `${url}/api/settings/api-keys/${revoked.id}`, { method: 'DELETE', headers: admin })).status,
    ).toBe(200);
    const unknown = guess();
    const auth = { authorization: `Bearer ${created.key}` };

    expect((await call(agent, `${url}/api/v1/templates`, { headers: auth })).status).toBe(200);
    expect(
      (
        await call(agent, `${url}/api/v1/convert`, {
          method: 'POST',
          headers: auth,
          body: {
            markdown: '# Logged',
            template_id: BUILTIN_TEMPLATE_ID,
            mapping_id: BUILTIN_MAPPING_ID,
            response_format: 'json',
          },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call(agent, `${url}/api/v1/templates`, { headers: { authorization: `Bearer ${unknown}` } })).status,
    ).toBe(401);
    expect(
      (await call(agent, `${url}/api/v1/templates`, { headers: { authorization: `Bearer ${revoked.key}` } })).status,
    ).toBe(401);
    expect(
      (await call(agent, `${url}/api/v1/templates`, { headers: { authorization: 'Bearer hunter2-not-a-key' } })).status,
    ).toBe(401);
    expect(
      (
        await call(agent, `${url}/api/v1/templates`, {
          headers: { authorization: `Basic ${Buffer.from(`user:${created.key}`).toString('base64')}` },
        })
      ).status,
    ).toBe(401);
    // A key put in the query string by mistake, and the session link: URLs are logged without their query values.
    expect((await call(agent, `${url}/api/v1/templates?api_key=${created.key}`)).status).toBe(401);
    const link = await call(agent, uiLink);
    expect(link.status).toBe(303);
    expect(link.headers['set-cookie']).toBeUndefined();
    const session = /^\/#session=(.{20,})$/.exec(String(link.headers.location ?? ''))?.[1] ?? '';
    expect(session).not.toBe('');
    expect((await call(agent, `${url}/api/settings`, { headers: { 'x-docwright-session': session } })).status).toBe(
      200,
    );
    expect((await call(agent, `${url}/auth/session?token=wrong-link-token-123`)).status).toBe(401);
    expect((await call(agent, `${url}/api/settings`, { headers: admin })).status).toBe(200);
    expect(
      (await call(agent, `${url}/api/settings`, { headers: { 'x-docwright-admin': 'wrong-admin-token-456' } })).status,
    ).toBe(401);
    await new Promise((r) => setTimeout(r, 300));

    const output = server.output();
    // The logger is really on: one line per request, with its method, path and status.
    const lines = output
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; req?: { url: string }; res?: { statusCode: number } });
    const urls = lines.flatMap((l) => (l.req ? [l.req.url] : []));
    expect(urls).toContain('/api/v1/templates');
    expect(urls).toContain('/auth/session?token=[redacted]');
    expect(urls).toContain('/api/v1/templates?api_key=[redacted]');
    expect(lines.filter((l) => l.msg === 'request completed').length).toBeGreaterThanOrEqual(14);
    const uiToken = new URL(uiLink).searchParams.get('token') ?? '';
    expectNoSecrets(output, [
      created.key,
      revoked.key,
      unknown,
      'hunter2-not-a-key',
      adminToken,
      uiToken,
      session,
      'wrong-link-token-123',
      'wrong-admin-token-456',
    ]);
  });

  it('docwright serve writes the session link to a 0600 file, not to its output (no terminal), and prints nothing secret', async () => {
    const dir = mkdtempSync(join(root, 'serve-'));
    const server = await startServe(['--data-dir', dir]);
    const agent = trustingAgent(join(dir, 'tls', 'localhost-cert.pem'));
    const adminToken = readFileSync(join(dir, 'admin.token'), 'utf8').trim();
    const { key } = (
      await call(agent, `${server.url}/api/settings/api-keys`, {
        method: 'POST',
        headers: { 'x-docwright-admin': adminToken },
        body: { name: 'k' },
      })
    ).json() as { key: string };
    const unknown = guess();
    await call(agent, `${server.url}/api/v1/templates`, { headers: { authorization: `Bearer ${key}` } });
    await call(agent, `${server.url}/api/v1/templates`, { headers: { authorization: `Bearer ${unknown}` } });
    await call(agent, `${server.url}/api/settings`, { headers: { 'x-docwright-admin': 'wrong-admin-token-789' } });
    const linkFile = join(dir, 'ui-link');
    const uiToken = new URL(readFileSync(linkFile, 'utf8').trim()).searchParams.get('token') ?? '';
    expect(uiToken.length).toBeGreaterThan(20);
    expect(statSync(linkFile).mode & 0o077).toBe(0);
    await agent.close();
    server.child.kill('SIGTERM');
    await server.exited;
    expect(server.stdout()).toContain(`Open the app:  the link in ${join(dir, 'ui-link')}`);
    expect(server.stdout()).not.toContain('token=');
    expectNoSecrets(server.stdout() + server.stderr(), [key, unknown, adminToken, uiToken, 'wrong-admin-token-789']);
    expect(existsSync(linkFile)).toBe(false);
  });
});

describe('brute force', () => {
  it(
    '60 failures → 429 too_many_requests with Retry-After; every valid credential goes on at once',
    async () => {
      const dir = mkdtempSync(join(root, 'brute-'));
      const server = await startServer({ dataDir: dir, port: 0 });
      cleanups.push(() => server.close());
      const agent: Agent = trustingAgent(server.discovery.cert_path ?? '');
      cleanups.push(() => agent.close());
      const url = server.discovery.url;
      const admin = { 'x-docwright-admin': server.adminToken };
      const create = async (name: string) =>
        (
          await call(agent, `${url}/api/settings/api-keys`, { method: 'POST', headers: admin, body: { name } })
        ).json() as { key: string };
      const proven = (await create('proven')).key;
      const get = (key: string) =>
        call(agent, `${url}/api/v1/templates`, { headers: { authorization: `Bearer ${key}` } });
      expect((await get(proven)).status).toBe(200);

      // A valid key never counts: 50 uses, then the attack.
      for (let i = 0; i < 50; i++) expect((await get(proven)).status).toBe(200);
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) statuses.push((await get(guess())).status);
      expect(statuses).toEqual(Array(60).fill(401));
      // The allowance refills at one a second, so a guess or two more may still be answered 401 before the 429.
      let blocked = await get(guess());
      for (let i = 0; blocked.status === 401 && i < 20; i++) blocked = await get(guess());
      expect(blocked.status).toBe(429);
      expect(blocked.json()).toEqual({
        error: { code: 'too_many_requests', message: expect.stringMatching(/retry in \d+ s/) },
      });
      const retryAfter = Number(blocked.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);

      // 200 more guesses, malformed ones too: all 429; meanwhile the proven key works at once, every time.
      const started = Date.now();
      const later: number[] = [];
      for (let i = 0; i < 200; i++) {
        later.push((await get(i % 3 === 0 ? 'dw_short' : guess())).status);
        if (i % 20 === 0) {
          const t = Date.now();
          expect((await get(proven)).status).toBe(200);
          expect(Date.now() - t).toBeLessThan(1_000);
        }
      }
      // The global allowance refills at one failure a second: that many may be answered 401 again, the rest 429.
      const plain = later.filter((status) => status === 401).length;
      expect(plain).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000) + 1);
      expect(later.filter((status) => status !== 401 && status !== 429)).toEqual([]);
      console.log(
        `brute force: 200 guesses refused in ${Date.now() - started} ms with 429, Retry-After ${retryAfter} s`,
      );

      // The owner is never locked out: the admin token and the session link work; a wrong admin token is refused alike.
      expect((await call(agent, `${url}/api/settings`, { headers: admin })).status).toBe(200);
      expect((await call(agent, `${url}/api/settings`, { headers: { 'x-docwright-admin': 'wrong' } })).status).toBe(
        429,
      );
      expect((await call(agent, server.uiLink)).status).toBe(303);
      expect((await call(agent, `${url}/auth/session?token=wrong`)).status).toBe(429);

      // A key never used before works at once too: a key that verifies is never throttled (keys carry ~190 random
      // bits, so the bound is about noise and work, and the 429 tells a guesser nothing a 401 would not).
      const fresh = (await create('fresh')).key;
      expect((await get(fresh)).status).toBe(200);

      // Other work of valid clients is not slowed either.
      const convert = await call(agent, `${url}/api/v1/convert`, {
        method: 'POST',
        headers: { authorization: `Bearer ${proven}` },
        body: {
          markdown: '# Still here',
          template_id: BUILTIN_TEMPLATE_ID,
          mapping_id: BUILTIN_MAPPING_ID,
          response_format: 'json',
        },
      });
      expect(convert.status).toBe(200);

      if (SOAK) {
        // The bucket refills: after Retry-After, a guess is answered 401 again.
        const wait = Number((await get(guess())).headers['retry-after']);
        await new Promise((r) => setTimeout(r, (wait + 1) * 1000));
        expect((await get(guess())).status).toBe(401);
      }
    },
    SOAK ? 180_000 : 60_000,
  );
});
