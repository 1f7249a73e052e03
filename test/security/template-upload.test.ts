// Templates are untrusted input, over a real server on a real port: an upload with external relationships is stored
// clean and says what was removed; a template stored before sanitising existed is sanitised when a conversion reads
// it; a 400,000-style template is refused by a named limit within bounded time and memory while /api/health keeps
// answering; packages with a broken root and hidden macros are refused with 422.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch, FormData, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTemplate } from '../../server/convert/index.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { call, trustingAgent } from '../helpers/docwright-process.ts';
import {
  cssFindings,
  EVIL,
  externalFindings,
  hostileTemplate,
  manyNumberings,
  manyStyles,
  partText,
  withParts,
} from '../helpers/hostile-template.ts';

let dir: string;
let server: RunningServer;
let agent: Agent;
let auth: Record<string, string>;

interface TemplateBody {
  id?: string;
  version?: number;
  warnings?: string[];
  error?: { code: string; message: string };
}

async function upload(
  bytes: Uint8Array,
  method: 'POST' | 'PUT' = 'POST',
  id = '',
): Promise<{ status: number; body: TemplateBody }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), 'template.docx');
  const url =
    method === 'PUT'
      ? `${server.discovery.url}/api/v1/templates/${id}/file`
      : `${server.discovery.url}/api/v1/templates`;
  const res = await fetch(url, { method, body: form, headers: auth, dispatcher: agent });
  return { status: res.status, body: (await res.json()) as TemplateBody };
}

async function convertWith(templateId: string): Promise<{ docx: Uint8Array; warnings: string[] }> {
  const mapping = await call(agent, `${server.discovery.url}/api/v1/mappings`, {
    method: 'POST',
    headers: auth,
    body: { name: `m-${randomUUID()}`, template_id: templateId, rules: { paragraph: 'Normal' } },
  });
  expect(mapping.status, mapping.bytes.toString()).toBe(201);
  const mappingId = (mapping.json() as { id: string }).id;
  const res = await call(agent, `${server.discovery.url}/api/v1/convert`, {
    method: 'POST',
    headers: auth,
    body: { markdown: '# Title\n\nText.\n', template_id: templateId, mapping_id: mappingId },
  });
  expect(res.status, res.bytes.toString()).toBe(200);
  const header = res.headers['x-warnings'];
  return {
    docx: new Uint8Array(res.bytes),
    warnings: typeof header === 'string' ? (JSON.parse(header) as string[]) : [],
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-security-templates-'));
  server = await startServer({ dataDir: dir, port: 0 });
  agent = trustingAgent(server.discovery.cert_path ?? '');
  const key = await call(agent, `${server.discovery.url}/api/settings/api-keys`, {
    method: 'POST',
    headers: { 'x-docwright-admin': server.adminToken },
    body: { name: 'security' },
  });
  auth = { authorization: `Bearer ${(key.json() as { key: string }).key}` };
});

