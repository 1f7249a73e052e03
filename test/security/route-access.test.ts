// Issue 12, critical: no request without credentials reaches a protected route, however its target is spelled.
// Every route comes from the app's own route table (printRoutes), not a hand-written list; each protected one is
// requested over a raw socket to a real listening server, directly and through every spelling a router may
// normalise: percent-encoding of each character, `//`, `/./`, `/x/../`, encoded slashes, trailing slashes, letter
// case, absolute-form targets and `;` parameters. Then the concrete exploits of the issue, with real bodies.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { Store } from '../../server/store/store.ts';
import { fixture } from '../helpers/docx.ts';
import { rawRequest, type RawResponse } from './raw-http.ts';

const ADMIN = 'admin-token-for-route-access';
/** The routes meant to be public: the UI's files, health, and the session link (its token is checked inside). */
const PUBLIC_PATHS = new Set(['/', '/index.html', '/assets/app.js', '/api/health', '/auth/session']);

let dir: string;
let store: Store;
let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-route-access-'));
  const ui = join(dir, 'ui');
  mkdirSync(join(ui, 'assets'), { recursive: true });
  writeFileSync(join(ui, 'index.html'), '<!doctype html><title>Docwright</title>');
  writeFileSync(join(ui, 'assets', 'app.js'), 'export {};');
  store = await Store.open(join(dir, 'data'));
  app = await buildApp({ store, secret: randomBytes(32), adminToken: ADMIN, uiDir: ui });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
});

afterAll(async () => {
  await app.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Route {
  method: string;
  path: string;
}

/** Every route of the app's route table: printRoutes' tree, each line a path segment and its methods. */
function routeTable(): Route[] {
  const stack: string[] = [];
  const routes: Route[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^(.*?)(?:└──|├──) (.*) \(([A-Z, ]+)\)$/.exec(line);
    if (!m?.[2] || !m[3]) continue;
    const depth = (m[1] ?? '').length / 4;
    const path =
      (stack[depth - 1] ?? '') +
      (depth > 0 && !(stack[depth - 1] ?? '').endsWith('/') && !m[2].startsWith('/') ? '/' : '') +
      m[2];
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of m[3].split(',').map((s) => s.trim())) routes.push({ method, path });
  }
  return routes;
}

/** A concrete path: parameters filled in. */
const concrete = (path: string) => path.replace(/:[a-z_]+/g, randomUUID());

function pct(ch: string): string {
  return `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
}

/** Every spelling of a path a router or a proxy might take for the same route. */
function spellings(path: string): string[] {
  const out = new Set<string>([path]);
  for (let i = 0; i < path.length; i++) {
    const ch = path.charAt(i);
    if (ch === '/') {
      const before = path.slice(0, i);
      const after = path.slice(i + 1);
      out.add(`${before}//${after}`);
      out.add(`${before}/./${after}`);
      out.add(`${before}/%2e/${after}`);
      out.add(`${before}/x/../${after}`);
      out.add(`${before}/x/%2e%2e/${after}`);
      if (i > 0) {
        out.add(`${before}%2F${after}`);
        out.add(`${before}%2f${after}`);
        out.add(`${before};/${after}`);
        out.add(`${before};x=1/${after}`);
        out.add(`${before}\\${after}`);
      }
    } else {
      out.add(path.slice(0, i) + pct(ch) + path.slice(i + 1));
      out.add(path.slice(0, i) + pct(ch).toLowerCase() + path.slice(i + 1));
    }
  }
  out.add(`${path}/`);
  out.add(`${path}//`);
  out.add(`${path}/.`);
  out.add(`${path};`);
  out.add(`${path};x=1`);
  out.add(`${path}?x=1`);
  out.add(`${path}%00`);
  out.add(`${path}%20`);
  out.add(`${path}#frag`);
  out.add(path.toUpperCase());
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const s = segments[i] ?? '';
    out.add([...segments.slice(0, i), s.charAt(0).toUpperCase() + s.slice(1), ...segments.slice(i + 1)].join('/'));
  }
  // The whole path encoded.
  out.add(
    Array.from(path)
      .map((c) => (c === '/' ? c : pct(c)))
      .join(''),
  );
  return [...out];
}

/** The same, as absolute-form request targets (RFC 9112 3.2.2) with a correct Host header. */
function absoluteForms(path: string): string[] {
  const encodedFirst = `/${pct(path.charAt(1))}${path.slice(2)}`;
  return [
    `http://127.0.0.1:${port}${path}`,
    `https://127.0.0.1:${port}${path}`,
    `HTTP://127.0.0.1:${port}${path}`,
    `http://127.0.0.1:${port}${encodedFirst}`,
    `http://localhost:${port}${path}`,
    `http://127.0.0.1:${port}/${path}`,
  ];
}

/**
 * Whether an answer refuses: 401/403, a router miss (404 "No route …", never a handler's own 404, which would mean
 * the route ran), or a request Node itself refused as malformed (400 from the parser).
 */
function refused(response: RawResponse): boolean {
  if (response.status === 401 || response.status === 403) return true;
  let message: string;
  try {
    message = (JSON.parse(response.body) as { error?: { message?: string } }).error?.message ?? '';
  } catch {
    message = '';
  }
  if (response.status === 404) return message.startsWith('No route');
  return response.status === 400 && (message === 'Malformed HTTP request.' || response.body === '');
}

async function send(method: string, target: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const withBody = ['POST', 'PUT', 'PATCH'].includes(method);
  return rawRequest({
    port,
    method,
    target,
    ...(withBody ? { headers: { 'content-type': 'application/json', ...headers }, body: '{}' } : { headers }),
  });
}

