// Issue 33 acceptance 3 for syntax highlighting: the CLI (a real process), the API over HTTPS (a JSON body and a
// multipart one, on a real port) and MCP (a tool call) give the same highlighted document, part for part; a mapping
// with `code_highlighting: off`, stored over the API, gives plain code.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FormData, request, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../server/mcp/server.ts';
import { startServer, type RunningServer } from '../server/serve.ts';
import { Services } from '../server/services.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../server/store/store.ts';
import { part, validateDocx } from './helpers/docx.ts';
import { BIN, call, trustingAgent } from './helpers/docwright-process.ts';
import { embeddedDocx, structured } from './mcp/client.ts';

const MARKDOWN = [
  '# Code',
  '',
  '```python',
  'def greet(name):',
  '    """Say hello."""',
  '    return f"Hello, {name}!"  # 1 line',
  '```',
  '',
  '```klingon',
  "Qapla'",
  '```',
  '',
].join('\n');

const tokens = (docx: Uint8Array) =>
  [...part(docx, 'word/document.xml').matchAll(/<w:rStyle w:val="(\w+Tok)"\/>/g)].map((m) => m[1]);

/** Every surface's document, by surface, to compare once all have given theirs. */
const outputs = new Map<string, Uint8Array>();

async function expectHighlighted(surface: string, docx: Uint8Array, warnings: readonly string[]): Promise<void> {
  expect(warnings).toEqual([]);
  expect(tokens(docx)).toEqual(expect.arrayContaining(['KeywordTok', 'FunctionTok', 'StringTok', 'CommentTok']));
  expect(part(docx, 'word/styles.xml')).toContain('w:styleId="KeywordTok"');
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
  outputs.set(surface, docx);
}

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dw-highlight-surfaces-'));
  dirs.push(d);
  return d;
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('highlighted code on every surface', () => {
  it('CLI: docwright convert highlights the python block, leaves the unknown language plain', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'code.md'), MARKDOWN);
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((done) => {
      const child = spawn(process.execPath, [BIN, 'convert', 'code.md', '-o', 'code.docx', '-q'], { cwd: dir });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (c) => {
        done({ code: c ?? -1, stderr: err });
      });
      child.stdin.end();
    });
    expect(code, stderr).toBe(0);
    await expectHighlighted('cli', new Uint8Array(readFileSync(join(dir, 'code.docx'))), stderr ? [stderr] : []);
  }, 60_000);

  describe('API over HTTPS', () => {
    let server: RunningServer;
    let agent: Agent;
    let apiKey = '';
    const url = (path: string) => `${server.discovery.url}${path}`;
    beforeAll(async () => {
      server = await startServer({ dataDir: tempDir(), port: 0 });
      agent = trustingAgent(server.discovery.cert_path ?? '');
      const key = await call(agent, url('/api/settings/api-keys'), {
        method: 'POST',
        headers: { 'x-docwright-admin': server.adminToken },
        body: { name: 'highlight' },
      });
      expect(key.status).toBe(201);
      apiKey = (key.json() as { key: string }).key;
    });
    afterAll(async () => {
      await agent.close();
      await server.close();
    });

    const convertJson = async (mappingId: string) => {
      const res = await call(agent, url('/api/v1/convert'), {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        body: { markdown: MARKDOWN, template_id: BUILTIN_TEMPLATE_ID, mapping_id: mappingId },
      });
      expect(res.status, res.bytes.toString()).toBe(200);
      return { docx: new Uint8Array(res.bytes), warnings: String(res.headers['x-warnings'] ?? '') };
    };

    it('POST /api/v1/convert (JSON) highlights by default', async () => {
      const { docx, warnings } = await convertJson(BUILTIN_MAPPING_ID);
      await expectHighlighted('api-json', docx, warnings ? [warnings] : []);
    });

    it('POST /api/v1/convert (multipart) gives the same', async () => {
      const form = new FormData();
      form.append('markdown', MARKDOWN);
      form.append('template_id', BUILTIN_TEMPLATE_ID);
      form.append('mapping_id', BUILTIN_MAPPING_ID);
      const res = await request(url('/api/v1/convert'), {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${apiKey}` },
        body: form,
      });
      const docx = new Uint8Array(await res.body.arrayBuffer());
      expect(res.statusCode).toBe(200);
      const warnings = String(res.headers['x-warnings'] ?? '');
      await expectHighlighted('api-multipart', docx, warnings ? [warnings] : []);
    });

    it('a mapping stored with code_highlighting: off gives plain code; a bad value is refused in the envelope', async () => {
      const rules = { code_block: 'Code Block', code_highlighting: 'off' };
      const made = await call(agent, url('/api/v1/mappings'), {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        body: { name: 'Plain code', template_id: BUILTIN_TEMPLATE_ID, rules },
      });
      expect(made.status, made.bytes.toString()).toBe(201);
      const { docx } = await convertJson((made.json() as { id: string }).id);
      expect(tokens(docx)).toEqual([]);
      expect(part(docx, 'word/document.xml')).toContain('def greet(name):');
      const bad = await call(agent, url('/api/v1/mappings'), {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        body: { name: 'Bad', template_id: BUILTIN_TEMPLATE_ID, rules: { code_highlighting: 'no' } },
      });
      expect(bad.status).toBe(422);
      const { error } = bad.json() as { error: { code: string; message: string } };
      expect(error.code).toBe('validation_error');
      expect(error.message).toContain('code_highlighting');
    });
  });

  it('MCP: convert_markdown gives the same', async () => {
    const dir = tempDir();
    const store = await Store.open(join(dir, 'data'));
    try {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createMcpServer(new Services(store), {}).connect(serverSide);
      const client = new Client({ name: 'docwright-test', version: '1.0.0' });
      await client.connect(clientSide);
      const result = (await client.callTool({
        name: 'convert_markdown',
        arguments: { markdown: MARKDOWN, filename: 'code' },
      })) as CallToolResult;
      await expectHighlighted('mcp', embeddedDocx(result), structured(result).warnings);
      await client.close();
    } finally {
      store.close();
    }
  });

  it('every surface wrote the same document and styles', () => {
    expect([...outputs.keys()].sort()).toEqual(['api-json', 'api-multipart', 'cli', 'mcp']);
    const cli = outputs.get('cli') ?? new Uint8Array();
    for (const [surface, docx] of outputs)
      for (const name of ['word/document.xml', 'word/styles.xml'])
        expect(part(docx, name), `${surface}: ${name}`).toBe(part(cli, name));
  });
});
