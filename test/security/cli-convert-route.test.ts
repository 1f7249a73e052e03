// The attacker's review of POST /api/cli/convert (the route `docwright convert` uses when a server runs), on a real
// server on a real port over HTTPS: an images folder that is, holds or links to the data folder never puts a file of
// it (admin.token, secret.key, db.json, the certificate's key) into the document; the time limit of every
// conversion holds through it; a body over its limit gets its 413 envelope, declared or chunked.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { call, trustingAgent } from '../helpers/docwright-process.ts';
import { validateDocx } from '../helpers/docx.ts';

let dir: string;
let home: string;
let data: string;
let server: RunningServer;
let agent: Agent;
const saved = process.env.DOCWRIGHT_CONVERT_TIMEOUT_MS;

const url = (path: string) => `${server.discovery.url}${path}`;
const admin = () => ({ 'x-docwright-admin': server.adminToken });
const convert = (body: Record<string, unknown>) =>
  call(agent, url('/api/cli/convert'), { method: 'POST', headers: admin(), body: { created: 0, ...body } });

/** Every regular file of the data folder, by its path inside it. */
function dataFiles(folder = data, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...dataFiles(join(folder, entry.name), path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-cli-route-attack-'));
  home = join(dir, 'home');
  data = join(home, '.local', 'share', 'docwright');
  mkdirSync(data, { recursive: true, mode: 0o700 });
  // A short time limit, so that the pathological document below meets it quickly (the pool reads it at its start).
  process.env.DOCWRIGHT_CONVERT_TIMEOUT_MS = '3000';
  server = await startServer({ dataDir: data, port: 0 });
  agent = trustingAgent(server.discovery.cert_path ?? '');
  // Something stored: a conversion (db.json, outputs) through the API.
  const done = await convert({ markdown: '# Warm\n' });
  expect(done.status).toBe(200);
  symlinkSync(data, join(dir, 'link-to-data'));
});

afterAll(async () => {
  if (saved === undefined) delete process.env.DOCWRIGHT_CONVERT_TIMEOUT_MS;
  else process.env.DOCWRIGHT_CONVERT_TIMEOUT_MS = saved;
  await agent?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the images folder and the data folder', () => {
  it('embeds no file of the data folder, named from it, from a folder above it, or through a link to it', async () => {
    const files = dataFiles();
    expect(files).toEqual(expect.arrayContaining(['admin.token', 'db.json', 'tls/localhost-key.pem']));
    const secrets = [server.adminToken, readFileSync(join(data, 'tls', 'localhost-key.pem'), 'utf8').split('\n')[1]];
    for (const [folder, prefix] of [
      [data, ''],
      [home, '.local/share/docwright/'],
      [join(dir, 'link-to-data'), ''],
    ] as const) {
      const markdown = files.map((file) => `![x](${prefix}${file})\n\n`).join('');
      const res = await convert({ markdown, folder });
      expect(res.status, res.bytes.toString()).toBe(200);
      const answer = res.json() as { docx: string; warnings: string[] };
      const docx = new Uint8Array(Buffer.from(answer.docx, 'base64'));
      const { ok, report } = await validateDocx(docx);
      expect(ok, report).toBe(true);
      const text = Object.values(unzipSync(docx))
        .map((bytes) => strFromU8(bytes, true))
        .join('\n');
      for (const secret of secrets) expect(text.includes(secret ?? 'none'), folder).toBe(false);
      // Nothing became a picture: every reference got a warning.
      expect(Object.keys(unzipSync(docx)).filter((name) => name.startsWith('word/media/'))).toEqual([]);
      expect(answer.warnings.length).toBeGreaterThanOrEqual(files.length);
    }
  }, 120_000);
});

describe('bad input', () => {
  it('refuses a creation time past what a date can hold with a clear 422 (was 500 internal_error)', async () => {
    for (const created of [8.64e15 + 1, Number.MAX_SAFE_INTEGER]) {
      const res = await convert({ markdown: '# A\n', created });
      expect(res.status, res.bytes.toString()).toBe(422);
      expect(res.json()).toMatchObject({ error: { code: 'validation_error' } });
    }
  });
});

describe('limits through the route', () => {
  it("ends a pathological document at the server's time limit with document_too_complex", async () => {
    // Unmatched emphasis closers in one paragraph: quadratic in micromark (docs/security.md, "Pathological markdown").
    const started = Date.now();
    const res = await convert({ markdown: 'a*'.repeat(60_000) });
    const took = Date.now() - started;
    expect(res.status, res.bytes.toString()).toBe(422);
    expect(res.json()).toMatchObject({ error: { code: 'document_too_complex', limit: 'time' } });
    expect(took).toBeLessThan(20_000);
    const health = await call(agent, url('/api/health'));
    expect(health.status).toBe(200);
  }, 60_000);
});

/** Sends SIZE bytes of a JSON body to the route, declared or chunked, and reads the answer. */
function oversize(size: number, chunked: boolean): Promise<{ status: number; body: string; error?: string }> {
  const head = Buffer.from('{"created":0,"markdown":"');
  const tail = Buffer.from('"}');
  const total = head.length + size + tail.length;
  return new Promise((done) => {
    const req = httpsRequest(
      url('/api/cli/convert'),
      {
        method: 'POST',
        ca: readFileSync(server.discovery.cert_path ?? '', 'utf8'),
        headers: {
          ...admin(),
          'content-type': 'application/json',
          ...(chunked ? {} : { 'content-length': String(total) }),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => done({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', (error) => done({ status: 0, body: '', error: error.message }));
    const chunk = Buffer.alloc(256 * 1024, 'a');
    let sent = 0;
    req.write(head);
    const pump = (): void => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

describe('bodies over the limit', () => {
  for (const chunked of [false, true])
    it(`answers 413 with its envelope (${chunked ? 'chunked' : 'declared length'})`, async () => {
      const outcome = await oversize(120 * 1024 * 1024, chunked);
      expect(outcome.status, outcome.error ?? outcome.body).toBe(413);
      expect(JSON.parse(outcome.body)).toMatchObject({ error: { code: 'payload_too_large' } });
    }, 60_000);
});