/** Runs `jobs` with at most `width` at once. */
async function pool<T>(jobs: (() => Promise<T>)[], width = 8): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const i = next++;
        const job = jobs[i];
        if (job) results[i] = await job();
      }
    }),
  );
  return results;
}

describe('every route of the route table declares its access, and every protected one refuses without credentials', () => {
  it('the route table holds the API, settings, MCP and UI routes', () => {
    const paths = new Set(routeTable().map((r) => r.path));
    for (const p of [
      '/api/v1/convert',
      '/api/v1/templates/:id/file',
      '/api/settings/api-keys/:id',
      '/mcp',
      '/api/health',
      '/auth/session',
      '/assets/app.js',
      '/',
    ])
      expect(paths).toContain(p);
  });

  it('directly and through every spelling of its path, over a raw socket', async () => {
    const routes = routeTable().filter((r) => !PUBLIC_PATHS.has(r.path) && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(25);
    const jobs: (() => Promise<string | undefined>)[] = [];
    for (const route of routes) {
      const path = concrete(route.path);
      for (const target of [...spellings(path), ...absoluteForms(path)]) {
        jobs.push(async () => {
          const response = await send(route.method, target);
          return refused(response)
            ? undefined
            : `${route.method} ${target} → ${response.status} ${response.body.slice(0, 120)}`;
        });
      }
      // HEAD shadows GET: no body to read, the status alone must refuse.
      if (route.method === 'GET') {
        jobs.push(async () => {
          const response = await rawRequest({ port, method: 'HEAD', target: path });
          return response.status === 401 ? undefined : `HEAD ${path} → ${response.status}`;
        });
      }
    }
    const started = Date.now();
    const leaks = (await pool(jobs)).filter((x): x is string => x !== undefined);
    console.log(
      `route access: ${routes.length} protected routes, ${jobs.length} spellings in ${Date.now() - started} ms, ${leaks.length} got through`,
    );
    expect(leaks, leaks.slice(0, 20).join('\n')).toEqual([]);
  }, 120_000);

  it('the same routes answer their owner (the declaration admits, not only refuses)', async () => {
    expect((await send('GET', '/api/settings', { 'x-docwright-admin': ADMIN })).status).toBe(200);
    expect((await send('GET', '/api/v1/templates', { 'x-docwright-admin': ADMIN })).status).toBe(200);
    expect((await send('GET', '/%61pi/settings', { 'x-docwright-admin': ADMIN })).status).toBe(200);
  });

  it('public routes and the 404 answer need nothing', async () => {
    expect((await send('GET', '/api/health')).status).toBe(200);
    expect((await send('GET', '/')).status).toBe(200);
    expect((await send('GET', '/assets/app.js')).status).toBe(200);
    const missing = await send('GET', '/no/such/route');
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('No route');
  });
});

describe('the exploits of issue 12, without a key or a cookie', () => {
  it('GET /%61pi/settings/api-keys does not list the keys', async () => {
    await app.services.createApiKey('victim', randomBytes(32));
    const response = await send('GET', '/%61pi/settings/api-keys');
    expect(response.status).toBe(401);
    expect(response.body).not.toContain('key_prefix');
  });

  it('POST /%61pi/settings/api-keys creates no key', async () => {
    const before = store.listKeys().length;
    const response = await rawRequest({
      port,
      method: 'POST',
      target: '/%61pi/settings/api-keys',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    expect(response.status).toBe(401);
    expect(response.body).not.toContain('dw_');
    expect(store.listKeys().length).toBe(before);
  });

  it('PATCH /api/%73ettings changes nothing', async () => {
    const before = JSON.stringify(store.settings());
    const response = await rawRequest({
      port,
      method: 'PATCH',
      target: '/api/%73ettings',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ retention_days: 7, mcp_output_dir: '/' }),
    });
    expect(response.status).toBe(401);
    expect(JSON.stringify(store.settings())).toBe(before);
  });

  it('GET /api/%761/conversions lists nothing', async () => {
    const response = await send('GET', '/api/%761/conversions');
    expect(response.status).toBe(401);
    expect(response.body).not.toContain('"items"');
  });

  it('POST /%61%70%69/v1/templates stores no template', async () => {
    const before = store.listTemplates().length;
    const form = new FormData();
    form.append('name', 'Injected');
    form.append(
      'file',
      new Blob([new Uint8Array(fixture('templates', 'corporate.docx'))], {
        type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      }),
      'x.docx',
    );
    const encoded = new Response(form);
    const body = Buffer.from(await encoded.arrayBuffer());
    const response = await rawRequest({
      port,
      method: 'POST',
      target: '/%61%70%69/v1/templates',
      headers: { 'content-type': encoded.headers.get('content-type') ?? '' },
      body,
    });
    expect(response.status).toBe(401);
    expect(store.listTemplates().length).toBe(before);
  });

  it('an absolute-form target with a correct Host header does not list the keys', async () => {
    const response = await send('GET', `https://127.0.0.1:${port}/api/settings/api-keys`);
    expect(response.status).toBe(401);
    expect(response.body).not.toContain('key_prefix');
  });
});

describe('a route that declares no access', () => {
  it('fails the start, naming the route', async () => {
    const other = await Store.open(join(dir, 'undeclared'));
    const undeclared = await buildApp({ store: other, secret: randomBytes(32), uiDir: false });
    undeclared.get('/api/v1/forgotten', async () => ({ secret: true }));
    await expect(undeclared.ready()).rejects.toThrow(/declare its access[\s\S]*GET \/api\/v1\/forgotten/);
    await undeclared.close().catch(() => undefined);
    other.close();
  });
});
