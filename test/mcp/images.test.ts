// convert_markdown with input_path: a markdown file from the folder the user allowed, its images embedded from the
// file's own folder, with the same confinement as the CLI (no `..`, no absolute paths, no links out, no web).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../server/mcp/server.ts';
import { Services } from '../../server/services.ts';
import { Store } from '../../server/store/store.ts';
import { part, validateDocx } from '../helpers/docx.ts';
import { embeddedDocx, structured, toolError } from './client.ts';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/images/doc');
let dir: string;
let allowed: string;
let store: Store;
let services: Services;
let client: Client;

const call = (args: Record<string, unknown>) =>
  client.callTool({ name: 'convert_markdown', arguments: args }) as Promise<CallToolResult>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-mcp-images-'));
  allowed = join(dir, 'allowed');
  cpSync(FIXTURE, join(allowed, 'doc'), { recursive: true });
  writeFileSync(join(dir, 'secret.png'), readFileSync(join(FIXTURE, 'img/small.png')));
  writeFileSync(join(dir, 'outside.md'), '# Outside\n');
  symlinkSync(join(dir, 'secret.png'), join(allowed, 'doc', 'link.png'));
  mkdirSync(join(allowed, 'other'));
  store = await Store.open(join(dir, 'data'));
  services = new Services(store);
  await store.updateSettings({ mcp_output_dir: allowed });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(services, { embedLimit: 10 * 1024 * 1024 }).connect(serverSide);
  client = new Client({ name: 'docwright-images-test', version: '1.0.0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
  await services.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('convert_markdown input_path', () => {
  it('converts a file from the allowed folder with its images embedded from its folder', async () => {
    const result = await call({ input_path: 'doc/doc.md' });
    const record = structured(result);
    expect(record.warnings).toEqual([
      'image_missing: img/nothing.png',
      'image_outside_folder: ../outside.png',
      'remote_image: https://example.com/x.png',
    ]);
    expect(record.stats.images).toBe(9);
    // Named after the file (doc/doc.md → doc.docx), not "document.docx".
    expect(record.filename).toBe('doc.docx');
    const docx = embeddedDocx(result);
    expect(Object.keys(unzipSync(docx)).filter((n) => n.startsWith('word/media/'))).toHaveLength(6);
    expect(part(docx, 'word/document.xml')).toContain('descr="A blue banner"');
    expect((await validateDocx(docx)).ok).toBe(true);
  });

  it('confines the images to the file’s folder: no link out, no climbing into a sibling folder', async () => {
    writeFileSync(join(allowed, 'doc', 'escape.md'), '![l](link.png) ![s](../other/x.png) ![a](/etc/hosts)\n');
    const record = structured(await call({ input_path: join(allowed, 'doc', 'escape.md') }));
    expect(record.warnings).toEqual([
      'image_outside_folder: link.png',
      'image_outside_folder: ../other/x.png',
      'image_outside_folder: /etc/hosts',
    ]);
  });

  it('keeps placeholders for markdown sent as text, as before', async () => {
    const record = structured(await call({ markdown: '![Chip](doc/img/small.png)\n' }));
    expect(record.warnings).toEqual(['image_placeholder: Chip']);
  });

  it('refuses a file outside the allowed folder, both markdown and input_path, and neither', async () => {
    expect(toolError(await call({ input_path: join(dir, 'outside.md') })).code).toBe('forbidden');
    expect(toolError(await call({ input_path: '../outside.md' })).code).toBe('forbidden');
    expect(toolError(await call({ input_path: 'doc/none.md' })).code).toBe('validation_error');
    expect(toolError(await call({ input_path: 'doc' })).code).toBe('validation_error');
    expect(toolError(await call({ markdown: '# x', input_path: 'doc/doc.md' })).code).toBe('validation_error');
  });
});
