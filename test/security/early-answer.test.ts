// A request answered before its body has all arrived — refused (401, 403, 404…) or a multipart body past its limit
// however it is built — gets its answer with `Connection: close` and the bounded lingering close of a 413
// (docs/security.md, "Bodies over the limit"): found by the attacker's review, such a connection was read from for
// 120 s (or 6.6 GB in 10 s) by a client without a key. A real server on a real port over HTTPS, raw TLS sockets
// that keep sending after the answer.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM_ALLOWANCE, LINGER } from '../../server/http/body-limits.ts';
import { CONVERT_UPLOAD } from '../../server/http/convert-upload.ts';
import { TEMPLATE_LIMIT } from '../../server/limits.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, trustingAgent } from '../helpers/docwright-process.ts';

const MB = 1024 * 1024;
const BOUNDARY = 'dw-early-boundary';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
/** How long a test client keeps sending before it gives up (the server's own timeout is 120 s). */
const GIVE_UP_MS = 12_000;

let dir: string;
let server: RunningServer;
let ca: string;
let port: number;
let key: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-early-'));
  server = await startServer({ dataDir: dir, port: 0 });
  const certPath = server.discovery.cert_path ?? '';
  ca = readFileSync(certPath, 'utf8');
  port = server.discovery.port;
  const agent = trustingAgent(certPath);
  const created = await call(agent, `${server.discovery.url}/api/settings/api-keys`, {
    method: 'POST',
    headers: { 'x-docwright-admin': server.adminToken },
    body: { name: 'early' },
  });
  await agent.close();
  key = (created.json() as { key: string }).key;
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Endless {
  answer: string;
  /** Bytes the client had written when the answer came, and when the connection closed. */
  sentAtAnswer: number;
  sentAtClose: number;
  /** Milliseconds from the answer to the close; -1 while still open when the client gave up. */
  closedAfter: number;
}

interface Sender {
  method?: string;
  path: string;
  headers: Record<string, string>;
  /** Sent first, as one chunk. */
  prefix?: string;
  /** What every further chunk holds (`a` when not given). */
  fill?: string;
  chunk: number;
  everyMs: number;
}

