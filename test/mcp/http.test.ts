// MCP over Streamable HTTP at /mcp on a real HTTPS server (startServer on a real port, its generated certificate
// trusted by undici), spoken to by the SDK's own client: the Bearer key on every plan (Solo included, where the REST
// API answers 403), the Solo quota, a revoked key, and the same Host/Origin guards as the rest of the server.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { call, trustingAgent } from '../helpers/docwright-process.ts';
import { validateDocx } from '../helpers/docx.ts';
import { connectHttp, embeddedDocx, structured, toolError } from './client.ts';

let dir: string;
let server: RunningServer;
let agent: Agent;
let certPath: string;
let key: { id: string; key: string };
let mcp: { client: Client; close: () => Promise<void> };

const url = (path: string) => `${server.discovery.url}${path}`;
const admin = () => ({ 'x-docwright-admin': server.adminToken });
const bearer = (k = key.key) => ({ authorization: `Bearer ${k}` });
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const mcpHeaders = { accept: 'application/json, text/event-stream' };
const convert = (client: Client, markdown: string) =>
  client.callTool({ name: 'convert_markdown', arguments: { markdown } }) as Promise<CallToolResult>;

async function createKey(name: string): Promise<{ id: string; key: string }> {
  const res = await call(agent, url('/api/settings/api-keys'), { method: 'POST', headers: admin(), body: { name } });
  expect(res.status).toBe(201);
  return res.json();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-mcp-http-'));
  server = await startServer({ dataDir: dir, port: 0 });
  certPath = server.discovery.cert_path ?? '';
  agent = trustingAgent(certPath);
  key = await createKey('agent');
  mcp = await connectHttp(server.discovery.url, bearer(), certPath);
});

