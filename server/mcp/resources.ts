import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ApiError } from '../errors.ts';
import { conversionOut, DOCX_TYPE, mappingOut, templateOut } from '../services/present.ts';
import type { Services } from '../services.ts';
import { findConversion } from '../services/conversions.ts';
import { findTemplate } from './lookup.ts';

/** How many conversions resources/list shows (newest first); older ones are read by their URI. */
export const RECENT_CONVERSIONS = 20;

/** JSON-RPC code of an unknown resource (MCP specification). */
const RESOURCE_NOT_FOUND = -32002;

export const templateUri = (id: string) => `docwright://templates/${id}`;
export const conversionUri = (id: string) => `docwright://conversions/${id}`;
export const documentUri = (id: string) => `docwright://conversions/${id}/document`;

/** A JSON-RPC error (the SDK answers with its code, message and data) whose message starts with the REST code. */
class ResourceError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: { code: string },
  ) {
    super(message);
  }
}

function asMcpError(error: unknown): unknown {
  if (error instanceof ApiError)
    return new ResourceError(
      error.code === 'not_found' ? RESOURCE_NOT_FOUND : -32602,
      `${error.code}: ${error.message}`,
      { code: error.code },
    );
  return error;
}

async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw asMcpError(error);
  }
}

const json = (uri: URL, value: unknown) => ({
  contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }],
});

/**
 * Resources: each template (with its styles and mappings), the recent conversions' records, and the .docx of any
 * conversion still kept (what convert_markdown links to when it does not embed the document).
 */
export function registerResources(server: McpServer, services: Services): void {
  const store = services.store;

  server.registerResource(
    'template',
    new ResourceTemplate('docwright://templates/{id}', {
      list: () => ({
        resources: store.listTemplates().map((t) => ({
          uri: templateUri(t.id),
          name: t.name,
          description: t.description || undefined,
          mimeType: 'application/json',
        })),
      }),
    }),
    {
      title: 'Template',
      description: 'A Word template: its fields, its styles (the names mappings use) and its style mappings.',
      mimeType: 'application/json',
    },
    (uri, variables) =>
      guarded(async () => {
        const record = findTemplate(services, String(variables.id));
        const template = await services.template(record);
        return json(uri, {
          ...templateOut(record, store.listMappings(record.id)),
          styles: template.styles.map(({ name, id, type }) => ({ name, id, type })),
          mappings: store.listMappings(record.id).map(mappingOut),
        });
      }),
  );

  server.registerResource(
    'conversion',
    new ResourceTemplate('docwright://conversions/{id}', {
      list: () => {
        const cutoff = services.now().getTime() - store.settings().retention_days * 86_400_000;
        const recent = store
          .listConversions(0, RECENT_CONVERSIONS)
          .items.filter((c) => Date.parse(c.created_at) >= cutoff);
        return {
          resources: recent.map((c) => ({
            uri: conversionUri(c.conversion_id),
            name: c.filename,
            description: `Converted ${c.created_at}`,
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'Conversion',
      description: `A conversion record; the ${RECENT_CONVERSIONS} most recent are listed.`,
      mimeType: 'application/json',
    },
    (uri, variables) => guarded(async () => json(uri, conversionOut(findConversion(services, String(variables.id))))),
  );

  server.registerResource(
    'document',
    new ResourceTemplate('docwright://conversions/{id}/document', { list: undefined }),
    { title: 'Converted document', description: 'The .docx of a conversion (base64 blob).', mimeType: DOCX_TYPE },
    (uri, variables) =>
      guarded(async () => {
        const record = findConversion(services, String(variables.id));
        let bytes: Uint8Array;
        try {
          bytes = await store.outputBytes(record);
        } catch {
          throw new ApiError('not_found', `The output of conversion ${record.conversion_id} is no longer stored.`);
        }
        return { contents: [{ uri: uri.href, mimeType: DOCX_TYPE, blob: Buffer.from(bytes).toString('base64') }] };
      }),
  );
}
