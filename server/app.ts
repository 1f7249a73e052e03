import type { FastifyInstance } from 'fastify';
import { buildHttpApp, type AppOptions } from './http/app.ts';
import { mcpRoutes } from './mcp/http.ts';

export type { AppOptions } from './http/app.ts';

/**
 * The server's application: the REST API and the app's UI (http/), with MCP over Streamable HTTP at /mcp (mcp/)
 * beside them. The two surfaces sit on the same services and import neither each other; they meet only here.
 * Ready for `inject` or `listen`; never listens itself.
 */
export function buildApp(options: AppOptions): Promise<FastifyInstance> {
  return buildHttpApp(options, [mcpRoutes]);
}
