// A body over the limit gets its 413 envelope, never a connection reset (docs/security.md, "Bodies over the limit"),
// against a real server on a real port over HTTPS: with curl (where installed) and with Node's https client writing
// its body in chunks and carrying on after the answer, each 10 times with `Expect: 100-continue` and 10 times
// without, for a JSON conversion (declared length and chunked), a multipart conversion and a template upload. A
// client that keeps sending for ever is cut off after the bound (time or bytes), with its answer read.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGER } from '../../server/http/body-limits.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, trustingAgent } from '../helpers/docwright-process.ts';

const MB = 1024 * 1024;
const ROUNDS = 10;
const BOUNDARY = 'dw-oversize-boundary';
const { ms: LINGER_MS, bytes: LINGER_BYTES } = LINGER;

let dir: string;
let server: RunningServer;
let ca: string;
let certPath: string;
let port: number;
let key: string;
const curl = await new Promise<boolean>((resolve) => {
  execFile('curl', ['--version'], (error) => resolve(!error));
});

interface Kind {
  name: string;
  path: string;
  contentType: string;
  head: string;
  tail: string;
  /** Bytes between head and tail. */
  size: number;
  /** Sent chunked (no Content-Length). */
  chunked?: boolean;
  /** The 413's message: which limit refused it. */
  message: RegExp;
}

const part = (name: string, filename: string, type: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;
const field = (name: string, value: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

const KINDS: Kind[] = [
  // Declared 60 MB of JSON: refused by its Content-Length, before any of it is read.
  {
    name: 'JSON conversion, 60 MB',
    path: '/api/v1/convert',
    contentType: 'application/json',
    head: `{"template_id":"${BUILTIN_TEMPLATE_ID}","mapping_id":"${BUILTIN_MAPPING_ID}","markdown":"`,
    tail: '"}',
    size: 60 * MB,
    message: /^The request body \(60 MB\) is larger than the 10 MB of JSON/,
  },
  // No length given: refused when the 10 MB limit is crossed.
  {
    name: 'chunked JSON conversion, 30 MB',
    path: '/api/v1/convert',
    contentType: 'application/json',
    head: '{"markdown":"',
    tail: '"}',
    size: 30 * MB,
    chunked: true,
    message: /larger than the limit \(10 MB of JSON/,
  },
  // 30 MB of markdown in a multipart conversion: refused when its 10 MiB limit is crossed.
  {
    name: 'multipart conversion, 30 MB of markdown',
    path: '/api/v1/convert',
    contentType: MULTIPART,
    head: `${field('template_id', BUILTIN_TEMPLATE_ID)}${part('markdown', 'big.md', 'text/markdown')}`,
    tail: `\r\n--${BOUNDARY}--\r\n`,
    size: 30 * MB,
    message: /^markdown is larger than 10 MiB/,
  },
  // A 60 MB template: over the 50 MB a template may have.
  {
    name: 'template upload, 60 MB',
    path: '/api/v1/templates',
    contentType: MULTIPART,
    head: part('file', 'big.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
    tail: `\r\n--${BOUNDARY}--\r\n`,
    size: 60 * MB,
    message: /^The request body \(60 MB\) is larger than the 54 MB a template upload/,
  },
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-oversize-'));
  server = await startServer({ dataDir: dir, port: 0 });
  certPath = server.discovery.cert_path ?? '';
  ca = readFileSync(certPath, 'utf8');
  port = server.discovery.port;
  const agent = trustingAgent(certPath);
  const created = await call(agent, `${server.discovery.url}/api/settings/api-keys`, {
    method: 'POST',
    headers: { 'x-docwright-admin': server.adminToken },
    body: { name: 'oversize' },
  });
  await agent.close();
  key = (created.json() as { key: string }).key;
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  /** 0 when no answer arrived whole. */
  status: number;
  body: string;
  /** The client's error, if its request failed before the answer was read. */
  error?: string;
}

/** What every refused body must get: 413 with the envelope. */
function expectEnvelope(outcome: Outcome, kind: Kind): void {
  expect(outcome.status, `${kind.name}: ${outcome.error ?? outcome.body}`).toBe(413);
  expect(JSON.parse(outcome.body), kind.name).toMatchObject({
    error: { code: 'payload_too_large', message: expect.stringMatching(kind.message) },
  });
}

const CHUNK = Buffer.alloc(256 * 1024, 'a');

/**
 * Node's https client, as a script would use it: the body written in 256 KB chunks, minding back-pressure, and
 * written to its end even after the answer came (nothing tells a stream it may stop). With `expect`, the body
 * waits for 100 Continue and is never sent if a final answer comes first.
 */
function nodeClient(kind: Kind, expectContinue: boolean): Promise<Outcome> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${key}`,
    'content-type': kind.contentType,
  };
  if (!kind.chunked) headers['content-length'] = String(kind.head.length + kind.size + kind.tail.length);
  if (expectContinue) headers.expect = '100-continue';
  return new Promise((resolve) => {
    let status = 0;
    let body = '';
    let error: string | undefined;
    const req = httpsRequest({
      host: '127.0.0.1',
      port,
      path: kind.path,
      method: 'POST',
      ca,
      servername: 'localhost',
      agent: false,
      headers,
    });
    const timer = setTimeout(() => req.destroy(new Error('no answer within 60 s')), 60_000);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        status = res.statusCode ?? 0;
        body = Buffer.concat(chunks).toString('utf8');
      });
      res.on('error', () => undefined);
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    req.on('close', () => {
      clearTimeout(timer);
      // A little later: the answer's end may still be on its way through the client's stream.
      setImmediate(() => resolve({ status, body, ...(error && !status ? { error } : {}) }));
    });
    const drained = () => new Promise((r) => req.once('drain', r).once('close', r));
    const send = async () => {
      req.write(kind.head);
      let sent = 0;
      while (sent < kind.size && !req.destroyed) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) await drained();
      }
      if (!req.destroyed) req.end(kind.tail);
    };
    if (expectContinue) {
      req.once('continue', () => void send());
      req.flushHeaders();
    } else {
      void send();
    }
  });
}

/** The same bodies as files for curl. */
function curlArgs(kind: Kind, expectContinue: boolean): string[] {
  const file = join(dir, `${kind.name.replace(/\W+/g, '-')}.body`);
  if (!existsSync(file))
    writeFileSync(file, Buffer.concat([Buffer.from(kind.head), Buffer.alloc(kind.size, 'a'), Buffer.from(kind.tail)]));
  return [
    '-sS',
    '--cacert',
    certPath,
    '-H',
    `Authorization: Bearer ${key}`,
    '-H',
    `Content-Type: ${kind.contentType}`,
    '-H',
    expectContinue ? 'Expect: 100-continue' : 'Expect:',
    ...(kind.chunked ? ['-H', 'Transfer-Encoding: chunked'] : []),
    '--data-binary',
    `@${file}`,
    '-o',
    '-',
    '-w',
    '\n%{http_code}',
    `https://127.0.0.1:${port}${kind.path}`,
  ];
}

function curlClient(kind: Kind, expectContinue: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile('curl', curlArgs(kind, expectContinue), { maxBuffer: MB }, (error, stdout, stderr) => {
      const at = stdout.lastIndexOf('\n');
      const status = Number(stdout.slice(at + 1));
      resolve({
        status: Number.isFinite(status) ? status : 0,
        body: stdout.slice(0, at),
        ...(error ? { error: stderr.trim() || error.message } : {}),
      });
    });
  });
}

