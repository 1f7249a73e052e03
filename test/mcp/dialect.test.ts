// The markdown dialect through MCP (issue 33, item 7; the SDK's client over its in-memory transport, real services and
// data directory): convert_markdown's `dialect` argument reads `H~2~O` as pandoc does and wins over the front matter;
// an unknown value is refused before anything converts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../server/mcp/server.ts';
import { Services } from '../../server/services.ts';
import { Store } from '../../server/store/store.ts';
import { part, validateDocx } from '../helpers/docx.ts';
import { embeddedDocx } from './client.ts';

let dir: string;
let store: Store;
let services: Services;
let client: Client;

const call = (args: Record<string, unknown>) =>
  client.callTool({ name: 'convert_markdown', arguments: args }) as Promise<CallToolResult>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-mcp-dialect-'));
  store = await Store.open(join(dir, 'data'));
  services = new Services(store);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(services, {}).connect(serverSide);
  client = new Client({ name: 'docwright-test', version: '1.0.0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function documentXml(result: CallToolResult): Promise<string> {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  const docx = embeddedDocx(result);
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
  return part(docx, 'word/document.xml');
}

describe('MCP: convert_markdown dialect', () => {
  it('pandoc reads ~2~ as subscript, over the front matter; gfm (the default) as strikethrough', async () => {
    const pandoc = await documentXml(await call({ markdown: '---\nmarkdown: gfm\n---\n\nH~2~O', dialect: 'pandoc' }));
    expect(pandoc).toContain('<w:vertAlign w:val="subscript"/>');
    const gfm = await documentXml(await call({ markdown: 'H~2~O and x^2^' }));
    expect(gfm).toContain('<w:strike/>');
    expect(gfm).toContain('<w:vertAlign w:val="superscript"/>');
  });

  it('an unknown dialect is an error naming the argument', async () => {
    const result = await call({ markdown: 'H~2~O', dialect: 'commonmark' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('dialect');
  });
});
