// convert_markdown's template_path (issue 32 item 5, acceptance 3): a Word template from the folder the user allowed
// is stored as an upload stores it, with the mapping an upload gets (its styles matched by name), and the document
// is the one the REST API writes for the same template uploaded; a second call reuses the stored template. Real
// store, real services, the MCP server over an in-memory transport.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../server/mcp/server.ts';
import { Services } from '../../server/services.ts';
import { addTemplate } from '../../server/services/templates.ts';
import { Store } from '../../server/store/store.ts';
import { part, validateDocx } from '../helpers/docx.ts';
import { embeddedDocx, structured, toolError } from './client.ts';

const CORPUS = resolve(import.meta.dirname, '../../../shared/corpus/templates');
const MARKDOWN =
  '---\ntitle: A Report\nauthor: Ada\n---\n# One\n\nBody **strong** `code`.\n\n- a\n- b\n\n> quoted\n\n```\ncode\n```\n';
let dir: string;
let allowed: string;
let store: Store;
let services: Services;
let client: Client;

const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-mcp-template-path-'));
  allowed = join(dir, 'allowed');
  mkdirSync(allowed);
  copyFileSync(join(CORPUS, 'apaquarto.docx'), join(allowed, 'apaquarto.docx'));
  writeFileSync(join(allowed, 'not-a-template.docx'), 'plain text');
  store = await Store.open(join(dir, 'data'));
  services = new Services(store);
  await store.updateSettings({ mcp_output_dir: allowed, plan: 'team' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(services, { embedLimit: 10 * 1024 * 1024 }).connect(serverSide);
  client = new Client({ name: 'docwright-template-path-test', version: '1.0.0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
  await services.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

interface WithNames {
  template_id: string;
  template_name: string;
  mapping_id: string;
  mapping_name: string;
  mapping_matched: { matched: number; of: number };
  warnings: string[];
}

describe('convert_markdown template_path', () => {
  it('maps the template by style name as an upload does: the same mapping, the same document', async () => {
    const result = await call('convert_markdown', { markdown: MARKDOWN, template_path: 'apaquarto.docx' });
    const record = structured<WithNames>(result);
    expect(record.template_name).toBe('apaquarto');
    expect(record.mapping_name).toBe('Matched by style name');
    expect(record.warnings.filter((w) => w.startsWith('missing_style'))).toEqual([]);
    const docx = embeddedDocx(result);
    expect((await validateDocx(docx)).ok).toBe(true);

    // The same file uploaded as the REST API and the app upload it: the same rules, the same document body.
    const uploaded = await addTemplate(services, new Uint8Array(readFileSync(join(CORPUS, 'apaquarto.docx'))), {
      filename: 'uploaded.docx',
    });
    const [uploadMapping] = store.listMappings(uploaded.id);
    const [mcpMapping] = store.listMappings(record.template_id);
    expect(mcpMapping?.rules).toEqual(uploadMapping?.rules);
    expect(record.mapping_matched).toEqual({ matched: 24, of: 26 });
    const api = await services.convert({
      markdown: MARKDOWN,
      template_id: uploaded.id,
      mapping_id: uploadMapping?.id ?? '',
      channel: 'api',
    });
    expect(part(docx, 'word/document.xml')).toBe(part(api.docx, 'word/document.xml'));

    // A second call reuses the stored template and its mapping.
    const again = structured<WithNames>(
      await call('convert_markdown', { markdown: '# Again\n', template_path: join(allowed, 'apaquarto.docx') }),
    );
    expect(again.template_id).toBe(record.template_id);
    expect(again.mapping_id).toBe(record.mapping_id);
    // list_mappings says how many elements matched.
    const listed = structured<{ mappings: { id: string; matched: unknown }[] }>(
      await call('list_mappings', { template: record.template_id }),
    );
    expect(listed.mappings.find((m) => m.id === record.mapping_id)?.matched).toEqual({ matched: 24, of: 26 });
  });

  it('refuses a file that is not a template, one outside the allowed folder, and a template named beside it', async () => {
    expect(
      toolError(await call('convert_markdown', { markdown: '# x', template_path: 'not-a-template.docx' })).code,
    ).toBe('validation_error');
    // Outside the allowed folder: refused as input_path is.
    expect(toolError(await call('convert_markdown', { markdown: '# x', template_path: '../x.docx' })).code).toBe(
      'forbidden',
    );
    const both = toolError(
      await call('convert_markdown', { markdown: '# x', template_path: 'apaquarto.docx', template: 'x' }),
    );
    expect(both).toMatchObject({ code: 'validation_error' });
    expect(both.message).toContain('template_path');
  });
});