describe.each(KINDS)('$name', (kind) => {
  for (const expectContinue of [true, false]) {
    const how = expectContinue ? 'with Expect: 100-continue' : 'without Expect';
    it(`Node's https client, ${ROUNDS} times ${how}: every one gets the 413 envelope`, async () => {
      const outcomes: Outcome[] = [];
      for (let i = 0; i < ROUNDS; i++) outcomes.push(await nodeClient(kind, expectContinue));
      const lost = outcomes.filter((o) => o.status !== 413);
      expect(
        lost,
        `${lost.length} of ${ROUNDS} got no 413: ${lost.map((o) => o.error ?? o.status).join(', ')}`,
      ).toEqual([]);
      for (const o of outcomes) expectEnvelope(o, kind);
    });

    it.skipIf(!curl)(`curl, ${ROUNDS} times ${how}: every one gets the 413 envelope`, async () => {
      const outcomes: Outcome[] = [];
      for (let i = 0; i < ROUNDS; i++) outcomes.push(await curlClient(kind, expectContinue));
      const lost = outcomes.filter((o) => o.status !== 413);
      expect(
        lost,
        `${lost.length} of ${ROUNDS} got no 413: ${lost.map((o) => o.error ?? o.status).join(', ')}`,
      ).toEqual([]);
      for (const o of outcomes) expectEnvelope(o, kind);
    });
  }
});

interface Endless {
  answer: string;
  /** Bytes the client had written when the answer came, and when the connection closed. */
  sentAtAnswer: number;
  sentAtClose: number;
  /** Milliseconds from the answer to the close. */
  closedAfter: number;
}

