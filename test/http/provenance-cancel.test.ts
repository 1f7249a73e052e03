// Where a conversion came from (channel, API key name) through the real API, and a conversion whose client goes away
// mid-way: its worker is ended, nothing is stored and nothing is charged.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, trustingAgent } from '../helpers/docwright-process.ts';

let dir: string;
let server: RunningServer;
let agent: Agent;
let apiKey: string;
const url = (path: string) => `${server.discovery.url}${path}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-provenance-'));
  server = await startServer({ dataDir: dir, port: 0 });
  agent = trustingAgent(server.discovery.cert_path ?? '');
  const created = await call(agent, url('/api/settings/api-keys'), {
    method: 'POST',
    headers: { 'x-docwright-admin': server.adminToken },
    body: { name: 'build-bot' },
  });
  expect(created.status).toBe(201);
  apiKey = created.json().key;
});

afterAll(async () => {
  await agent?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('provenance of conversions', () => {
  it('records the channel and the API key name, shown by the convert answer and GET /api/v1/conversions/:id', async () => {
    const markdown = '# Hi\n\n![logo](https://example.com/logo.png)\n';
    const res = await call(agent, url('/api/v1/convert'), {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: {
        markdown,
        template_id: BUILTIN_TEMPLATE_ID,
        mapping_id: BUILTIN_MAPPING_ID,
        filename: 'hello',
        response_format: 'json',
      },
    });
    expect(res.status).toBe(200);
    const record = res.json();
    expect(record).toMatchObject({
      channel: 'api',
      key_name: 'build-bot',
      warnings: ['image_placeholder: logo'],
      warning_details: [{ warning: 'image_placeholder: logo', line: 3, count: 1 }],
    });
    expect(record.size).toBeGreaterThan(1000);
    const again = await call(agent, url(`/api/v1/conversions/${String(record.conversion_id)}`), {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(again.json()).toEqual(record);
    const stored = server.app.services.store.getConversion(record.conversion_id);
    expect(stored).toMatchObject({ channel: 'api', key_name: 'build-bot' });
    expect(stored?.key_id).toMatch(/^key_/);
  });

  it('lists conversions filtered by name, template and channel', async () => {
    const auth = { authorization: `Bearer ${apiKey}` };
    await call(agent, url('/api/v1/convert'), {
      method: 'POST',
      headers: auth,
      body: {
        markdown: 'x',
        template_id: BUILTIN_TEMPLATE_ID,
        mapping_id: BUILTIN_MAPPING_ID,
        filename: 'Quarterly-Notes',
        response_format: 'json',
      },
    });
    const byName = (await call(agent, url('/api/v1/conversions?q=quarterly'), { headers: auth })).json();
    expect(byName.items.map((c: { filename: string }) => c.filename)).toEqual(['Quarterly-Notes.docx']);
    expect(byName.total).toBe(1);
    const byChannel = (await call(agent, url('/api/v1/conversions?channel=mcp'), { headers: auth })).json();
    expect(byChannel.total).toBe(0);
    const byTemplate = (
      await call(agent, url(`/api/v1/conversions?channel=api&template_id=${BUILTIN_TEMPLATE_ID}`), { headers: auth })
    ).json();
    expect(byTemplate.total).toBeGreaterThanOrEqual(2);
    const wrong = await call(agent, url('/api/v1/conversions?channel=fax'), { headers: auth });
    expect(wrong.status).toBe(422);
    expect(wrong.json().error.code).toBe('validation_error');
  });

  it('exposes how many conversions the server runs at once', async () => {
    const res = await call(agent, url('/api/settings'), { headers: { 'x-docwright-admin': server.adminToken } });
    expect(res.json().conversion_workers).toBe(server.app.services.convertPool.size);
  });
});

describe('cancelling a conversion', () => {
  it('ends the worker when the client aborts: nothing is recorded or charged', async () => {
    const services = server.app.services;
    const now = new Date();
    const usageBefore = services.store.usage(now);
    const conversionsBefore = services.store.listConversions(0, 1000).total;
    const replacedBefore = services.convertPool.counters.replaced;
    // Big enough to keep a worker busy for seconds on any machine.
    const markdown = Array.from(
      { length: 60_000 },
      (_, i) => `Paragraph ${i} with **bold**, _emphasis_ and \`code\`.\n`,
    ).join('\n');
    const abort = new AbortController();
    const pending = request(url('/api/v1/convert'), {
      method: 'POST',
      dispatcher: agent,
      signal: abort.signal,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ markdown, template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID }),
    }).catch((error: unknown) => error);
    const started = Date.now();
    while (services.convertPool.load.running === 0) {
      if (Date.now() - started > 20_000) throw new Error('the conversion never started');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A large conversion: it runs on a worker of its own.
    const [worker] = services.convertPool.busyWorkers;
    expect(worker).toBeDefined();
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    while (services.convertPool.load.running > 0) {
      if (Date.now() - started > 20_000) throw new Error('the conversion was not stopped');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(services.convertPool.counters.replaced).toBe(replacedBefore + 1);
    expect(services.convertPool.workers).not.toContain(worker);
    // Give a late result every chance to be stored: none is.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(services.store.listConversions(0, 1000).total).toBe(conversionsBefore);
    expect(services.store.usage(now)).toBe(usageBefore);
    // The server still converts.
    const res = await call(agent, url('/api/v1/convert'), {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: {
        markdown: 'After.',
        template_id: BUILTIN_TEMPLATE_ID,
        mapping_id: BUILTIN_MAPPING_ID,
        response_format: 'json',
      },
    });
    expect(res.status).toBe(200);
  }, 60_000);
});
