// `docwright mcp` as AI apps spawn it (node bin/docwright.js mcp, through the SDK's StdioClientTransport), in both
// situations: no server running (it starts one in-process, holding the data directory, which HTTP clients then use
// too) and a server already running (it relays to it). Two clients at once, one on stdio and one on HTTP, convert
// concurrently on the Solo plan: every conversion is stored once, the quota stops both at exactly 20, and the data
// directory is intact afterwards.
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSecret } from '../../server/auth/secret.ts';
import type { Discovery } from '../../server/serve.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { Services } from '../../server/services.ts';
import { dataPaths } from '../../server/store/paths.ts';
import { Store } from '../../server/store/store.ts';
import { validateDocx } from '../helpers/docx.ts';
import { connectHttp, connectStdio, embeddedDocx, structured, toolError, type StdioConnection } from './client.ts';

const dirs: string[] = [];
const servers: RunningServer[] = [];
const stdios: StdioConnection[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dw-mcp-stdio-'));
  dirs.push(d);
  return d;
}

afterAll(async () => {
  for (const s of stdios) await s.client.close().catch(() => undefined);
  for (const s of servers) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  return typeof address === 'object' && address ? address.port : 0;
}

const convert = (client: Client, markdown: string) =>
  client.callTool({ name: 'convert_markdown', arguments: { markdown } }) as Promise<CallToolResult>;

/** Exits of the stdio process: it must leave when its client closes standard input. */
async function closeStdio(connection: StdioConnection): Promise<void> {
  const pid = connection.transport.pid;
  await connection.client.close();
  if (pid !== null) {
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid), 'the stdio process exited').toBe(false);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Converts `count` documents on each client at once; returns the ids of the successful ones, per client. */
async function concurrently(clients: Client[], count: number, label: string): Promise<CallToolResult[][]> {
  return Promise.all(
    clients.map((client, c) =>
      Promise.all(Array.from({ length: count }, (_, i) => convert(client, `# ${label} ${c}-${i}\n\nText ${i}.`))),
    ),
  );
}

describe('no server running: docwright mcp starts one in-process', () => {
  it('serves stdio, holds the data directory, serves HTTP clients too; Solo quota exact across both; intact after exit', async () => {
    const home = tempDir();
    const port = await freePort();
    // Solo plan, a free port, and an API key for the HTTP client, written while nothing runs.
    const store = await Store.open(home);
    await store.updateSettings({ plan: 'solo', port });
    const { record: keyRecord, key } = await new Services(store).createApiKey(
      'http agent',
      (await loadSecret(home)).secret,
    );
    store.close();

    const stdio = await connectStdio({ DOCWRIGHT_HOME: home, DOCWRIGHT_API_KEY: undefined });
    stdios.push(stdio);
    expect(stdio.stderr()).toContain('started one at');
    const discovery = JSON.parse(readFileSync(dataPaths(home).discovery, 'utf8')) as Discovery;
    expect(discovery.pid).toBe(stdio.transport.pid);
    expect(discovery.url).toBe(`https://127.0.0.1:${port}`);
    // It owns the data directory: another process cannot open it.
    await expect(Store.open(home)).rejects.toThrow(/in use by process/);

    const http = await connectHttp(discovery.url, { authorization: `Bearer ${key}` }, discovery.cert_path ?? undefined);
    try {
      const [viaStdio = [], viaHttp = []] = await concurrently([stdio.client, http.client], 10, 'both');
      const all = [...viaStdio, ...viaHttp];
      expect(all.filter((r) => r.isError).map((r) => toolError(r))).toEqual([]);
      const ids = all.map((r) => structured(r).conversion_id);
      expect(new Set(ids).size).toBe(20);
      const validation = await validateDocx(embeddedDocx(viaStdio[0]));
      expect(validation.ok, validation.report).toBe(true);

      // The 21st conversion of the month is refused on both transports, with the REST code.
      for (const client of [stdio.client, http.client]) {
        const refused = toolError(await convert(client, '# One too many'));
        expect(refused.code).toBe('rate_limit_exceeded');
        expect(refused.message).toMatch(/resets on \d{4}-\d{2}-01T00:00:00\.000Z/);
      }
      await http.close();
      await closeStdio(stdio);
      stdios.pop();
      expect(stdio.errors, 'standard output carried only the protocol').toEqual([]);

      // Gone: no discovery file, no admin token, the lock released; every conversion and its file is there, once.
      expect(existsSync(dataPaths(home).discovery)).toBe(false);
      expect(existsSync(dataPaths(home).adminToken)).toBe(false);
      const after = await Store.open(home);
      try {
        const stored = after.listConversions(0, 100).items;
        expect(stored.map((c) => c.conversion_id).sort()).toEqual([...ids].sort());
        expect(stored.every((c) => c.channel === 'mcp')).toBe(true);
        for (const c of stored) expect(existsSync(join(home, 'outputs', c.file))).toBe(true);
        expect(after.usage(new Date())).toBe(20);
        expect(after.listKeys().find((k) => k.id === keyRecord.id)?.last_used_at).not.toBeNull();
      } finally {
        after.close();
      }
    } finally {
      await http.close().catch(() => undefined);
    }
  });
});

describe('a server already running: docwright mcp relays to it', () => {
  let home: string;
  let server: RunningServer;

  it('with the admin token (no key given): converts through the running server, alongside an HTTP client; carries on when it stops', async () => {
    home = tempDir();
    server = await startServer({ dataDir: home, port: 0 });
    servers.push(server);
    const created = await server.app.services.createApiKey('http agent', server.app.authenticator.keySecret);
    const stdio = await connectStdio({ DOCWRIGHT_HOME: home, DOCWRIGHT_API_KEY: undefined });
    stdios.push(stdio);
    expect(stdio.stderr()).not.toContain('started one');
    const http = await connectHttp(
      server.discovery.url,
      { authorization: `Bearer ${created.key}` },
      server.discovery.cert_path ?? undefined,
    );
    try {
      const before = server.store.usage(new Date());
      const [viaStdio = [], viaHttp = []] = await concurrently([stdio.client, http.client], 6, 'relay');
      const ids = [...viaStdio, ...viaHttp].map((r) => structured(r).conversion_id);
      expect(new Set(ids).size).toBe(12);
      // Stored by the running server itself (the stdio process never opened the data directory).
      for (const id of ids) expect(server.store.getConversion(id)?.channel).toBe('mcp');
      expect(server.store.usage(new Date())).toBe(before + 12);
      const { templates } = structured<{ templates: { name: string }[] }>(
        await stdio.client.callTool({ name: 'list_templates', arguments: {} }),
      );
      expect(templates[0]?.name).toBe('Docwright Default');
      expect(toolError(await stdio.client.callTool({ name: 'convert_markdown', arguments: { markdown: '' } }))).toEqual(
        {
          code: 'validation_error',
          message: 'markdown must have at least 1 character',
        },
      );
    } finally {
      await http.close();
    }
    // The server stops (the user quits the app) while the AI app keeps its MCP process: the next call finds no
    // server, so the process starts one itself (on the configured port) and answers.
    await server.store.updateSettings({ port: await freePort() });
    await server.close();
    const after = structured(await convert(stdio.client, '# After the server stopped'));
    expect(stdio.stderr()).toContain('started one at');
    await closeStdio(stdio);
    stdios.pop();
    expect(stdio.errors).toEqual([]);
    expect(existsSync(dataPaths(home).discovery)).toBe(false);
    server = await startServer({ dataDir: home, port: 0 });
    servers.push(server);
    expect(server.store.getConversion(after.conversion_id)?.channel).toBe('mcp');
  });

  it('with DOCWRIGHT_API_KEY: works on Solo, and once the key is revoked every request is refused (invalid_api_key)', async () => {
    await server.store.updateSettings({ plan: 'solo' });
    const created = await server.app.services.createApiKey('stdio agent', server.app.authenticator.keySecret);
    const stdio = await connectStdio({ DOCWRIGHT_HOME: home, DOCWRIGHT_API_KEY: created.key });
    stdios.push(stdio);
    expect(structured(await convert(stdio.client, '# Solo over stdio')).status).toBe('completed');
    await server.store.revokeKey(created.record.id, new Date());
    await expect(stdio.client.listTools()).rejects.toMatchObject({
      code: -32003,
      message: expect.stringContaining('invalid_api_key'),
    });
    await expect(convert(stdio.client, '# refused')).rejects.toThrow(/invalid_api_key/);
    await closeStdio(stdio);
    stdios.pop();
  });
});
