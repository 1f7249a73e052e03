// Issue 15 acceptance 1 for links inside the document and the table of contents: the CLI (a real process), the API
// (a real HTTPS server on a real port) and MCP (a tool call) all give the same engine's TOC, internal links and
// broken_anchor warning. The browser preview is in test/e2e/links-toc.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DOMParser } from '@xmldom/xmldom';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../server/mcp/server.ts';
import { startServer, type RunningServer } from '../server/serve.ts';
import { Services } from '../server/services.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../server/store/store.ts';
import { part, validateDocx } from './helpers/docx.ts';
import { BIN, call, trustingAgent } from './helpers/docwright-process.ts';
import { embeddedDocx, structured } from './mcp/client.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const MARKDOWN = [
  '# Guide',
  '',
  '[TOC]',
  '',
  '## Install',
  '',
  'See [usage](#usage) below, or [nothing](#no-such-part).',
  '',
  '## Usage',
  '',
].join('\n');

/** What every surface must give for MARKDOWN: a TOC listing the headings, internal links, and the warning. */
async function expectLinksAndToc(docx: Uint8Array, warnings: readonly string[]): Promise<void> {
  expect(warnings).toEqual(['broken_anchor: #no-such-part']);
  const doc = new DOMParser().parseFromString(part(docx, 'word/document.xml'), 'text/xml');
  const instructions = Array.from(doc.getElementsByTagNameNS(W, 'instrText')).map((t) => t.textContent?.trim());
  expect(instructions).toEqual(['TOC \\o "1-3" \\h \\z \\u']);
  const anchors = Array.from(doc.getElementsByTagNameNS(W, 'hyperlink')).map((h) => h.getAttributeNS(W, 'anchor'));
  // The TOC's three entries, then the link in the text.
  expect(anchors).toEqual(['guide', 'install', 'usage', 'usage']);
  const bookmarks = Array.from(doc.getElementsByTagNameNS(W, 'bookmarkStart')).map((b) => b.getAttributeNS(W, 'name'));
  expect(bookmarks).toEqual(['guide', 'install', 'usage']);
  expect(part(docx, 'word/settings.xml')).toContain('updateFields');
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
}

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dw-links-surfaces-'));
  dirs.push(d);
  return d;
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('links and TOC on every surface', () => {
  it('CLI: docwright convert writes the TOC and internal links, and prints the warning', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'guide.md'), MARKDOWN);
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((done) => {
      const child = spawn(process.execPath, [BIN, 'convert', 'guide.md', '-o', 'guide.docx'], { cwd: dir });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (c) => {
        done({ code: c ?? -1, stderr: err });
      });
      child.stdin.end();
    });
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('broken_anchor: #no-such-part');
    await expectLinksAndToc(new Uint8Array(readFileSync(join(dir, 'guide.docx'))), ['broken_anchor: #no-such-part']);
  });

  describe('API over HTTPS', () => {
    let server: RunningServer;
    let agent: Agent;
    beforeAll(async () => {
      server = await startServer({ dataDir: tempDir(), port: 0 });
      agent = trustingAgent(server.discovery.cert_path ?? '');
    });
    afterAll(async () => {
      await agent.close();
      await server.close();
    });

    it('POST /api/v1/convert gives the TOC and internal links, the warning in X-Warnings', async () => {
      const url = (path: string) => `${server.discovery.url}${path}`;
      const key = await call(agent, url('/api/settings/api-keys'), {
        method: 'POST',
        headers: { 'x-docwright-admin': server.adminToken },
        body: { name: 'links' },
      });
      expect(key.status).toBe(201);
      const { key: apiKey } = key.json() as { key: string };
      const res = await call(agent, url('/api/v1/convert'), {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        body: { markdown: MARKDOWN, template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID },
      });
      expect(res.status, res.bytes.toString()).toBe(200);
      const warnings = String(res.headers['x-warnings'] ?? '');
      expect(warnings).toContain('broken_anchor');
      const record = await call(agent, url(`/api/v1/conversions/${String(res.headers['x-conversion-id'])}`), {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      await expectLinksAndToc(new Uint8Array(res.bytes), (record.json() as { warnings: string[] }).warnings);
    });
  });

  it('MCP: convert_markdown gives the TOC and internal links, and the warning in its record', async () => {
    const dir = tempDir();
    const store = await Store.open(join(dir, 'data'));
    try {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createMcpServer(new Services(store), {}).connect(serverSide);
      const client = new Client({ name: 'docwright-test', version: '1.0.0' });
      await client.connect(clientSide);
      const result = (await client.callTool({
        name: 'convert_markdown',
        arguments: { markdown: MARKDOWN, filename: 'guide' },
      })) as CallToolResult;
      await expectLinksAndToc(embeddedDocx(result), structured(result).warnings);
      await client.close();
    } finally {
      store.close();
    }
  });
});
