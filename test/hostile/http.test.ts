// Hostile HTTP against a real server on a real port, over raw TLS sockets where a client library would refuse to
// send the request: malformed JSON, wrong content types, oversized heads and bodies, slow clients, smuggling,
// other sites' Host headers (DNS rebinding) and Origins. Each gets its status and the error envelope, nothing
// behind a refused request is ever processed, and the server answers /api/health afterwards.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import type { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TIMEOUTS } from '../../server/http/hardening.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, trustingAgent } from '../helpers/docwright-process.ts';

let dir: string;
let server: RunningServer;
let agent: Agent;
let ca: string;
let port: number;
let host: string;
let key: string;
const SOAK = Boolean(process.env.SOAK);
const sockets = new Set<TLSSocket>();
let slowBodyAnswer: Promise<RawAnswer>;
let slowBodyStarted = 0;
let slowBodyTimer: NodeJS.Timeout | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-hostile-http-'));
  server = await startServer({ dataDir: dir, port: 0 });
  ca = readFileSync(server.discovery.cert_path ?? '', 'utf8');
  agent = trustingAgent(server.discovery.cert_path ?? '');
  port = server.discovery.port;
  host = `127.0.0.1:${port}`;
  const created = await call(agent, `${server.discovery.url}/api/settings/api-keys`, {
    method: 'POST',
    headers: { 'x-docwright-admin': server.adminToken },
    body: { name: 'hostile' },
  });
  key = (created.json() as { key: string }).key;
  if (!SOAK) return;
  // A slow body (R.U.D.Y.): the head at once, then one byte a second, for ever. Started here, it runs while the
  // other tests do; the last test (soak only: it takes the whole request timeout) checks that it was cut off.
  const slow = await open();
  slowBodyStarted = Date.now();
  slowBodyAnswer = collect(slow, TIMEOUTS.requestTimeout + 40_000);
  slow.write(
    `POST /api/v1/convert HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
  );
  slowBodyTimer = setInterval(() => slow.destroyed || slow.write(' '), 1_000);
});

afterAll(async () => {
  clearInterval(slowBodyTimer);
  for (const s of sockets) s.destroy();
  await agent?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  const health = await call(agent, `${server.discovery.url}/api/health`);
  expect(health.status, 'the server still answers /api/health').toBe(200);
});

interface RawAnswer {
  /** Everything the server sent until it closed the connection (or the wait ended). */
  text: string;
  /** Status codes of every response in it. */
  statuses: number[];
  closed: boolean;
  /** JSON bodies of the responses, where they parse. */
  bodies: unknown[];
}

function open(): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => resolve(socket));
    sockets.add(socket);
    socket.once('error', reject);
  });
}

function collect(socket: TLSSocket, waitMs: number): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let text = '';
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      const statuses = [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));
      const bodies = [...text.matchAll(/\r\n\r\n(\{.*?\}\})/gs)].map((m) => {
        try {
          return JSON.parse(m[1] ?? '') as unknown;
        } catch {
          return undefined;
        }
      });
      resolve({ text, statuses, closed, bodies });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      finish();
    });
  });
}

/** Sends raw bytes on a fresh TLS connection and reads until the server closes it (or `waitMs`). */
async function raw(request: string, waitMs = 3_000): Promise<RawAnswer> {
  const socket = await open();
  const answer = collect(socket, waitMs);
  socket.write(request);
  return answer;
}

const admin = () => `X-Docwright-Admin: ${server.adminToken}\r\n`;
/** A complete request that would create an API key named `name`: what a smuggler hides behind the first one. */
const smuggled = (name: string, close = false) => {
  const body = JSON.stringify({ name });
  return `POST /api/settings/api-keys HTTP/1.1\r\nHost: ${host}\r\n${admin()}${close ? 'Connection: close\r\n' : ''}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
};

async function keyNames(): Promise<string[]> {
  const list = await call(agent, `${server.discovery.url}/api/settings/api-keys`, {
    headers: { 'x-docwright-admin': server.adminToken },
  });
  return (list.json() as { name: string }[]).map((k) => k.name);
}

function expectEnvelope(body: unknown, code: string) {
  expect(body).toMatchObject({ error: { code, message: expect.any(String) } });
}