afterAll(async () => {
  await agent?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('external relationships (T1221 attachedTemplate, OLE links, sub-documents, linked images)', () => {
  it('an upload is stored sanitised, its warnings in the upload response, the record and the download; outputs are clean', async () => {
    const res = await upload(hostileTemplate(defaultTemplate()));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const warnings = (res.body.warnings ?? []).join('\n');
    expect(warnings).toContain(`template_external_removed: attachedTemplate → ${EVIL}/t1221.dotm`);
    expect(warnings).toContain('template_style_renamed');
    expect(warnings).toContain('template_font_renamed');
    const id = res.body.id ?? '';
    const record = await call(agent, `${server.discovery.url}/api/v1/templates/${id}`, { headers: auth });
    expect((record.json() as TemplateBody).warnings).toEqual(res.body.warnings);
    const stored = await call(agent, `${server.discovery.url}/api/v1/templates/${id}/download`, { headers: auth });
    expect(externalFindings(new Uint8Array(stored.bytes))).toEqual([]);
    expect(cssFindings(new Uint8Array(stored.bytes))).toEqual([]);
    const output = await convertWith(id);
    expect(externalFindings(output.docx)).toEqual([]);
    expect(partText(output.docx, 'word/settings.xml')).not.toContain('attachedTemplate');
    // Stored clean: a conversion has nothing more to remove.
    expect(output.warnings.filter((w) => w.startsWith('template_'))).toEqual([]);
  });

  it('replacing a file (PUT …/file) sanitises it the same way', async () => {
    const first = await upload(defaultTemplate());
    expect(first.status).toBe(201);
    expect(first.body.warnings).toEqual([]);
    const res = await upload(hostileTemplate(defaultTemplate()), 'PUT', first.body.id ?? '');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((res.body.warnings ?? []).join('\n')).toContain('attachedTemplate');
  });

  it('a template stored before sanitising existed is sanitised when a conversion reads it, and the output says so', async () => {
    const at = new Date().toISOString();
    const legacy = await server.store.addTemplate(
      { id: randomUUID(), name: 'stored long ago', description: '', version: 1, created_at: at, updated_at: at },
      hostileTemplate(defaultTemplate()),
    );
    const output = await convertWith(legacy.id);
    expect(externalFindings(output.docx)).toEqual([]);
    expect(cssFindings(output.docx)).toEqual([]);
    expect(output.warnings.join('\n')).toContain('template_external_removed: attachedTemplate');
    // Its styles are listed from the sanitised template too.
    const styles = await call(agent, `${server.discovery.url}/api/v1/templates/${legacy.id}/styles`, { headers: auth });
    expect(styles.status).toBe(200);
    expect((styles.json() as Array<{ id: string }>).filter((s) => !/^[\p{L}\p{N}_-]+$/u.test(s.id))).toEqual([]);
  });
});

describe('a template with 400,000 styles', () => {
  it('is refused with a 422 naming the limit, within bounded time and memory, while /api/health answers within 200 ms', async () => {
    const bomb = manyStyles(defaultTemplate(), 400_000);
    const latencies: number[] = [];
    let uploading = true;
    // Its own connection: the upload's does not delay it, and what it measures is the server's event loop.
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
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const res = await upload(bomb);
    const elapsed = performance.now() - started;
    uploading = false;
    await poll;
    await healthAgent.close();
    clearInterval(sampler);
    console.log(
      `400,000 styles (${Math.round(bomb.length / 1024)} KB zipped): ${res.status} in ${Math.round(elapsed)} ms; health ${latencies.length} polls, max ${Math.round(Math.max(...latencies))} ms; RSS +${Math.round((peak - before) / 1024 / 1024)} MB`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error?.message).toMatch(/^file: .*400\d{3} styles.*limit of 10000/);
    expect(elapsed, "within the workers' 30 s time limit").toBeLessThan(30_000);
    expect(latencies.length).toBeGreaterThan(0);
    expect(Math.max(...latencies)).toBeLessThan(200);
    expect(peak - before, 'memory grows by far less than the 1.7 GB it took').toBeLessThan(400 * 1024 * 1024);
  });

  it('10,002 numbering definitions (5,001 abstract + 5,001 concrete) → 422 naming the limit; 2,000 styles (a large real template) are fine', async () => {
    const numbering = await upload(manyNumberings(defaultTemplate(), 5_001));
    expect(numbering.status).toBe(422);
    expect(numbering.body.error?.message).toMatch(/numbering definitions.*limit of 10000/);
    const large = await upload(manyStyles(defaultTemplate(), 2_000));
    expect(large.status, JSON.stringify(large.body)).toBe(201);
  });
});

describe('a broken package root', () => {
  const types = partText(defaultTemplate(), '[Content_Types].xml');
  const cases: Array<[string, Record<string, string | Uint8Array | null>, RegExp]> = [
    ['no _rels/.rels (the main document is not named)', { '_rels/.rels': null }, /no _rels\/\.rels/],
    [
      '_rels/.rels names a main document that is missing',
      { '_rels/.rels': partText(defaultTemplate(), '_rels/.rels').replace('word/document.xml', 'word/missing.xml') },
      /no main document part.*word\/missing\.xml/,
    ],
    [
      'the main document has the wrong content type',
      {
        '[Content_Types].xml': types.replace(
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
          'application/xml',
        ),
      },
      /type "application\/xml", not a Word document/,
    ],
    ['no [Content_Types].xml', { '[Content_Types].xml': null }, /\[Content_Types\]\.xml/],
  ];
  for (const [name, changes, message] of cases) {
    it(`${name} → 422 with a clear message`, async () => {
      const res = await upload(withParts(defaultTemplate(), changes));
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error?.code).toBe('validation_error');
      expect(res.body.error?.message).toMatch(message);
    });
  }
});

describe('macros never pass silently', () => {
  it('a VBA project under another name, found by its relationship type → 422', async () => {
    const rels = partText(defaultTemplate(), 'word/_rels/document.xml.rels').replace(
      '</Relationships>',
      '<Relationship Id="rIdMacro" Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject" Target="harmless.bin"/></Relationships>',
    );
    const res = await upload(
      withParts(defaultTemplate(), { 'word/_rels/document.xml.rels': rels, 'word/harmless.bin': randomBytes(2048) }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error?.message).toMatch(/macro-enabled/);
  });
});
