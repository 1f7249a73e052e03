// An MCP key must never reach the data directory, whatever folder the user allowed (mcp_output_dir): found by the
// attacker's review, an allowed home folder let input_path return admin.token inside the .docx (and with it the
// owner's routes), and output_path with overwrite replace stored outputs. A real server on a real port, an API key,
// the SDK's client over HTTP; the CLI as a child process.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderSource } from '../../server/confined/image-folder.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { Store } from '../../server/store/store.ts';
import { call, killAllChildren, runCli, trustingAgent } from '../helpers/docwright-process.ts';
import { validateDocx } from '../helpers/docx.ts';
import { connectHttp, structured, toolError } from '../mcp/client.ts';

let dir: string;
let home: string;
let data: string;
let server: RunningServer;
let agent: Agent;
let mcp: Awaited<ReturnType<typeof connectHttp>>;

const url = (path: string) => `${server.discovery.url}${path}`;
const admin = () => ({ 'x-docwright-admin': server.adminToken });
const convert = (args: Record<string, unknown>) =>
  mcp.client.callTool({ name: 'convert_markdown', arguments: args }) as Promise<CallToolResult>;
const patchSettings = (body: unknown) => call(agent, url('/api/settings'), { method: 'PATCH', headers: admin(), body });

/** Every regular file in the data directory, as absolute paths. */
function dataFiles(): string[] {
  const out: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(path);
    }
  };
  walk(data);
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-mcp-data-dir-'));
  home = join(dir, 'home');
  data = join(home, '.local', 'share', 'docwright');
  mkdirSync(join(home, 'Documents'), { recursive: true });
  writeFileSync(join(home, 'Documents', 'notes.md'), '# Notes\n');
  // A setting stored before this rule existed: the home folder, which holds the data directory.
  const before = await Store.open(data);
  await before.updateSettings({ mcp_output_dir: home });
  before.close();
  server = await startServer({ dataDir: data, port: 0 });
  agent = trustingAgent(server.discovery.cert_path ?? '');
  const created = await call(agent, url('/api/settings/api-keys'), {
    method: 'POST',
    headers: admin(),
    body: { name: 'agent' },
  });
  expect(created.status).toBe(201);
  const key = (created.json() as { key: string }).key;
  mcp = await connectHttp(server.discovery.url, { authorization: `Bearer ${key}` }, server.discovery.cert_path ?? '');
});

afterAll(async () => {
  await killAllChildren();
  await mcp?.close();
  await agent?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an allowed folder that holds the data directory, stored before the rule', () => {
  it('the server started; no file of the data directory is read, by absolute or relative path', async () => {
    const files = dataFiles();
    expect(files.map((f) => relative(data, f))).toContain('admin.token');
    for (const file of files) {
      for (const input_path of [file, relative(home, file)]) {
        const error = toolError(await convert({ input_path }));
        expect(error.code, input_path).toBe('forbidden');
        expect(error.message, input_path).toContain("Docwright's data directory");
        expect(error.message).not.toContain(server.adminToken);
      }
    }
  });

  it('no stored output is replaced and nothing is written into it; every MCP file tool says why', async () => {
    const first = structured(await convert({ markdown: '# Stored' }));
    const outputs = join(data, 'outputs');
    const stored = readdirSync(outputs).map((name) => join(outputs, name));
    expect(stored.length, first.conversion_id).toBeGreaterThan(0);
    const bytes = stored.map((path) => readFileSync(path));
    for (const output_path of [...stored, join(outputs, 'new.docx'), '.local/share/docwright/templates/', 'x.docx']) {
      const error = toolError(await convert({ markdown: '# Replaced', output_path, overwrite: true }));
      expect(error.code, output_path).toBe('forbidden');
      expect(error.message, output_path).toContain("Docwright's data directory");
    }
    expect(stored.map((path) => readFileSync(path))).toEqual(bytes);
    expect(readdirSync(outputs).length).toBe(stored.length);
    expect(readdirSync(home).sort()).toEqual(['.local', 'Documents']);
    // Even a file beside the data directory: the folder itself is refused until the user sets another.
    expect(toolError(await convert({ input_path: 'Documents/notes.md' })).message).toContain(
      'docwright config set mcp_output_dir',
    );
  });

  it('a folder inside the data directory, stored before: refused the same way', async () => {
    await server.store.updateSettings({ mcp_output_dir: join(data, 'outputs') });
    const error = toolError(await convert({ markdown: '# x', output_path: 'x.docx' }));
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain("Docwright's data directory");
    expect(toolError(await convert({ input_path: '../admin.token' })).code).toBe('forbidden');
    expect(readdirSync(join(data, 'outputs'))).not.toContain('x.docx');
  });
});