afterAll(async () => {
  await mcp?.close();
  await agent?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('authentication and guards at /mcp', () => {
  it('401 envelope without a key, with a malformed or unknown key; the SDK client is refused too', async () => {
    const none = await call(agent, url('/mcp'), { method: 'POST', headers: mcpHeaders, body: initialize });
    expect(none.status).toBe(401);
    expect(none.json()).toEqual({ error: { code: 'missing_api_key', message: expect.any(String) } });
    for (const bad of ['dw_not-a-key', `dw_${'A'.repeat(38)}`, 'sk-something']) {
      const res = await call(agent, url('/mcp'), {
        method: 'POST',
        headers: { ...mcpHeaders, ...bearer(bad) },
        body: initialize,
      });
      expect(res.status, bad).toBe(401);
      expect(res.json().error.code).toBe('invalid_api_key');
    }
    const error = await connectHttp(server.discovery.url, bearer('dw_wrong'), certPath).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
    expect((error as Error).message).toContain('invalid_api_key');
  });

  it('the Host and Origin guards apply: a foreign Host or Origin is 403 before any key is looked at', async () => {
    // undici checks the certificate against the Host header; this agent trusts the certificate whatever the name.
    const anyName = new Agent({
      connect: { ca: readFileSync(certPath, 'utf8'), checkServerIdentity: () => undefined },
    });
    const host = await call(anyName, url('/mcp'), {
      method: 'POST',
      headers: { ...mcpHeaders, ...bearer(), host: 'evil.example' },
      body: initialize,
    }).finally(() => anyName.close());
    expect(host.status).toBe(403);
    expect(host.json().error.code).toBe('forbidden');
    const origin = await call(agent, url('/mcp'), {
      method: 'POST',
      headers: { ...mcpHeaders, ...bearer(), origin: 'https://evil.example' },
      body: initialize,
    });
    expect(origin.status).toBe(403);
    expect(origin.json().error.code).toBe('forbidden');
  });

  it('GET and DELETE are 405 (stateless: no stream, no session); malformed JSON is 400 bad_request', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await call(agent, url('/mcp'), { method, headers: { ...bearer(), accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.json().error.code).toBe('method_not_allowed');
    }
    const malformed = await call(agent, url('/mcp'), {
      method: 'POST',
      headers: { ...mcpHeaders, ...bearer(), 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
  });
});

describe('tools over HTTPS', () => {
  it('lists the tools and converts a document: a valid .docx, the record stored by this server', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toContain('convert_markdown');
    const result = await convert(mcp.client, '# Over HTTP\n\n| a | b |\n|---|---|\n| 1 | 2 |\n');
    const record = structured(result);
    expect(record.stats.tables).toBe(1);
    expect(server.store.getConversion(record.conversion_id)?.channel).toBe('mcp');
    const validation = await validateDocx(embeddedDocx(result));
    expect(validation.ok, validation.report).toBe(true);
    // The REST download gives the same bytes.
    const download = await call(agent, url(record.download_url), { headers: bearer() });
    expect(download.status).toBe(200);
    expect(download.bytes.equals(Buffer.from(embeddedDocx(result)))).toBe(true);
  });

  it('mcp_output_dir: PATCH /api/settings takes an existing absolute folder or null (else 422); then output_path writes there', async () => {
    // Beside the data directory: one inside it (or holding it) is refused (test/security/mcp-data-dir.test.ts).
    const folder = mkdtempSync(join(tmpdir(), 'dw-mcp-http-exports-'));
    for (const bad of ['relative/folder', join(dir, 'missing'), join(dir, 'db.json'), join(dir, 'outputs'), '']) {
      const res = await call(agent, url('/api/settings'), {
        method: 'PATCH',
        headers: admin(),
        body: { mcp_output_dir: bad },
      });
      expect(res.status, bad).toBe(422);
      expect(res.json().error.code).toBe('validation_error');
    }
    const set = await call(agent, url('/api/settings'), {
      method: 'PATCH',
      headers: admin(),
      body: { mcp_output_dir: folder },
    });
    expect(set.json().settings.mcp_output_dir).toBe(folder);
    const saved = structured(
      await mcp.client.callTool({
        name: 'convert_markdown',
        arguments: { markdown: '# Saved', output_path: 'saved.docx' },
      }),
    );
    expect(saved.saved_to).toBe(join(realpathSync(folder), 'saved.docx'));
    expect(existsSync(join(folder, 'saved.docx'))).toBe(true);
    const off = await call(agent, url('/api/settings'), {
      method: 'PATCH',
      headers: admin(),
      body: { mcp_output_dir: null },
    });
    expect(off.json().settings.mcp_output_dir).toBeNull();
    expect(
      toolError(
        await mcp.client.callTool({
          name: 'convert_markdown',
          arguments: { markdown: '# x', output_path: 'again.docx' },
        }),
      ).code,
    ).toBe('forbidden');
  });

  it('Solo: the REST API is 403 for the key, MCP works; 20 conversions a month, the 21st is rate_limit_exceeded with the reset date', async () => {
    const patched = await call(agent, url('/api/settings'), {
      method: 'PATCH',
      headers: admin(),
      body: { plan: 'solo' },
    });
    expect(patched.status).toBe(200);
    const rest = await call(agent, url('/api/v1/templates'), { headers: bearer() });
    expect(rest.status).toBe(403);
    expect(rest.json().error.code).toBe('api_access_denied');
    const { templates } = structured<{ templates: unknown[] }>(
      await mcp.client.callTool({ name: 'list_templates', arguments: {} }),
    );
    expect(templates.length).toBeGreaterThan(0);

    // The previous test's last call may still hold its reservation for a moment: measure once nothing is in flight
    // (a reservation that never goes away fails here, as it should).
    const store = server.store as unknown as { inFlight: number };
    for (let waited = 0; store.inFlight > 0; waited += 50) {
      expect(waited, 'a quota reservation was never released').toBeLessThan(5000);
      await new Promise((r) => setTimeout(r, 50));
    }
    const now = new Date();
    const used = server.store.usage(now);
    const results = await Promise.all(
      Array.from({ length: 20 - used + 2 }, (_, i) => convert(mcp.client, `# Solo ${i}`)),
    );
    const ok = results.filter((r) => !r.isError);
    const refused = results.filter((r) => r.isError).map(toolError);
    // Exactly the quota: every call under it converts, the rest are refused, nothing stays reserved (a conversion
    // being stored once counted twice for a moment, refusing one call under the quota: test/store/quota.test.ts).
    const state = () => JSON.stringify({ used, refused, inFlight: store.inFlight, usage: server.store.usage(now) });
    expect(ok.length, state()).toBe(20 - used);
    expect(refused, state()).toHaveLength(2);
    const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    for (const error of refused) {
      expect(error.code).toBe('rate_limit_exceeded');
      expect(error.message).toContain(reset);
    }
    expect(server.store.usage(now), state()).toBe(20);
    expect(store.inFlight, state()).toBe(0);
    expect(toolError(await convert(mcp.client, '# 23rd')).code).toBe('rate_limit_exceeded');
    // Reads never count.
    expect(
      structured<{ valid: boolean }>(
        await mcp.client.callTool({ name: 'validate_mapping', arguments: { mapping: 'Docwright Default' } }),
      ).valid,
    ).toBe(true);
    expect(server.store.usage(now)).toBe(20);
  });

  it('a revoked key is refused from the next request on, on the open connection as on a new one', async () => {
    const other = await createKey('to revoke');
    const session = await connectHttp(server.discovery.url, bearer(other.key), certPath);
    try {
      await session.client.listTools();
      const revoked = await call(agent, url(`/api/settings/api-keys/${other.id}`), {
        method: 'DELETE',
        headers: admin(),
      });
      expect(revoked.status).toBeLessThan(300);
      const error = await session.client.listTools().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(401);
      expect((error as Error).message).toContain('invalid_api_key');
      await expect(connectHttp(server.discovery.url, bearer(other.key), certPath)).rejects.toThrow(/invalid_api_key/);
    } finally {
      await session.close().catch(() => undefined);
    }
  });
});
