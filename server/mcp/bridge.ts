import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { pinnedFetch, type PinnedCertificate } from './fetch.ts';

/** JSON-RPC code of a request the Docwright server refused or could not be reached for; `data` holds why. */
export const UPSTREAM_ERROR = -32003;

/** The `/mcp` endpoint a stdio bridge relays to, and how it authenticates there. */
export interface Upstream {
  url: string;
  headers: Record<string, string>;
  certificate?: PinnedCertificate;
  /** `admin`: the running server's admin token, which changes when it restarts (then found again). */
  auth: 'key' | 'admin';
}

interface Connection {
  upstream: Upstream;
  transport: StreamableHTTPClientTransport;
  close: () => void;
}

/**
 * Relays JSON-RPC messages between an MCP client on stdio and the Docwright server's `/mcp` endpoint, unchanged,
 * so both transports serve exactly the same tools, authentication and quota. Requests are sent concurrently;
 * failures come back to the client as JSON-RPC errors carrying the server's error code.
 */
export class Relay {
  private connection: Promise<Connection> | undefined;
  private protocolVersion: string | undefined;
  private readonly initializing = new Set<RequestId>();

  constructor(
    private readonly client: Transport,
    private readonly findUpstream: () => Promise<Upstream>,
    private readonly log: (line: string) => void,
  ) {}

  /** Starts reading from the client; resolves once the connection to the server is made (or has failed). */
  async start(): Promise<void> {
    this.client.onmessage = (message) => void this.forward(message);
    this.client.onerror = (error) => this.log(`stdio: ${error.message}`);
    await this.client.start();
    await this.connect().catch((error: unknown) => this.log(`cannot reach Docwright: ${describe(error)}`));
  }

  /** Closes the connection to the server (the client transport is closed by its owner). */
  async close(): Promise<void> {
    const connection = await this.connection?.catch(() => undefined);
    this.connection = undefined;
    if (connection) await dispose(connection);
  }

  private connect(): Promise<Connection> {
    this.connection ??= this.open().catch((error: unknown) => {
      this.connection = undefined;
      throw error;
    });
    return this.connection;
  }

  private async open(): Promise<Connection> {
    const upstream = await this.findUpstream();
    const { fetch, close } = pinnedFetch(upstream.certificate);
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', upstream.url), {
      fetch,
      requestInit: { headers: upstream.headers },
    });
    transport.onmessage = (message) => {
      this.noteProtocolVersion(message, transport);
      void this.client.send(message).catch((error: unknown) => this.log(`stdio: ${describe(error)}`));
    };
    transport.onerror = (error) => this.log(`server: ${error.message}`);
    await transport.start();
    if (this.protocolVersion) transport.setProtocolVersion(this.protocolVersion);
    return { upstream, transport, close };
  }

  /** The version the initialize answer settles is sent on every later request (Streamable HTTP requires it). */
  private noteProtocolVersion(message: JSONRPCMessage, transport: StreamableHTTPClientTransport): void {
    if (!isJSONRPCResultResponse(message) || !this.initializing.delete(message.id)) return;
    const version = message.result.protocolVersion;
    if (typeof version === 'string') {
      this.protocolVersion = version;
      transport.setProtocolVersion(version);
    }
  }

  private async forward(message: JSONRPCMessage): Promise<void> {
    if (isJSONRPCRequest(message) && message.method === 'initialize') this.initializing.add(message.id);
    try {
      await this.send(message);
    } catch (error) {
      this.log(`${isJSONRPCRequest(message) ? message.method : 'message'}: ${describe(error)}`);
      if (isJSONRPCRequest(message)) {
        await this.client.send({ jsonrpc: '2.0', id: message.id, error: toJsonRpcError(error) }).catch(() => undefined);
      }
    }
  }

  /** Sends one message; when the server went away (or restarted with a new admin token), finds it again once. */
  private async send(message: JSONRPCMessage): Promise<void> {
    const current = this.connect();
    const connection = await current;
    try {
      await connection.transport.send(message);
    } catch (error) {
      const restarted =
        (error instanceof StreamableHTTPError && error.code === 401 && connection.upstream.auth === 'admin') ||
        refused(error);
      if (!restarted) throw error;
      // Concurrent requests fail together: the first one drops the stale connection, all use the new one.
      if (this.connection === current) {
        this.connection = undefined;
        await dispose(connection);
      }
      await (await this.connect()).transport.send(message);
    }
  }
}

async function dispose(connection: Connection): Promise<void> {
  await connection.transport.close().catch(() => undefined);
  connection.close();
}

/** A connection the server never accepted: it is not running (any more). Safe to retry: nothing was done. */
function refused(error: unknown): boolean {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.code === 'ECONNREFUSED' || e?.cause?.code === 'ECONNREFUSED';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The server's answer to a refused request (the REST envelope, or a JSON-RPC error) as a JSON-RPC error. */
export function toJsonRpcError(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof StreamableHTTPError) {
    const text = error.message.slice(error.message.indexOf('{'));
    try {
      const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
      const inner = body.error;
      if (inner && typeof inner.code === 'string' && typeof inner.message === 'string') {
        return {
          code: UPSTREAM_ERROR,
          message: `${inner.code}: ${inner.message}`,
          data: { status: error.code, error: { code: inner.code, message: inner.message } },
        };
      }
      if (inner && typeof inner.code === 'number' && typeof inner.message === 'string')
        return { code: inner.code, message: inner.message, ...(inner.data !== undefined ? { data: inner.data } : {}) };
    } catch {
      // Not JSON: reported as it is below.
    }
    return {
      code: UPSTREAM_ERROR,
      message: `The Docwright server answered ${String(error.code)}: ${error.message}`,
      data: { status: error.code },
    };
  }
  return { code: UPSTREAM_ERROR, message: `The Docwright server cannot be reached: ${describe(error)}` };
}