describe('setting such a folder', () => {
  it('PATCH /api/settings: 422 for a folder that holds or lies inside the data directory, by any path to it', async () => {
    await server.store.updateSettings({ mcp_output_dir: null });
    symlinkSync(home, join(dir, 'home-link'));
    for (const folder of [home, dir, data, join(data, 'outputs'), join(dir, 'home-link'), join(home, '.local')]) {
      const res = await patchSettings({ mcp_output_dir: folder });
      expect(res.status, folder).toBe(422);
      const { error } = res.json() as { error: { code: string; message: string } };
      expect(error.code).toBe('validation_error');
      expect(error.message, folder).toMatch(/^mcp_output_dir .*Docwright's data directory/);
    }
    expect(server.store.settings().mcp_output_dir).toBeNull();
  });

  it('docwright config set: one sentence, exit 1, through the running server and on the data directory itself', async () => {
    const env = { ...process.env, DOCWRIGHT_HOME: data };
    for (const folder of [home, join(data, 'templates')]) {
      const result = await runCli(['config', 'set', 'mcp_output_dir', folder], { env });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
      expect(result.stderr).toContain("Docwright's data directory");
    }
    const other = join(dir, 'other', 'data');
    const stopped = await Store.open(other);
    stopped.close();
    const result = await runCli(['config', 'set', 'mcp_output_dir', join(dir, 'other')], {
      env: { ...process.env, DOCWRIGHT_HOME: other },
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain("Docwright's data directory");
    expect(server.store.settings().mcp_output_dir).toBeNull();
  });

  it('a folder beside it is taken; paths that climb into the data directory are outside it', async () => {
    const documents = join(home, 'Documents');
    const res = await patchSettings({ mcp_output_dir: documents });
    expect(res.status, res.bytes.toString()).toBe(200);
    const converted = structured(await convert({ input_path: 'notes.md', output_path: 'notes.docx' }));
    expect(converted.saved_to).toBe(join(documents, 'notes.docx'));
    const check = await validateDocx(join(documents, 'notes.docx'));
    expect(check.ok, check.report).toBe(true);
    symlinkSync(data, join(documents, 'data-link'));
    for (const input_path of ['../.local/share/docwright/admin.token', 'data-link/admin.token', join(data, 'db.json')])
      expect(toolError(await convert({ input_path })).code, input_path).toBe('forbidden');
    expect(toolError(await convert({ markdown: '# x', output_path: 'data-link/outputs/' })).code).toBe('forbidden');
    expect(statSync(join(data, 'outputs')).isDirectory()).toBe(true);
  });
});

describe('images of an MCP file', () => {
  it('are never read from the excluded folder (the data directory), by whichever path leads there', () => {
    const folder = join(dir, 'images');
    mkdirSync(join(folder, 'private'), { recursive: true });
    writeFileSync(join(folder, 'private', 'a.png'), 'private');
    writeFileSync(join(folder, 'a.png'), 'public');
    // Excluded by another path to the same folder: compared by device and inode, not by text.
    symlinkSync(join(folder, 'private'), join(dir, 'private-link'));
    const source = folderSource(folder, join(dir, 'private-link'));
    expect(source.read('private/a.png', 100)).toEqual({ ok: false, reason: 'outside' });
    expect(source.read('a.png', 100)).toEqual({ ok: true, bytes: new Uint8Array(Buffer.from('public')) });
    expect(folderSource(folder).read('private/a.png', 100).ok).toBe(true);
  });
});
