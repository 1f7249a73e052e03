import type { FastifyInstance } from 'fastify';
import { ApiError, envelope, ERRORS } from '../errors.ts';
import { access } from '../web/access.ts';
import { holdConnection } from '../web/long-request.ts';
import { servicesOf } from '../web/services.ts';

/**
 * The MCP SDK, its schemas (zod) and our tools, loaded at the first MCP request: a server that no agent talks to
 * never holds them (~10 MB of a resting server's memory: 147 -> 137 MB at start; docs/performance.md).
 */
let mcpModules:
  | Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('./server.ts')]>
  | undefined;
const loadMcp = () =>
  (mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./server.ts')]));

/**
 * MCP over Streamable HTTP at `/mcp`, stateless: each POST gets a fresh server and transport (no session to keep,
 * so nothing to leak and any number of clients at once), answering with plain JSON. The app's Host and Origin
 * guards run first (its onRequest hook), then a Bearer key is required, on every plan (access `mcp`).
 */
export async function mcpRoutes(app: FastifyInstance): Promise<void> {
  app.post(
    '/mcp',
    // JSON-RPC escapes the markdown (quotes, newlines), so the body may be larger than the markdown it carries.
    { ...access('mcp'), schema: { hide: true }, bodyLimit: 2 * (app.initialConfig.bodyLimit ?? 1024 * 1024) },
    async (request, reply) => {
      const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await loadMcp();
      const server = createMcpServer(servicesOf(app), {
        logError: (error) => request.log.error({ err: error }, 'MCP tool failed'),
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      // The transport writes the raw response itself (a Node request listener); Fastify must not send one too.
      reply.hijack();
      // A convert_markdown call waits for its conversion: the connection timeout must not cut it.
      const release = holdConnection(app, request);
      reply.raw.once('finish', release);
      reply.raw.on('close', () => {
        release();
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        request.log.error({ err: error }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          reply.raw.end(JSON.stringify(envelope('internal_error', ERRORS.internal_error.message)));
        }
      }
    },
  );

  // Stateless: no stream for server-initiated messages (GET) and no session to end (DELETE). 405 tells MCP
  // clients so (they then carry on with POST alone).
  const notAllowed = async () => {
    throw new ApiError('method_not_allowed', 'This MCP endpoint is stateless: send JSON-RPC messages with POST.', {
      Allow: 'POST',
    });
  };
  app.get('/mcp', { ...access('mcp'), schema: { hide: true } }, notAllowed);
  app.delete('/mcp', { ...access('mcp'), schema: { hide: true } }, notAllowed);
}
