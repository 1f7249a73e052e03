import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { findRunningServer } from '../cli/running-server.ts';
import { startServer, type RunningServer } from '../serve.ts';
import { DataDirLockedError } from '../store/lock.ts';
import { Relay, type Upstream } from './bridge.ts';

export interface StdioOptions {
  dataDir: string;
  /** An API key to use (DOCWRIGHT_API_KEY); without one, the running server's admin token (same user, same machine). */
  apiKey?: string;
  /** Where log lines go; never standard output, which carries only the protocol. */
  log?: (line: string) => void;
}

/** How long to wait for another process that holds the data directory (starting, or a CLI command) to serve it. */
const LOCK_WAIT_MS = 15_000;

/**
 * `docwright mcp`: MCP over standard input and output, for the AI clients that spawn it. Relays to the running
 * Docwright server of the data directory (found through its discovery file); when none runs, starts it in this
 * process, which then holds the data-directory lock and serves HTTP clients too, until standard input closes.
 * Resolves when the client has gone and everything is closed.
 */
export async function runStdio(options: StdioOptions): Promise<void> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`docwright mcp: ${line}\n`));
  let owned: RunningServer | undefined;

  const upstreamOf = (server: {
    discovery: RunningServer['discovery'];
    adminToken: string;
    ca?: string;
  }): Upstream => ({
    url: server.discovery.url,
    headers: options.apiKey
      ? { authorization: `Bearer ${options.apiKey}` }
      : { 'x-docwright-admin': server.adminToken },
    auth: options.apiKey ? 'key' : 'admin',
    ...(server.ca ? { certificate: { ca: server.ca, fingerprint: server.discovery.fingerprint } } : {}),
  });

  const findUpstream = async (): Promise<Upstream> => {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      const running = findRunningServer(options.dataDir);
      if (running) return upstreamOf(running);
      if (owned)
        return upstreamOf({
          ...owned,
          ...(owned.discovery.cert_path ? { ca: readFileSync(owned.discovery.cert_path, 'utf8') } : {}),
        });
      try {
        owned = await startOwnServer(options.dataDir);
        log(
          `no Docwright server was running; started one at ${owned.discovery.url} (it stops when this MCP client disconnects)`,
        );
        for (const warning of owned.warnings) log(`warning: ${warning}`);
      } catch (error) {
        // Another process holds the directory: a server starting (its discovery file follows) or a short CLI command.
        if (!(error instanceof DataDirLockedError) || Date.now() > deadline) throw error;
        await sleep(200);
      }
    }
  };

  const stdio = new StdioServerTransport();
  const relay = new Relay(stdio, findUpstream, log);
  const done = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.stdout.once('error', () => resolve());
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await relay.start();
  await done;
  await relay.close();
  await stdio.close();
  process.stdin.destroy();
  await owned?.close();
}

/** Starts the server on its configured port, or on any free one when another program has that port. */
async function startOwnServer(dataDir: string): Promise<RunningServer> {
  try {
    return await startServer({ dataDir });
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'ServeError') throw error;
    return startServer({ dataDir, port: 0 });
  }
}
