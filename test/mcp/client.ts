// What the MCP tests share: SDK clients over each transport, and readers of tool results.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { expect } from 'vitest';

export const BIN = resolve(import.meta.dirname, '../../bin/docwright.js');
export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** An SDK client over Streamable HTTP; HTTPS trusts exactly the given certificate (undici, as any HTTP client). */
export async function connectHttp(
  url: string,
  headers: Record<string, string>,
  certPath?: string,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const agent = certPath ? new Agent({ connect: { ca: readFileSync(certPath, 'utf8') } }) : undefined;
  const fetch = ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), ...(agent ? { dispatcher: agent } : {}) })) as unknown as FetchLike;
  const client = new Client({ name: 'docwright-test-http', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { fetch, requestInit: { headers } }));
  } catch (error) {
    await agent?.close();
    throw error;
  }
  return {
    client,
    close: async () => {
      await client.close();
      await agent?.close();
    },
  };
}

export interface StdioConnection {
  client: Client;
  transport: StdioClientTransport;
  /** What the process wrote to standard error. */
  stderr: () => string;
  /** Errors of the client transport (a line on standard output that is not a JSON-RPC message lands here). */
  errors: Error[];
}

/** An SDK client spawning `node bin/docwright.js mcp`, as an AI app does. */
export async function connectStdio(env: Record<string, string | undefined>): Promise<StdioConnection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: Object.fromEntries(
      Object.entries({ ...process.env, ...env }).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const errors: Error[] = [];
  const client = new Client({ name: 'docwright-test-stdio', version: '1.0.0' });
  client.onerror = (error) => errors.push(error);
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw Object.assign(error as Error, { stderr });
  }
  return { client, transport, stderr: () => stderr, errors };
}

/** The error envelope of a tool error result. */
export function toolError(result: unknown): { code: string; message: string } {
  const r = result as CallToolResult;
  if (!r.isError) throw new Error(`expected a tool error, got ${JSON.stringify(r).slice(0, 300)}`);
  const first = r.content[0];
  if (first?.type !== 'text') throw new Error('a tool error without text');
  return (JSON.parse(first.text) as { error: { code: string; message: string } }).error;
}

/** The embedded .docx of a tool result. */
export function embeddedDocx(result: unknown): Uint8Array {
  const block = (result as CallToolResult).content.find((c) => c.type === 'resource');
  if (block?.type !== 'resource' || !('blob' in block.resource)) throw new Error('no embedded document');
  expect(block.resource.mimeType).toBe(DOCX);
  return new Uint8Array(Buffer.from(block.resource.blob, 'base64'));
}

/** convert_markdown's structured result. */
export interface Converted {
  conversion_id: string;
  status: string;
  filename: string;
  download_url: string;
  warnings: string[];
  stats: Record<string, number>;
  created_at: string;
  template_id: string;
  mapping_id: string;
  template_name: string;
  mapping_name: string;
  mapping_matched: { matched: number; of: number };
  document: { uri: string; mime_type: string; size: number; embedded: boolean };
  saved_to: string | null;
  save_error?: string;
}

/** The structured result of a successful tool call. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the result's shape
export function structured<T = Converted>(result: unknown): T {
  const r = result as CallToolResult;
  if (r.isError) throw new Error(`tool error: ${JSON.stringify(r.content)}`);
  return r.structuredContent as T;
}