/** A chunked body that never ends: `prefix`, then `chunk` bytes as fast as the server takes them or every `everyMs`. */
async function endless(s: Sender): Promise<Endless> {
  // Half-open: the server's end of the connection does not end this side; it keeps sending. (tls.connect takes
  // allowHalfOpen, which its types leave out.)
  const options: ConnectionOptions & { allowHalfOpen: boolean } = {
    host: '127.0.0.1',
    port,
    ca,
    servername: 'localhost',
    allowHalfOpen: true,
  };
  const socket = connect(options);
  await new Promise((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  let answer = '';
  let sent = 0;
  let sentAtAnswer = -1;
  let answeredAt = 0;
  socket.on('data', (d: Buffer) => {
    if (sentAtAnswer < 0) {
      sentAtAnswer = sent;
      answeredAt = Date.now();
    }
    answer += d.toString('latin1');
  });
  socket.on('error', () => undefined);
  const closed = new Promise((resolve) => socket.once('close', resolve));
  let open = true;
  void closed.then(() => (open = false));
  const headers = Object.entries(s.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(
    `${s.method ?? 'POST'} ${s.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}Transfer-Encoding: chunked\r\n\r\n`,
  );
  const frameOf = (data: Buffer) =>
    Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
  if (s.prefix) {
    socket.write(frameOf(Buffer.from(s.prefix)));
    sent += s.prefix.length;
  }
  const frame = frameOf(Buffer.alloc(s.chunk, s.fill ?? 'a'));
  const giveUp = Date.now() + GIVE_UP_MS;
  while (open && Date.now() < giveUp) {
    sent += s.chunk;
    const flushed = socket.write(frame);
    if (!flushed)
      await Promise.race([new Promise((r) => socket.once('drain', r)), closed, new Promise((r) => setTimeout(r, 200))]);
    if (s.everyMs) await new Promise((r) => setTimeout(r, s.everyMs));
  }
  const stillOpen = open;
  socket.destroy();
  return { answer, sentAtAnswer, sentAtClose: sent, closedAfter: stillOpen ? -1 : Date.now() - answeredAt };
}

function report(name: string, r: Endless): void {
  console.log(
    `${name}: ${r.answer.slice(0, 12)} after ${(r.sentAtAnswer / MB).toFixed(1)} MB sent; ${r.closedAfter < 0 ? `still open after ${GIVE_UP_MS} ms` : `closed ${r.closedAfter} ms`} and ${((r.sentAtClose - r.sentAtAnswer) / MB).toFixed(1)} MB later`,
  );
}

/** The answer (status and envelope code), `Connection: close`, and the connection closed within LINGER's bounds. */
function expectBounded(r: Endless, status: number, code: string, fast: boolean): void {
  expect(r.answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(r.answer).toMatch(/\r\nconnection: close\r\n/i);
  expect(JSON.parse(r.answer.slice(r.answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code } });
  expect(r.closedAfter, 'the connection stayed open').toBeGreaterThanOrEqual(0);
  expect(r.closedAfter).toBeLessThan(LINGER.ms + 2_000);
  // What the kernels buffer on both sides (a few MB) comes on top of what the server read.
  if (fast) expect(r.sentAtClose - r.sentAtAnswer).toBeLessThan(LINGER.bytes + 16 * MB);
}

const json = { 'Content-Type': 'application/json' };
const auth = () => ({ Authorization: `Bearer ${key}` });

const REFUSED: { name: string; sender: () => Omit<Sender, 'chunk' | 'everyMs'>; status: number; code: string }[] = [
  {
    name: 'POST /api/v1/convert without a key (401)',
    sender: () => ({ path: '/api/v1/convert', headers: json }),
    status: 401,
    code: 'missing_api_key',
  },
  {
    name: "PUT a built-in template's file (403)",
    sender: () => ({
      method: 'PUT',
      path: `/api/v1/templates/${BUILTIN_TEMPLATE_ID}/file`,
      headers: { ...auth(), 'Content-Type': MULTIPART },
      prefix: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="t.docx"\r\n\r\n`,
    }),
    status: 403,
    code: 'forbidden',
  },
  {
    name: 'PUT the file of an unknown template (404)',
    sender: () => ({
      method: 'PUT',
      path: '/api/v1/templates/no-such-template/file',
      headers: { ...auth(), 'Content-Type': MULTIPART },
      prefix: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="t.docx"\r\n\r\n`,
    }),
    status: 404,
    code: 'not_found',
  },
];

describe('an error answered before the body has ended', () => {
  describe.each(REFUSED)('$name', ({ name, sender, status, code }) => {
    it(`a client sending as fast as it can is cut off once about ${LINGER.bytes / MB} MB more were read`, async () => {
      const r = await endless({ ...sender(), chunk: MB, everyMs: 0 });
      report(`${name}, fast`, r);
      expectBounded(r, status, code, true);
    });

    it(`a slow client (64 KB every 20 ms) is cut off ${LINGER.ms / 1000} s after the answer`, async () => {
      const r = await endless({ ...sender(), chunk: 64 * 1024, everyMs: 20 });
      report(`${name}, slow`, r);
      expectBounded(r, status, code, false);
    });
  });
});

const field = (name: string, value: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const CONVERT_FIELDS = `${field('template_id', BUILTIN_TEMPLATE_ID)}${field('mapping_id', BUILTIN_MAPPING_ID)}`;

const ENDLESS_FORMS: { name: string; path: string; prefix: string; fill?: string }[] = [
  { name: 'a preamble that never reaches the first boundary, on /api/v1/convert', path: '/api/v1/convert', prefix: '' },
  {
    name: 'a preamble that never reaches the first boundary, on /api/v1/templates',
    path: '/api/v1/templates',
    prefix: '',
  },
  {
    name: 'a whole form followed by an epilogue that never ends',
    path: '/api/v1/convert',
    prefix: `${CONVERT_FIELDS}${field('markdown', '# Hello')}--${BOUNDARY}--\r\n`,
  },
  {
    name: 'a markdown field that never ends (past fieldSize)',
    path: '/api/v1/convert',
    prefix: `${CONVERT_FIELDS}--${BOUNDARY}\r\nContent-Disposition: form-data; name="markdown"\r\n\r\n`,
  },
];

describe('a multipart body without a length that never ends', () => {
  it.each(ENDLESS_FORMS)('$name: 413 once past the limit, then the bounded close', async ({ name, path, prefix }) => {
    const r = await endless({
      path,
      headers: { ...auth(), 'Content-Type': MULTIPART },
      prefix,
      chunk: MB,
      everyMs: 0,
    });
    report(name, r);
    expectBounded(r, 413, 'payload_too_large', true);
    // Refused once past the route's limit (its files' and the form's allowance), not much later.
    const limit = path === '/api/v1/templates' ? TEMPLATE_LIMIT + FORM_ALLOWANCE : CONVERT_UPLOAD.bytes;
    expect(r.sentAtAnswer).toBeGreaterThan(limit - 2 * MB);
    expect(r.sentAtAnswer).toBeLessThan(limit + 16 * MB);
  });
});
