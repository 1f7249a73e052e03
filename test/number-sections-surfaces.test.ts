// Issue 34, item 5: the convert option that numbers the headings, on every surface: the CLI's --number-sections (a
// real process, in its own process and through a running server), the API's number_sections (JSON and multipart, a
// real HTTPS server on a real port; a value that is no boolean refused in the envelope) and MCP's argument.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { FormData, request, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../server/mcp/server.ts';
import { startServer, type RunningServer } from '../server/serve.ts';
import { Services } from '../server/services.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../server/store/store.ts';
import { part, validateDocx } from './helpers/docx.ts';
import { BIN, call, trustingAgent } from './helpers/docwright-process.ts';
import { embeddedDocx, structured } from './mcp/client.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const MARKDOWN = '# Introduction\n\n## Background\n\n# Method\n';

/** Whether the document's Heading 1 and Heading 2 styles carry the numbering (levels 0 and 1 of one list). */
function headingLevels(docx: Uint8Array): string[] {
  const styles = new DOMParser().parseFromString(part(docx, 'word/styles.xml'), 'text/xml');
  return Array.from(styles.getElementsByTagNameNS(W, 'style'))
    .filter((s) => ['Heading1', 'Heading2'].includes(s.getAttributeNS(W, 'styleId') ?? ''))
    .map((s) => {
      const ilvl: Element | undefined = s.getElementsByTagNameNS(W, 'ilvl')[0];
      return ilvl ? `${s.getAttributeNS(W, 'styleId') ?? ''}:${ilvl.getAttributeNS(W, 'val') ?? ''}` : 'none';
    });
}

async function expectNumbered(docx: Uint8Array, numbered = true): Promise<void> {
  expect(headingLevels(docx)).toEqual(numbered ? ['Heading1:0', 'Heading2:1'] : ['none', 'none']);
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
}

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dw-number-sections-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function cli(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (c) => {
      done({ code: c ?? -1, stderr: err });
    });
    child.stdin.end();
  });
}

describe('number_sections on every surface', () => {
  it('CLI: --number-sections numbers the headings; without it they are not', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'doc.md'), MARKDOWN);
    const data = ['--data-dir', join(dir, 'data')];
    const numbered = await cli([...data, 'convert', 'doc.md', '-o', 'numbered.docx', '-q', '--number-sections'], dir);
    expect(numbered.code, numbered.stderr).toBe(0);
    await expectNumbered(new Uint8Array(readFileSync(join(dir, 'numbered.docx'))));
    const plain = await cli([...data, 'convert', 'doc.md', '-o', 'plain.docx', '-q'], dir);
    expect(plain.code, plain.stderr).toBe(0);
    await expectNumbered(new Uint8Array(readFileSync(join(dir, 'plain.docx'))), false);
  }, 60_000);

  describe('API over HTTPS', () => {
    let server: RunningServer;
    let agent: Agent;
    let apiKey = '';
    let dataDir = '';
    const url = (path: string) => `${server.discovery.url}${path}`;
    beforeAll(async () => {
      dataDir = tempDir();
      server = await startServer({ dataDir, port: 0 });
      agent = trustingAgent(server.discovery.cert_path ?? '');
      const key = await call(agent, url('/api/settings/api-keys'), {
        method: 'POST',
        headers: { 'x-docwright-admin': server.adminToken },
        body: { name: 'sections' },
      });
      expect(key.status).toBe(201);
      apiKey = (key.json() as { key: string }).key;
    });
    afterAll(async () => {
      await agent.close();
      await server.close();
    });

    const convertJson = (extra: Record<string, unknown>) =>
      call(agent, url('/api/v1/convert'), {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        body: { markdown: MARKDOWN, template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID, ...extra },
      });

    it('POST /api/v1/convert (JSON) with number_sections: true numbers them; false or absent does not', async () => {
      const yes = await convertJson({ number_sections: true });
      expect(yes.status, yes.bytes.toString()).toBe(200);
      await expectNumbered(new Uint8Array(yes.bytes));
      const no = await convertJson({ number_sections: false });
      expect(no.status).toBe(200);
      await expectNumbered(new Uint8Array(no.bytes), false);
    });

    it('a number_sections that is not a boolean is refused in the error envelope', async () => {
      const res = await convertJson({ number_sections: 'yes' });
      expect(res.status).toBe(422);
      const { error } = res.json() as { error: { code: string; message: string } };
      expect(error.code).toBe('validation_error');
      expect(error.message).toContain('number_sections');
    });

    it('POST /api/v1/convert (multipart) takes number_sections as "true"', async () => {
      const send = async (value: string) => {
        const form = new FormData();
        form.append('markdown', MARKDOWN);
        form.append('template_id', BUILTIN_TEMPLATE_ID);
        form.append('mapping_id', BUILTIN_MAPPING_ID);
        form.append('number_sections', value);
        const res = await request(url('/api/v1/convert'), {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: `Bearer ${apiKey}` },
          body: form,
        });
        return { status: res.statusCode, bytes: new Uint8Array(await res.body.arrayBuffer()) };
      };
      const yes = await send('true');
      expect(yes.status, Buffer.from(yes.bytes).toString()).toBe(200);
      await expectNumbered(yes.bytes);
      const wrong = await send('maybe');
      expect(wrong.status).toBe(422);
      expect(Buffer.from(wrong.bytes).toString()).toContain('validation_error');
    });

    it('CLI through the running server: --number-sections reaches it', async () => {
      const dir = tempDir();
      writeFileSync(join(dir, 'doc.md'), MARKDOWN);
      const res = await cli(
        ['--data-dir', dataDir, 'convert', 'doc.md', '-o', 'served.docx', '--number-sections'],
        dir,
      );
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toContain('running server');
      await expectNumbered(new Uint8Array(readFileSync(join(dir, 'served.docx'))));
    }, 60_000);
  });

  it('MCP: convert_markdown with number_sections numbers them', async () => {
    const dir = tempDir();
    const store = await Store.open(join(dir, 'data'));
    try {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createMcpServer(new Services(store), {}).connect(serverSide);
      const client = new Client({ name: 'docwright-test', version: '1.0.0' });
      await client.connect(clientSide);
      const result = (await client.callTool({
        name: 'convert_markdown',
        arguments: { markdown: MARKDOWN, filename: 'sections', number_sections: true },
      })) as CallToolResult;
      expect(structured(result).warnings).toEqual([]);
      await expectNumbered(embeddedDocx(result));
      await client.close();
    } finally {
      store.close();
    }
  });
});
