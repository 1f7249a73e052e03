// What the caps do not foresee, the worker's bounds do: a template under every cap whose document part is enormous
// (600,000 paragraphs) is read in a conversion worker with a small heap and time limit, refused with a 422 naming
// the limit, and /api/health keeps answering within 200 ms meanwhile (over a real socket).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { fetch, FormData, type Agent } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultTemplate } from '../../server/convert/index.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { call, trustingAgent } from '../helpers/docwright-process.ts';

let dir: string;
let server: RunningServer;
let agent: Agent;
let auth: Record<string, string>;

beforeAll(async () => {
  // The pool reads its limits from the environment when it is made (at the first upload).
  process.env.DOCWRIGHT_CONVERT_MEMORY_MB = '64';
  process.env.DOCWRIGHT_CONVERT_TIMEOUT_MS = '5000';
  dir = mkdtempSync(join(tmpdir(), 'dw-security-bounds-'));
  server = await startServer({ dataDir: dir, port: 0 });
  agent = trustingAgent(server.discovery.cert_path ?? '');
  const key = await call(agent, `${server.discovery.url}/api/settings/api-keys`, {
    method: 'POST',
    headers: { 'x-docwright-admin': server.adminToken },
    body: { name: 'bounds' },
  });
  auth = { authorization: `Bearer ${(key.json() as { key: string }).key}` };
});

afterAll(async () => {
  delete process.env.DOCWRIGHT_CONVERT_MEMORY_MB;
  delete process.env.DOCWRIGHT_CONVERT_TIMEOUT_MS;
  await agent?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function hugeDocument(paragraphs: number): Uint8Array {
  const parts = unzipSync(defaultTemplate());
  const doc = strFromU8(parts['word/document.xml'] ?? new Uint8Array());
  const body: string[] = [];
  for (let i = 0; i < paragraphs; i++)
    body.push(`<w:p><w:r><w:t>Paragraph ${i} ${(i * 2654435761) % 1000003}</w:t></w:r></w:p>`);
  const at = doc.lastIndexOf('<w:sectPr');
  parts['word/document.xml'] = strToU8(`${doc.slice(0, at)}${body.join('')}${doc.slice(at)}`);
  return zipSync(parts);
}

it("a template under the caps that exhausts a worker is refused by the worker's limit, and the server stays responsive", async () => {
  const template = hugeDocument(600_000);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(template)]), 'huge.docx');
  const latencies: number[] = [];
  let uploading = true;
  const healthAgent = trustingAgent(server.discovery.cert_path ?? '', 1);
  // Connected (TLS handshake done) before the upload starts: what is measured is the event loop, not the handshake.
  expect((await call(healthAgent, `${server.discovery.url}/api/health`)).status).toBe(200);
  const poll = (async () => {
    while (uploading) {
      const started = performance.now();
      const res = await call(healthAgent, `${server.discovery.url}/api/health`);
      expect(res.status).toBe(200);
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = performance.now();
  const res = await fetch(`${server.discovery.url}/api/v1/templates`, {
    method: 'POST',
    body: form,
    headers: auth,
    dispatcher: agent,
  });
  const body = (await res.json()) as { error?: { code: string; message: string } };
  const elapsed = performance.now() - started;
  uploading = false;
  await poll;
  await healthAgent.close();
  console.log(
    `600,000 paragraphs (${Math.round(template.length / 1024)} KB zipped): ${res.status} in ${Math.round(elapsed)} ms (${String(body.error?.message)}); health ${latencies.length} polls, max ${Math.round(Math.max(...latencies))} ms`,
  );
  expect(res.status, JSON.stringify(body)).toBe(422);
  expect(body.error?.message).toMatch(
    /^file: The template was refused: reading it (needed more than 64 MB of memory|took longer than 5 s)/,
  );
  expect(Math.max(...latencies)).toBeLessThan(200);
  // The pool replaced the worker: a real template still uploads.
  const again = new FormData();
  again.append('file', new Blob([new Uint8Array(defaultTemplate())]), 'ok.docx');
  const ok = await fetch(`${server.discovery.url}/api/v1/templates`, {
    method: 'POST',
    body: again,
    headers: auth,
    dispatcher: agent,
  });
  expect(ok.status).toBe(201);
});