describe('bodies', () => {
  const convert = (contentType: string, body: string) =>
    `POST /api/v1/convert HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;

  it('malformed JSON → 400 bad_request (truncated, trailing garbage, a lone string, NaN)', async () => {
    for (const body of [
      '{"markdown": "# x", ',
      '{"markdown":"x"} trailing',
      '"just a string"',
      '{"markdown": NaN}',
      '\u0000\u0001',
    ]) {
      const res = await raw(convert('application/json', body));
      expect(res.statuses, body).toEqual([res.statuses[0]]);
      expect([400, 422], body).toContain(res.statuses[0]);
      expectEnvelope(res.bodies[0], res.statuses[0] === 400 ? 'bad_request' : 'validation_error');
    }
  });

  it('JSON with a __proto__ key is just an unknown field (422), never a prototype change', async () => {
    const res = await raw(
      convert(
        'application/json',
        `{"markdown":"x","template_id":"${BUILTIN_TEMPLATE_ID}","mapping_id":"${BUILTIN_MAPPING_ID}","__proto__":{"admin":true}}`,
      ),
    );
    expect([400, 422]).toContain(res.statuses[0]);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('wrong content types → 415 unsupported_media_type (text/plain, form-encoded, XML, none); bad multipart → 400', async () => {
    const json = JSON.stringify({ markdown: '# x', template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'application/jsonx']) {
      const res = await raw(convert(type, json));
      expect(res.statuses, type).toEqual([415]);
      expectEnvelope(res.bodies[0], 'unsupported_media_type');
    }
    // Multipart is a conversion with its images (docs/images.md): JSON sent under that type is a malformed body.
    const multipart = await raw(convert('multipart/form-data; boundary=x', json));
    expect(multipart.statuses).toEqual([400]);
    expectEnvelope(multipart.bodies[0], 'bad_request');
    const none = await raw(
      `POST /api/v1/convert HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${json.length}\r\nConnection: close\r\n\r\n${json}`,
    );
    expect(none.statuses).toEqual([415]);
  });

  it('a declared 20 GB body → 413 at once, without waiting for it', async () => {
    const started = Date.now();
    const res = await raw(
      `POST /api/v1/convert HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${20 * 1024 ** 3}\r\n\r\n{"markdown":"`,
    );
    expect(res.statuses[0]).toBe(413);
    expectEnvelope(res.bodies[0], 'payload_too_large');
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('a chunked body over the 10 MB limit → 413', async () => {
    const socket = await open();
    const answer = collect(socket, 10_000);
    socket.write(
      `POST /api/v1/convert HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const chunk = 'a'.repeat(1024 * 1024);
    for (let i = 0; i < 12 && !socket.destroyed; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const res = await answer;
    expect(res.statuses[0]).toBe(413);
    expectEnvelope(res.bodies[0], 'payload_too_large');
  });
});

describe('heads', () => {
  it('a 20 KB header → 431 headers_too_large, and the connection is closed', async () => {
    const res = await raw(
      `GET /api/v1/templates HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
    );
    expect(res.statuses).toEqual([431]);
    expectEnvelope(res.bodies[0], 'headers_too_large');
    expect(res.closed).toBe(true);
  });

  it('5000 small headers → 431', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => `X-H${i}: v\r\n`).join('');
    const res = await raw(`GET /api/health HTTP/1.1\r\nHost: ${host}\r\n${many}\r\n`);
    expect(res.statuses).toEqual([431]);
  });

  it('garbage instead of a request line → 400 bad_request', async () => {
    for (const line of [
      'HELLO\r\n\r\n',
      'GET /api/health HTTP/9.9\r\n\r\n',
      `GET /api/health\u0000 HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      `GET /api/health HTTP/1.1\r\nHost: ${host}\r\nBad Header: x\r\n\r\n`,
    ]) {
      const res = await raw(line);
      expect(res.statuses, JSON.stringify(line)).toEqual([400]);
      expectEnvelope(res.bodies[0], 'bad_request');
    }
  });

  it('a path Fastify cannot route (bad percent-encoding, a 300-character id) answers in the envelope, foreign Host or not', async () => {
    const key = 'Authorization: Bearer dw_nope\r\n';
    for (const hostHeader of [host, 'evil.example']) {
      const bad = await raw(
        `GET /api/v1/templates/% HTTP/1.1\r\nHost: ${hostHeader}\r\n${key}Connection: close\r\n\r\n`,
      );
      expect(bad.statuses, hostHeader).toEqual([400]);
      expectEnvelope(bad.bodies[0], 'bad_request');
      const long = await raw(
        `GET /api/v1/conversions/${'a'.repeat(300)} HTTP/1.1\r\nHost: ${hostHeader}\r\n${key}Connection: close\r\n\r\n`,
      );
      expect(long.statuses, hostHeader).toEqual([404]);
      expectEnvelope(long.bodies[0], 'not_found');
    }
  });

  it('HTTP/1.1 without a Host header → 400', async () => {
    const res = await raw('GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(res.statuses).toEqual([400]);
  });
});

describe('request smuggling: refused with 400, the connection closed, the request behind it never processed', () => {
  const cases: [string, (inner: string) => string][] = [
    [
      'Content-Length and Transfer-Encoding together (CL.TE)',
      (inner) =>
        `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${inner}`,
    ],
    [
      'Transfer-Encoding and Content-Length together (TE.CL)',
      (inner) =>
        `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n${inner.length.toString(16)}\r\n${inner}\r\n0\r\n\r\n`,
    ],
    [
      'two different Content-Lengths',
      (inner) =>
        `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\nContent-Length: ${inner.length}\r\n\r\n${inner}`,
    ],
    [
      'two equal Content-Lengths',
      (inner) => `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n${inner}`,
    ],
    [
      'a Content-Length list "0, 0"',
      (inner) => `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0, ${inner.length}\r\n\r\n${inner}`,
    ],
    [
      'obs-fold (a header continued on the next line)',
      (inner) =>
        `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: identity\r\n chunked\r\nContent-Length: 0\r\n\r\n${inner}`,
    ],
    [
      'Transfer-Encoding: chunked, identity',
      (inner) =>
        `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n${inner}`,
    ],
    [
      'Transfer-Encoding: xchunked',
      (inner) => `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n${inner}`,
    ],
    [
      'a space before the colon ("Transfer-Encoding : chunked")',
      (inner) =>
        `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n${inner}`,
    ],
    [
      'a chunk size that is not hex',
      (inner) =>
        `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${inner}\r\n0\r\n\r\n`,
    ],
    [
      'a bare LF in the chunk framing',
      (inner) => `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\n\r\n0\n\n${inner}`,
    ],
    [
      'a negative Content-Length',
      (inner) => `POST /api/health HTTP/1.1\r\nHost: ${host}\r\nContent-Length: -1\r\n\r\n${inner}`,
    ],
  ];
  cases.forEach(([label, build], i) => {
    it(label, async () => {
      const name = `smuggled-${i}`;
      const res = await raw(build(smuggled(name)));
      expect(res.statuses, res.text.slice(0, 300)).toEqual([400]);
      expectEnvelope(res.bodies[0], 'bad_request');
      expect(res.closed).toBe(true);
      expect(await keyNames()).not.toContain(name);
    });
  });

  it('the same smuggled request sent openly on its own does create a key (the probe works)', async () => {
    const res = await raw(smuggled('probe', true));
    expect(res.statuses[0]).toBe(201);
    expect(await keyNames()).toContain('probe');
  });
});

describe('slow clients', () => {
  it(`slowloris: 40 connections dribbling their heads are answered 408 and closed after ~${TIMEOUTS.headersTimeout / 1000} s; others are served meanwhile`, async () => {
    const started = Date.now();
    const closedAt: number[] = [];
    const answers: Promise<RawAnswer>[] = [];
    const timers: NodeJS.Timeout[] = [];
    for (let i = 0; i < 40; i++) {
      const socket = await open();
      const answer = collect(socket, TIMEOUTS.headersTimeout + 8_000).then(
        (a) => (closedAt.push(Date.now() - started), a),
      );
      answers.push(answer);
      const head = `GET /api/health HTTP/1.1\r\nHost: ${host}\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`;
      let at = 0;
      timers.push(setInterval(() => socket.destroyed || at >= head.length - 4 || socket.write(head[at++] ?? ''), 500));
    }

    // Meanwhile, ordinary clients are served at once.
    for (let i = 0; i < 5; i++) {
      const t = Date.now();
      const res = await call(agent, `${server.discovery.url}/api/v1/templates`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      expect(Date.now() - t).toBeLessThan(1_000);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const results = await Promise.all(answers);
    for (const res of results) {
      expect(res.closed, 'the server closed the slow connection').toBe(true);
      expect(res.statuses).toEqual([408]);
      expectEnvelope(res.bodies[0], 'request_timeout');
    }
    expect(Math.max(...closedAt)).toBeLessThan(TIMEOUTS.headersTimeout + 3_000);
    expect(Math.min(...closedAt)).toBeGreaterThanOrEqual(TIMEOUTS.headersTimeout - 1_000);
    for (const t of timers) clearInterval(t);
    console.log(`slowloris: 40 heads closed between ${Math.min(...closedAt)} and ${Math.max(...closedAt)} ms`);
  }, 90_000);
});

describe('other sites: DNS rebinding and cross-site requests → 403 forbidden', () => {
  const get = (headers: string, path = '/api/v1/templates') =>
    raw(`GET ${path} HTTP/1.1\r\n${headers}Authorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);

  it('Host headers of other sites (rebinding), including lookalikes and other ports', async () => {
    for (const h of [
      'evil.example',
      `evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      `[::2]:${port}`,
      `127.0.0.2:${port}`,
      `0.0.0.0:${port}`,
      `127.0.0.1:${port}@evil.example`,
    ]) {
      const res = await get(`Host: ${h}\r\n`);
      expect(res.statuses, h).toEqual([expect.any(Number)]);
      expect([400, 403], h).toContain(res.statuses[0]);
      if (res.statuses[0] === 403) expectEnvelope(res.bodies[0], 'forbidden');
      // /api/health, which needs no key, answers other hosts no better.
      const health = await get(`Host: ${h}\r\n`, '/api/health');
      expect([400, 403], h).toContain(health.statuses[0]);
    }
  });

  it('cross-site Origins (another site, another local port, "null", http on the https port) and Sec-Fetch-Site: cross-site', async () => {
    for (const origin of [
      'https://evil.example',
      `https://127.0.0.1:${port + 1}`,
      'null',
      `http://127.0.0.1:${port}`,
      `https://localhost.evil.example:${port}`,
      'file://',
    ]) {
      const res = await get(`Host: ${host}\r\nOrigin: ${origin}\r\n`);
      expect(res.statuses, origin).toEqual([403]);
      expectEnvelope(res.bodies[0], 'forbidden');
      expect(res.text).not.toMatch(/access-control-allow-origin/i);
    }
    const fetchSite = await get(`Host: ${host}\r\nSec-Fetch-Site: cross-site\r\n`);
    expect(fetchSite.statuses).toEqual([403]);
  });

  it('a CORS preflight from another site gets no CORS grant', async () => {
    const res = await raw(
      `OPTIONS /api/v1/convert HTTP/1.1\r\nHost: ${host}\r\nOrigin: https://evil.example\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: authorization, content-type\r\nConnection: close\r\n\r\n`,
    );
    expect(res.statuses).toEqual([403]);
    expect(res.text).not.toMatch(/access-control-allow/i);
  });

  it("the server's own Host and Origin are served", async () => {
    const res = await get(`Host: ${host}\r\nOrigin: https://${host}\r\n`);
    expect(res.statuses).toEqual([200]);
    const local = await get(`Host: localhost:${port}\r\n`);
    expect(local.statuses).toEqual([200]);
  });
});

// Soak only (`npm run soak`): it waits out the whole request timeout.
// The real 120 s timeout, under SOAK; the same cut-off with a 2 s timeout runs in npm test (slow-body.test.ts).
if (SOAK)
  describe('a slow body (started when the file began)', () => {
    it(
      `is answered 408 request_timeout and closed once the request takes ${TIMEOUTS.requestTimeout / 1000} s`,
      async () => {
        const body = await slowBodyAnswer;
        clearInterval(slowBodyTimer);
        const after = Date.now() - slowBodyStarted;
        expect(body.closed, 'the slow body was cut off').toBe(true);
        expect(body.statuses).toEqual([408]);
        expectEnvelope(body.bodies[0], 'request_timeout');
        expect(after).toBeGreaterThanOrEqual(TIMEOUTS.requestTimeout - 1_000);
        expect(after).toBeLessThan(TIMEOUTS.requestTimeout + 5_000);
        console.log(`slow body cut off after ${after} ms`);
      },
      TIMEOUTS.requestTimeout + 60_000,
    );
  });
