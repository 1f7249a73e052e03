// Issue 15 items 6–8 through MCP (the SDK's client over its in-memory transport, real services and data directory):
// validate_mapping takes the character-style keys and options (a wrong type is a missing_style warning, a bad
// option a validation_error), and convert_markdown applies a mapping's options.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../server/mcp/server.ts';
import { Services } from '../../server/services.ts';
import { BUILTIN_TEMPLATE_ID, Store } from '../../server/store/store.ts';
import { part, validateDocx } from '../helpers/docx.ts';
import { embeddedDocx, structured, toolError } from './client.ts';

let dir: string;
let store: Store;
let services: Services;
let client: Client;

const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-mcp-options-'));
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

describe('MCP: character styles and mapping options', () => {
  it('validate_mapping: a paragraph style for a character key is a missing_style; a bad option is validation_error', async () => {
    const checked = structured<{ valid: boolean; warnings: string[] }>(
      await call('validate_mapping', {
        rules: { strong: 'Body Text', inline_code: 'Verbatim Char', thematic_break: 'rule', task_list: 'checkbox' },
      }),
    );
    expect(checked).toMatchObject({ valid: false, warnings: ['missing_style: Body Text'] });
    const bad = toolError(await call('validate_mapping', { rules: { thematic_break: 'dots' } }));
    expect(bad.code).toBe('validation_error');
    expect(bad.message).toContain('thematic_break');
  });

  it('convert_markdown applies a mapping with options and character styles', async () => {
    await services.createMapping({
      name: 'Options',
      template_id: BUILTIN_TEMPLATE_ID,
      rules: { inline_code: 'Verbatim Char', thematic_break: 'rule', task_list: 'checkbox' },
    });
    const result = await call('convert_markdown', {
      markdown: 'Some `code`.\n\n---\n\n- [x] done\n- [ ] open\n',
      mapping: 'Options',
    });
    expect(structured(result).warnings).toEqual([]);
    const docx = embeddedDocx(result);
    const { ok, report } = await validateDocx(docx);
    expect(ok, report).toBe(true);
    const xml = part(docx, 'word/document.xml');
    expect(xml).toContain('<w:rStyle w:val="VerbatimChar"/>');
    expect(xml).toContain('<w:pBdr><w:bottom w:val="single"');
    expect(xml).not.toContain('w:type="page"');
    expect(xml).toContain('<w:t xml:space="preserve">\u2612 </w:t>');
  });
});
