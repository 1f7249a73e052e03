// Right-to-left text and the title block on every surface, behind the same engine: the command line as a process,
// the API over a real HTTPS server (the mapping keys validated, in the OpenAPI document), and an MCP tool call.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../server/mcp/server.ts';
import { startServer, type RunningServer } from '../server/serve.ts';
import { Services } from '../server/services.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../server/store/store.ts';
import { call, killAllChildren, runCli, trustingAgent } from './helpers/docwright-process.ts';
import { part, validateDocx } from './helpers/docx.ts';
import { embeddedDocx } from './mcp/client.ts';

const MARKDOWN = `---
title: دليل المستخدم
subtitle: A field guide
author: [Ada Lovelace, Charles Babbage]
date: 2024-05-01
---
هذه فقرة عربية فيها كلمة English والرقم 42.

A left-to-right paragraph.
`;

/** What every surface's document must show: the title block in the built-in styles, RTL where the text is. */
async function expectRtlAndTitle(docx: Uint8Array): Promise<void> {
  const xml = part(docx, 'word/document.xml');
  for (const style of ['Title', 'Subtitle', 'Author', 'Date']) expect(xml).toContain(`<w:pStyle w:val="${style}"/>`);
  expect(xml.split('<w:pStyle w:val="Author"/>')).toHaveLength(3);
  // The Arabic title and paragraph are right to left; the Latin words and the number in it are not.
  expect(xml.split('<w:bidi/>')).toHaveLength(3);
  expect(xml).toMatch(/<w:r><w:t xml:space="preserve">English<\/w:t><\/w:r>/);
  expect(xml).toMatch(/<w:r><w:t xml:space="preserve">42<\/w:t><\/w:r>/);
  expect(xml).toContain('<w:rtl/>');
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
}

type ErrorBody = { error: { code: string; message: string } };

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dw-rtl-title-'));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  await killAllChildren();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the command line', () => {
  it('converts a document with front matter and Arabic text', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'doc.md'), MARKDOWN);
    const { code, stderr } = await runCli(['convert', join(dir, 'doc.md'), '-o', join(dir, 'out.docx')], {
      timeoutMs: 55_000,
    });
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('no warnings');
    await expectRtlAndTitle(new Uint8Array(readFileSync(join(dir, 'out.docx'))));
  });
});

describe('the API over HTTPS', () => {
  let server: RunningServer;
  let agent: Agent;
  let key: string;
  const url = (path: string) => `${server.discovery.url}${path}`;
  const bearer = () => ({ authorization: `Bearer ${key}` });

  beforeAll(async () => {
    server = await startServer({ dataDir: tempDir(), port: 0 });
    agent = trustingAgent(server.discovery.cert_path ?? '');
    const created = await call(agent, url('/api/settings/api-keys'), {
      method: 'POST',
      headers: { 'x-docwright-admin': server.adminToken },
      body: { name: 'rtl-title' },
    });
    key = (created.json() as { key: string }).key;
  });
  afterAll(async () => {
    await agent.close();
    await server.close();
  });

  it('converts with the built-in mapping, which maps the title block keys', async () => {
    const mapping = await call(agent, url(`/api/v1/mappings/${BUILTIN_MAPPING_ID}`), { headers: bearer() });
    expect((mapping.json() as { rules: unknown }).rules).toMatchObject({
      title: 'Title',
      subtitle: 'Subtitle',
      author: 'Author',
      date: 'Date',
    });
    const res = await call(agent, url('/api/v1/convert'), {
      method: 'POST',
      headers: bearer(),
      body: { markdown: MARKDOWN, template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID },
    });
    expect(res.status, res.bytes.toString()).toBe(200);
    await expectRtlAndTitle(new Uint8Array(res.bytes));
  });

  it('takes the keys in a mapping, refuses a bad value in the envelope, and documents them', async () => {
    const made = await call(agent, url('/api/v1/mappings'), {
      method: 'POST',
      headers: bearer(),
      body: { name: 'Titles', template_id: BUILTIN_TEMPLATE_ID, rules: { title: 'Title', author: 'Author' } },
    });
    expect(made.status, made.bytes.toString()).toBe(201);
    expect((made.json() as { rules: unknown }).rules).toEqual({ title: 'Title', author: 'Author' });
    const bad = await call(agent, url('/api/v1/mappings'), {
      method: 'POST',
      headers: bearer(),
      body: { name: 'Bad', template_id: BUILTIN_TEMPLATE_ID, rules: { date: 7 } },
    });
    expect(bad.status).toBe(422);
    expect((bad.json() as ErrorBody).error.code).toEqual(expect.any(String));
    expect((bad.json() as ErrorBody).error.message).toContain('date');
    const openapi = await call(agent, url('/api/v1/openapi.json'), { headers: bearer() });
    const rules = (openapi.json() as { components: { schemas: { Rules: { properties: Record<string, unknown> } } } })
      .components.schemas.Rules.properties;
    expect(Object.keys(rules)).toEqual(expect.arrayContaining(['title', 'subtitle', 'author', 'date']));
  });
});

describe('the built-in mapping of a data directory from before the title block', () => {
  it('takes the new keys when the store opens, its version one up', async () => {
    const data = join(tempDir(), 'data');
    (await Store.open(data)).close();
    const path = join(data, 'db.json');
    const db = JSON.parse(readFileSync(path, 'utf8')) as { mappings: { id: string; rules: Record<string, unknown> }[] };
    const builtin = db.mappings.find((m) => m.id === BUILTIN_MAPPING_ID);
    for (const key of ['title', 'subtitle', 'author', 'date']) delete builtin?.rules[key];
    writeFileSync(path, JSON.stringify(db));
    const store = await Store.open(data);
    try {
      const mapping = store.getMapping(BUILTIN_MAPPING_ID);
      expect(mapping?.rules).toMatchObject({ title: 'Title', subtitle: 'Subtitle', author: 'Author', date: 'Date' });
      expect(mapping?.version).toBe(2);
    } finally {
      store.close();
    }
  });
});

describe('MCP', () => {
  let dir: string;
  let store: Store;
  let client: Client;

  beforeAll(async () => {
    dir = tempDir();
    store = await Store.open(join(dir, 'data'));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(new Services(store)).connect(serverSide);
    client = new Client({ name: 'docwright-test', version: randomUUID() });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client.close();
    store.close();
  });

  it('convert_markdown prints the title block and right-to-left text', async () => {
    const result = (await client.callTool({
      name: 'convert_markdown',
      arguments: { markdown: MARKDOWN, filename: 'guide' },
    })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    await expectRtlAndTitle(embeddedDocx(result));
  });
});
