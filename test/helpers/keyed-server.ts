// A real server and a key holder's client of it, for tests of the API as an API key holder sees it.
import type { Agent } from 'undici';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { call, trustingAgent } from './docwright-process.ts';

/**
 * A real server in `dataDir` (port 0), a client that trusts its certificate, and an API key named `name` made with
 * the admin token: what a test of the API as a key holder starts with. `close()` ends the client and the server.
 */
export async function startKeyedServer(
  dataDir: string,
  name: string,
): Promise<{
  server: RunningServer;
  agent: Agent;
  key: string;
  url: (path: string) => string;
  close(): Promise<void>;
}> {
  const server = await startServer({ dataDir, port: 0 });
  const agent = trustingAgent(server.discovery.cert_path ?? '');
  const url = (path: string) => `${server.discovery.url}${path}`;
  const created = await call(agent, url('/api/settings/api-keys'), {
    method: 'POST',
    headers: { 'x-docwright-admin': server.adminToken },
    body: { name },
  });
  if (created.status !== 201) throw new Error(`the API key was not made: ${String(created.status)}`);
  return {
    server,
    agent,
    key: (created.json() as { key: string }).key,
    url,
    close: async () => {
      await agent.close();
      await server.close();
    },
  };
}
