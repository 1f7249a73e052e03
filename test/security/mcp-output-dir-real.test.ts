// The folder MCP may use (mcp_output_dir) is stored as its real path, and never one under /proc, /sys or /dev: found by
// the attacker's review, `/proc/self/cwd` was stored as written, means another folder in every process that reads it,
// and let MCP read the server's environment (/proc/self/environ) into a .docx. A real server on a real port, the
// owner's settings route; the folders and links are real.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { Store } from '../../server/store/store.ts';
import { call, trustingAgent } from '../helpers/docwright-process.ts';
import { connectHttp, toolError } from '../mcp/client.ts';

let dir: string;
let server: RunningServer;
let agent: Agent;
let mcp: Awaited<ReturnType<typeof connectHttp>>;

const url = (path: string) => `${server.discovery.url}${path}`;
const admin = () => ({ 'x-docwright-admin': server.adminToken });
const patchSettings = (body: unknown) => call(agent, url('/api/settings'), { method: 'PATCH', headers: admin(), body });
const stored = async () =>
  (
    (await call(agent, url('/api/settings'), { headers: admin() })).json() as {
      settings: { mcp_output_dir: string | null };
    }
  ).settings.mcp_output_dir;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dw-mcp-real-')));
  // A setting stored before this rule existed: /proc/self/fd/.. is the reading process's own /proc/self.
  const before = await Store.open(join(dir, 'data'));
  await before.updateSettings({ mcp_output_dir: '/proc/self/fd/..' });
  before.close();
  server = await startServer({ dataDir: join(dir, 'data'), port: 0 });
  agent = trustingAgent(server.discovery.cert_path ?? '');
  const created = await call(agent, url('/api/settings/api-keys'), {
    method: 'POST',
    headers: admin(),
    body: { name: 'agent' },
  });
  const key = (created.json() as { key: string }).key;
  mcp = await connectHttp(server.discovery.url, { authorization: `Bearer ${key}` }, server.discovery.cert_path ?? '');
});

afterAll(async () => {
  await mcp?.close();
  await agent?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('mcp_output_dir', () => {
  it("stored under /proc before this rule: MCP reads nothing there (not the server's environment)", async () => {
    const result = (await mcp.client.callTool({
      name: 'convert_markdown',
      arguments: { input_path: 'environ' },
    })) as CallToolResult;
    const error = toolError(result);
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('/proc, /sys or /dev');
  });

  it.each(['/proc/self/cwd', '/proc/self/fd/..', '/proc', '/sys', '/dev', '/dev/shm'].filter((p) => isDir(p)))(
    '%s is refused (422), and the setting stays as it was',
    async (folder) => {
      const before = await stored();
      const res = await patchSettings({ mcp_output_dir: folder });
      expect(res.status, res.bytes.toString()).toBe(422);
      expect(res.json()).toMatchObject({
        error: { code: 'validation_error', message: expect.stringMatching(/^mcp_output_dir .*\/proc, \/sys or \/dev/) },
      });
      expect(await stored()).toBe(before);
    },
  );

  it('a link to a folder is stored as the folder it leads to', async () => {
    const documents = join(dir, 'Documents');
    mkdirSync(documents);
    const link = join(dir, 'docs-link');
    symlinkSync(documents, link);
    const res = await patchSettings({ mcp_output_dir: join(link, '.') });
    expect(res.status, res.bytes.toString()).toBe(200);
    expect(await stored()).toBe(documents);
  });
});

function isDir(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
