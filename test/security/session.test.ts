// Issue 12, the UI session: the launch's link opens the app once, and only within minutes; a team server takes it
// only from its own computer; the session is a header the page sends (X-Docwright-Session), never a cookie a
// browser would also hand to another port of this host (two local servers keep their sessions apart); every
// response holding a secret says Cache-Control: no-store; the link never reaches a log.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppOptions } from '../../server/app.ts';
import { showSessionLink } from '../../server/cli/session-link.ts';
import { Store } from '../../server/store/store.ts';
import { runCli, startServe } from '../helpers/docwright-process.ts';
import { rawRequest } from './raw-http.ts';

const ADMIN = 'admin-token-for-sessions';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

interface Server {
  app: FastifyInstance;
  port: number;
  clock: { now: Date };
}

/** A real app listening on a free loopback port (plain HTTP unless `httpsOptions`), with a clock to move. */
async function server(extra: Partial<AppOptions> = {}, listen = true): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-session-'));
  const store = await Store.open(dir);
  const clock = { now: new Date() };
  const app = await buildApp({
    store,
    secret: randomBytes(32),
    adminToken: ADMIN,
    uiToken: 'the-launch-token-0123456789',
    uiDir: false,
    now: () => clock.now,
    ...extra,
  });
  if (listen) await app.listen({ host: '127.0.0.1', port: 0 });
  else await app.ready();
  closers.push(async () => {
    await app.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const address = app.server.address();
  return { app, port: typeof address === 'object' && address ? address.port : 0, clock };
}

const open = (s: Server, token = 'the-launch-token-0123456789') =>
  rawRequest({ port: s.port, method: 'GET', target: `/auth/session?token=${token}` });

describe('the session link', () => {
  it('opens the app once: the second use is refused', async () => {
    const s = await server();
    const first = await open(s);
    expect(first.status).toBe(303);
    const second = await open(s);
    expect(second.status).toBe(401);
    expect(second.body).toContain('docwright open');
  });

  it('a used link opened in a browser gets a page in words, a script the JSON envelope', async () => {
    const s = await server();
    expect((await open(s)).status).toBe(303);
    const page = await rawRequest({
      port: s.port,
      method: 'GET',
      target: '/auth/session?token=the-launch-token-0123456789',
      headers: { accept: 'text/html,application/xhtml+xml' },
    });
    expect(page.status).toBe(401);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('This link does not open Docwright');
    expect(page.body).toContain('docwright open');
    expect(page.body).not.toContain('"error"');
    const script = await open(s);
    expect(script.status).toBe(401);
    expect((JSON.parse(script.body) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('dies unused after 5 minutes', async () => {
    const s = await server();
    s.clock.now = new Date(s.clock.now.getTime() + 5 * 60_000 + 1000);
    expect((await open(s)).status).toBe(401);
  });

  it('a new link from the owner (docwright open) works once, and kills the previous one', async () => {
    const s = await server();
    const fresh = await rawRequest({
      port: s.port,
      method: 'POST',
      target: '/api/settings/session-link',
      headers: { 'x-docwright-admin': ADMIN },
    });
    expect(fresh.status).toBe(200);
    expect(fresh.headers['cache-control']).toBe('no-store');
    const path = (JSON.parse(fresh.body) as { path: string }).path;
    expect((await open(s)).status).toBe(401);
    expect((await rawRequest({ port: s.port, method: 'GET', target: path })).status).toBe(303);
    expect((await rawRequest({ port: s.port, method: 'GET', target: path })).status).toBe(401);
    // Without credentials there is no new link.
    expect((await rawRequest({ port: s.port, method: 'POST', target: '/api/settings/session-link' })).status).toBe(401);
  });

  it('a team server takes it only from its own computer', async () => {
    const s = await server({ team: true }, false);
    const remote = await s.app.inject({
      method: 'GET',
      url: '/auth/session?token=the-launch-token-0123456789',
      headers: { host: '127.0.0.1' },
      remoteAddress: '192.168.1.20',
    });
    expect(remote.statusCode).toBe(403);
    // The refusal did not use the link up: on the server's own computer it still opens the app.
    const local = await s.app.inject({
      method: 'GET',
      url: '/auth/session?token=the-launch-token-0123456789',
      headers: { host: '127.0.0.1' },
      remoteAddress: '127.0.0.1',
    });
    expect(local.statusCode).toBe(303);
  });

  it("a team server refuses it over a real socket from this machine's network address, and takes it on loopback", async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === 'IPv4')?.address;
    const hosts = ['127.0.0.1', 'localhost', '[::1]', ...(external ? [external] : [])];
    const dir = mkdtempSync(join(tmpdir(), 'dw-team-'));
    const store = await Store.open(dir);
    const app = await buildApp({
      store,
      secret: randomBytes(32),
      adminToken: ADMIN,
      uiToken: 'the-launch-token-0123456789',
      uiDir: false,
      team: true,
      allowedHosts: hosts,
    });
    await app.listen({ host: '0.0.0.0', port: 0 });
    closers.push(async () => {
      await app.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const target = '/auth/session?token=the-launch-token-0123456789';
    // Where this machine has a network address (CI containers do), the link is tried from it first, as a LAN peer would.
    if (external) {
      const remote = await rawRequest({ host: external, port, method: 'GET', target, localAddress: external });
      expect(remote.status, remote.body).toBe(403);
      expect(remote.body).toContain("server's own computer");
    }
    expect((await rawRequest({ port, method: 'GET', target })).status).toBe(303);
  });

  it('is written to a 0600 file, not printed, when the output is no terminal; printed only to a terminal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-link-'));
    const link = 'https://127.0.0.1:1234/auth/session?token=secret-token-abcdefghijkl';
    const lines: string[] = [];
    await showSessionLink(dir, link, (l) => lines.push(l), false);
    expect(lines.join('\n')).not.toContain('secret-token');
    expect(lines.join('\n')).toContain(join(dir, 'ui-link'));
    expect(readFileSync(join(dir, 'ui-link'), 'utf8')).toBe(`${link}\n`);
    expect(statSync(join(dir, 'ui-link')).mode & 0o777).toBe(0o600);
    const terminal: string[] = [];
    await showSessionLink(dir, link, (l) => terminal.push(l), true);
    expect(terminal.join('\n')).toContain(link);
    rmSync(dir, { recursive: true, force: true });
    expect(existsSync(dir)).toBe(false);
  });
});

/** The session id of a successful exchange: the redirect's fragment `/#session=<id>` (never a cookie). */
function sessionOf(res: { status: number; headers: Record<string, unknown> }): string {
  expect(res.status).toBe(303);
  const location = (res.headers.location as string | undefined) ?? '';
  const id = /^\/#session=([A-Za-z0-9_-]{20,})$/.exec(location)?.[1];
  expect(id, location).toBeDefined();
  return id ?? '';
}

describe('the session credential: a header the page sends, never a cookie', () => {
  it('another port of this host gets nothing a browser would hand it: no Set-Cookie, and a request without the header is refused', async () => {
    const s = await server();
    const res = await open(s);
    // A cookie is sent by the browser to every port of 127.0.0.1 (a hostile local server could collect it): none is set.
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');
    const id = sessionOf(res);
    // The id in the fragment never reaches a server; the page keeps it in sessionStorage (per origin, so per port).
    expect((await rawRequest({ port: s.port, method: 'GET', target: '/api/settings' })).status).toBe(401);
    // Even a cookie carrying the id (what a browser could have replayed before) opens nothing.
    for (const cookie of [`dw_session_${s.port}=${id}`, `dw_session=${id}`]) {
      expect(
        (await rawRequest({ port: s.port, method: 'GET', target: '/api/settings', headers: { cookie } })).status,
      ).toBe(401);
      expect(
        (
          await rawRequest({
            port: s.port,
            method: 'POST',
            target: '/api/settings/api-keys',
            headers: { cookie, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'stolen' }),
          })
        ).status,
      ).toBe(401);
    }
    expect(
      (
        await rawRequest({
          port: s.port,
          method: 'GET',
          target: '/api/settings',
          headers: { 'x-docwright-session': id },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await rawRequest({
          port: s.port,
          method: 'GET',
          target: '/api/settings',
          headers: { 'x-docwright-session': `${id}x` },
        })
      ).status,
    ).toBe(401);
  });

  it('two local servers keep their sessions apart', async () => {
    const a = await server();
    const b = await server();
    const ia = sessionOf(await open(a));
    const ib = sessionOf(await open(b));
    expect(
      (
        await rawRequest({
          port: a.port,
          method: 'GET',
          target: '/api/settings',
          headers: { 'x-docwright-session': ia },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await rawRequest({
          port: b.port,
          method: 'GET',
          target: '/api/settings',
          headers: { 'x-docwright-session': ib },
        })
      ).status,
    ).toBe(200);
    // Server b's session does not open a, nor a's b.
    expect(
      (
        await rawRequest({
          port: a.port,
          method: 'GET',
          target: '/api/settings',
          headers: { 'x-docwright-session': ib },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await rawRequest({
          port: b.port,
          method: 'GET',
          target: '/api/settings',
          headers: { 'x-docwright-session': ia },
        })
      ).status,
    ).toBe(401);
  });

  it('over HTTPS as well: a fragment, no cookie', async () => {
    const s = await server({ https: true, port: 47999 }, false);
    const res = await s.app.inject({
      method: 'GET',
      url: '/auth/session?token=the-launch-token-0123456789',
      headers: { host: '127.0.0.1:47999' },
    });
    expect(res.headers['set-cookie']).toBeUndefined();
    const id = sessionOf({ status: res.statusCode, headers: res.headers });
    const ok = await s.app.inject({
      method: 'GET',
      url: '/api/settings',
      headers: { host: '127.0.0.1:47999', 'x-docwright-session': id },
    });
    expect(ok.statusCode).toBe(200);
  });
});

describe('Cache-Control: no-store on every response holding a secret', () => {
  it('the session exchange and its refusal', async () => {
    const s = await server();
    expect((await open(s)).headers['cache-control']).toBe('no-store');
    expect((await open(s)).headers['cache-control']).toBe('no-store');
  });

  it('key creation', async () => {
    const s = await server();
    const res = await rawRequest({
      port: s.port,
      method: 'POST',
      target: '/api/settings/api-keys',
      headers: { 'x-docwright-admin': ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'cached?' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('docwright serve and docwright open, as real processes', () => {
  it('serve writes the link to a 0600 file (no terminal); open makes a new one there, and the old one dies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-open-'));
    const env = { ...process.env, DOCWRIGHT_KEYCHAIN: 'off' };
    const serve = await startServe(['--data-dir', dir, '--http'], { env });
    closers.push(async () => {
      serve.child.kill('SIGTERM');
      await serve.exited;
      rmSync(dir, { recursive: true, force: true });
    });
    const linkFile = join(dir, 'ui-link');
    // The URL line comes first; the link line follows once the file is written.
    for (let i = 0; i < 100 && !serve.stdout().includes('Open the app:'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const first = readFileSync(linkFile, 'utf8').trim();
    expect(serve.stdout()).not.toContain('token=');
    const opened = await runCli(['--data-dir', dir, 'open'], { env });
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toContain(`Open the app:  the link in ${linkFile}`);
    expect(opened.stdout + opened.stderr).not.toContain('token=');
    const second = readFileSync(linkFile, 'utf8').trim();
    expect(second).not.toBe(first);
    expect(statSync(linkFile).mode & 0o777).toBe(0o600);
    const port = Number(new URL(second).port);
    const target = (link: string) => `${new URL(link).pathname}${new URL(link).search}`;
    expect((await rawRequest({ port, method: 'GET', target: target(first) })).status).toBe(401);
    expect((await rawRequest({ port, method: 'GET', target: target(second) })).status).toBe(303);
    expect((await rawRequest({ port, method: 'GET', target: target(second) })).status).toBe(401);
  }, 60_000);

  it('open without a running server says how to start one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-open-none-'));
    const result = await runCli(['--data-dir', dir, 'open'], { env: { ...process.env, DOCWRIGHT_KEYCHAIN: 'off' } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('docwright serve');
    rmSync(dir, { recursive: true, force: true });
  });
});
