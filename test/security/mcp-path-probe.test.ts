// MCP's input_path and output_path answer the same for every path outside the allowed folder, whether it exists,
// is a folder or a file, or is reached through a link: found by the attacker's review, `/root/.bashrc` answered
// "outside the folder" and `/root/nonexistent` "does not exist" (realpath and stat ran before the confinement check),
// so an agent could map the disk. Paths inside the folder still say what is wrong with them.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../server/mcp/server.ts';
import { Services } from '../../server/services.ts';
import { Store } from '../../server/store/store.ts';
import { toolError } from '../mcp/client.ts';

let dir: string;
let allowed: string;
let outside: string;
let store: Store;
let services: Services;
let client: Client;

const call = (args: Record<string, unknown>) =>
  client.callTool({ name: 'convert_markdown', arguments: args }) as Promise<CallToolResult>;

/** The answer to one path, with the path itself (which the message repeats) taken out. */
async function answer(field: 'input_path' | 'output_path', path: string): Promise<string> {
  const args = field === 'input_path' ? { input_path: path } : { markdown: '# x', output_path: path };
  const error = toolError(await call(args));
  return `${error.code}: ${error.message.replace(`${field}: ${path} `, `${field}: <path> `)}`;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-mcp-probe-'));
  allowed = join(dir, 'allowed');
  outside = join(dir, 'outside');
  mkdirSync(join(allowed, 'inside'), { recursive: true });
  mkdirSync(join(outside, 'folder'), { recursive: true });
  writeFileSync(join(outside, 'exists.md'), '# Private\n');
  writeFileSync(join(outside, 'exists.docx'), 'private');
  writeFileSync(join(outside, 'folder', 'exists.md'), '# Private\n');
  symlinkSync(outside, join(allowed, 'link-out'));
  store = await Store.open(join(dir, 'data'));
  services = new Services(store);
  await store.updateSettings({ mcp_output_dir: allowed });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(services, {}).connect(serverSide);
  client = new Client({ name: 'docwright-probe-test', version: '1.0.0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client?.close();
  await services?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('every path outside the allowed folder gets one answer', () => {
  it('input_path: existing file, missing file, folder, missing folder, by absolute path, .. or a link out', async () => {
    const paths = [
      join(outside, 'exists.md'),
      join(outside, 'missing.md'),
      join(outside, 'folder'),
      join(outside, 'folder', 'exists.md'),
      join(outside, 'nope', 'deeper.md'),
      '../outside/exists.md',
      '../outside/missing.md',
      '../outside/nope/deeper.md',
      'link-out/exists.md',
      'link-out/missing.md',
      'link-out/nope/deeper.md',
      '/',
    ];
    const answers = new Map<string, string>();
    for (const path of paths) answers.set(path, await answer('input_path', path));
    const expected = `forbidden: input_path: <path> is outside the folder the user allowed (${allowed}).`;
    expect(Object.fromEntries(answers)).toEqual(Object.fromEntries(paths.map((p) => [p, expected])));
  });

  it('output_path: existing or missing folders and files, with or without a trailing slash, by any route', async () => {
    const paths = [
      join(outside, 'folder'),
      join(outside, 'folder') + '/',
      join(outside, 'folder', 'x.docx'),
      join(outside, 'nope'),
      join(outside, 'nope') + '/',
      join(outside, 'nope', 'x.docx'),
      join(outside, 'exists.docx'),
      '../outside/folder/x.docx',
      '../outside/nope/x.docx',
      'link-out/folder/x.docx',
      'link-out/nope/x.docx',
      'link-out/exists.docx',
    ];
    const answers = new Map<string, string>();
    for (const path of paths) answers.set(path, await answer('output_path', path));
    const expected = `forbidden: output_path: <path> is outside the folder the user allowed (${allowed}).`;
    expect(Object.fromEntries(answers)).toEqual(Object.fromEntries(paths.map((p) => [p, expected])));
    expect(readdirSync(outside).sort()).toEqual(['exists.docx', 'exists.md', 'folder']);
  });

  it('inside the folder a path still says what is wrong with it', async () => {
    expect(await answer('input_path', 'inside/missing.md')).toBe(
      'validation_error: input_path: <path> does not exist.',
    );
    expect(await answer('input_path', 'inside')).toBe('validation_error: input_path: <path> is not a file.');
    expect(await answer('output_path', 'inside/nope/x.docx')).toMatch(
      /^validation_error: output_path: the folder .* does not exist/,
    );
  });
});
