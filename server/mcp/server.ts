import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import packageJson from '../../package.json' with { type: 'json' };
import { ApiError, envelope, ERRORS } from '../errors.ts';
import type { Services } from '../services.ts';
import { registerResources } from './resources.ts';
import { TOOLS } from './tools/index.ts';
import type { ToolContext } from './tools/tool.ts';

/** Largest .docx embedded in a tool result (base64, about 1.4 MB of JSON); larger ones come as resource links. */
export const EMBED_LIMIT = 1024 * 1024;

export interface McpServerOptions {
  /** Override of EMBED_LIMIT (tests). */
  embedLimit?: number;
  /** Where unexpected errors are reported (never to the client, which gets `internal_error`). */
  logError?: (error: unknown) => void;
}

const INSTRUCTIONS = [
  "Docwright turns markdown into Word documents (.docx) through the user's own Word templates and style mappings, on this computer.",
  'Typical use: list_templates to find the template (and its mappings) the user means, then convert_markdown with them; without either, the built-in template is used.',
  "Check a new or edited mapping with get_template_styles and validate_mapping before converting. Tool errors carry the codes of Docwright's REST API: not_found, validation_error (names the argument), rate_limit_exceeded (the monthly quota is used up; says when it resets), forbidden.",
].join(' ');

/** A tool error: the REST API's error envelope as text, so agents see the same codes as HTTP clients. */
export function toolError(error: unknown, logError?: (error: unknown) => void): CallToolResult {
  let body;
  if (error instanceof ApiError) body = envelope(error.code, error.message);
  else {
    logError?.(error);
    body = envelope('internal_error', ERRORS.internal_error.message);
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/**
 * The MCP server over the shared services: the tools (listed and called here, so that bad arguments get the REST
 * API's `validation_error` naming the field, not the SDK's generic message) and the resources.
 */
export function createMcpServer(services: Services, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'docwright', title: 'Docwright', version: packageJson.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const context: ToolContext = { services, embedLimit: options.embedLimit ?? EMBED_LIMIT };
  const byName = new Map(TOOLS.map((tool) => [tool.listing.name, tool]));
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map((tool) => tool.listing) }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool ${request.params.name}; the tools are ${[...byName.keys()].join(', ')}.`,
      );
    try {
      return await tool.call(request.params.arguments, context);
    } catch (error) {
      return toolError(error, options.logError);
    }
  });
  registerResources(server, services);
  return server;
}