/** A chunked JSON body that never ends, written as fast as the server takes it or one `chunk` per `everyMs`. */
async function endless(chunk: number, everyMs: number): Promise<Endless> {
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
  socket.write(
    `POST /api/v1/convert HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
  );
  const data = Buffer.alloc(chunk, 'a');
  const frame = Buffer.concat([Buffer.from(`${chunk.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
  const giveUp = Date.now() + 60_000;
  while (open && Date.now() < giveUp) {
    sent += chunk;
    const flushed = socket.write(frame);
    if (!flushed) await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
    if (everyMs) await new Promise((r) => setTimeout(r, everyMs));
  }
  socket.destroy();
  return { answer, sentAtAnswer, sentAtClose: sent, closedAfter: Date.now() - answeredAt };
}

function expectAnswered(result: Endless): void {
  console.log(
    `endless body: 413 after ${(result.sentAtAnswer / MB).toFixed(1)} MB sent; closed ${result.closedAfter} ms and ${((result.sentAtClose - result.sentAtAnswer) / MB).toFixed(1)} MB later`,
  );
  expect(result.answer).toMatch(/^HTTP\/1\.1 413 /);
  const body = result.answer.slice(result.answer.indexOf('\r\n\r\n') + 4);
  expect(JSON.parse(body)).toMatchObject({ error: { code: 'payload_too_large' } });
}

describe('a client that keeps sending for ever', () => {
  it(`as fast as it can: the connection is closed once about ${LINGER_BYTES / MB} MB more were read`, async () => {
    const result = await endless(MB, 0);
    expectAnswered(result);
    expect(result.sentAtAnswer).toBeGreaterThan(10 * MB);
    // What the kernels buffer on both sides (a few MB) comes on top of what the server read.
    expect(result.sentAtClose - result.sentAtAnswer).toBeLessThan(LINGER_BYTES + 16 * MB);
    expect(result.closedAfter).toBeLessThan(LINGER_MS + 2_000);
  });

  it(`slowly (64 KB every 20 ms): the connection is closed ${LINGER_MS / 1000} s after the answer`, async () => {
    const result = await endless(64 * 1024, 20);
    expectAnswered(result);
    expect(result.closedAfter).toBeGreaterThanOrEqual(LINGER_MS - 100);
    expect(result.closedAfter).toBeLessThan(LINGER_MS + 2_000);
  });
});

/** Sends a request head with `Expect: 100-continue` and returns what the server sends first (within 5 s). */
async function firstAnswer(head: string): Promise<{ text: string; socket: ReturnType<typeof connect> }> {
  const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' });
  await new Promise((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  const text = await new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve(''), 5_000);
    socket.once('data', (d: Buffer) => {
      clearTimeout(timer);
      resolve(d.toString('latin1'));
    });
    socket.write(head);
  });
  return { text, socket };
}

describe('Expect: 100-continue', () => {
  const head = (length: number, auth = true) =>
    `POST /api/v1/convert HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${auth ? `Authorization: Bearer ${key}\r\n` : ''}Content-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;

  it('a declared length over the limit: 413 at once, never 100 Continue', async () => {
    const { text, socket } = await firstAnswer(head(60 * MB));
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({
      error: { code: 'payload_too_large', message: expect.stringMatching(/60 MB.*10 MB/) },
    });
  });

  it('without a key: 401 at once, never 100 Continue (the body is asked for only once the request may send it)', async () => {
    const { text, socket } = await firstAnswer(head(1024, false));
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('within the limit: 100 Continue, then the conversion', async () => {
    const body = JSON.stringify({
      markdown: '# Hello',
      template_id: BUILTIN_TEMPLATE_ID,
      mapping_id: BUILTIN_MAPPING_ID,
      response_format: 'json',
    });
    const { text, socket } = await firstAnswer(head(Buffer.byteLength(body)));
    expect(text).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    const answer = new Promise<string>((resolve) => {
      let all = '';
      socket.on('data', (d: Buffer) => {
        all += d.toString('latin1');
        if (/\r\n\r\n\{.*\}$/s.test(all)) resolve(all);
      });
    });
    socket.write(body);
    const response = await answer;
    socket.destroy();
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 'completed' });
  });
});

describe('behind a refused body', () => {
  it('a pipelined request on the same connection is never served', async () => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' });
    await new Promise((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    socket.on('error', () => undefined);
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const body = `{"markdown":"${'a'.repeat(11 * MB)}"}`;
    const create = JSON.stringify({ name: 'pipelined' });
    socket.write(
      `POST /api/v1/convert HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        `POST /api/settings/api-keys HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Docwright-Admin: ${server.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${create.length}\r\n\r\n${create}`,
    );
    await Promise.race([closed, new Promise((r) => setTimeout(r, LINGER_MS + 3_000))]);
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect([...answer.matchAll(/HTTP\/1\.1 \d{3}/g)]).toHaveLength(1);
    const agent = trustingAgent(certPath);
    const keys = await call(agent, `${server.discovery.url}/api/settings/api-keys`, {
      headers: { 'x-docwright-admin': server.adminToken },
    });
    await agent.close();
    expect((keys.json() as { name: string }[]).map((k) => k.name)).not.toContain('pipelined');
  });
});
