import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../server/mcp/tools/index.ts';
import {
  ConversionSchema,
  MappingSchema,
  RulesSchema,
  SHARED_SCHEMAS,
  StatsSchema,
  TemplateSchema,
} from '../../server/schemas/index.ts';

// One schema per resource (issue 31): the records MCP's tools return are declared by the REST API's TypeBox schemas
// (server/schemas/), not by a second declaration that can drift from them.

interface JsonSchema {
  type?: unknown;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  required?: string[];
  $ref?: string;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
}

function tool(name: string): { input: JsonSchema; output: JsonSchema } {
  const found = TOOLS.find((t) => t.listing.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return { input: found.listing.inputSchema, output: found.listing.outputSchema as JsonSchema };
}

/** A schema's fields: each property's name and the JSON types it allows, and which are required. */
function shape(schema: JsonSchema): { fields: Record<string, string>; required: string[] } {
  const deref = (s: JsonSchema): JsonSchema =>
    s.$ref ? (SHARED_SCHEMAS.find((shared) => (shared as { $id?: string }).$id === s.$ref) as JsonSchema) : s;
  const types = (s: JsonSchema): string => {
    const d = deref(s);
    if (d.anyOf) return d.anyOf.map(types).sort().join('|');
    if (d.const !== undefined) return JSON.stringify(d.const);
    if (d.enum) return d.enum.map((v) => JSON.stringify(v)).join('|');
    return String(d.type);
  };
  return {
    fields: Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, types(v)])),
    required: [...(schema.required ?? [])].sort(),
  };
}

const only = (schema: JsonSchema, keys: string[]): JsonSchema => ({
  properties: Object.fromEntries(keys.map((k) => [k, schema.properties?.[k] ?? {}])),
  required: (schema.required ?? []).filter((k) => keys.includes(k)),
});
const keysOf = (schema: { properties: object }) => Object.keys(schema.properties);

describe('MCP tools declare the REST resources from their TypeBox schemas', () => {
  it('get_conversion and convert_markdown return the conversion record of GET /api/v1/conversions/:id', () => {
    for (const name of ['get_conversion', 'convert_markdown']) {
      const output = tool(name).output;
      expect(shape(only(output, keysOf(ConversionSchema))), name).toEqual(shape(ConversionSchema as JsonSchema));
      expect(shape(output.properties?.stats ?? {}), name).toEqual(shape(StatsSchema as JsonSchema));
    }
  });

  it('list_templates returns templates as GET /api/v1/templates shows them', () => {
    const item = tool('list_templates').output.properties?.templates?.items ?? {};
    expect(shape(only(item, keysOf(TemplateSchema)))).toEqual(shape(TemplateSchema as JsonSchema));
  });

  it('list_mappings returns mappings as GET /api/v1/mappings shows them, with the same rules', () => {
    const item = tool('list_mappings').output.properties?.mappings?.items ?? {};
    expect(shape(item)).toEqual(shape(MappingSchema as JsonSchema));
    expect(shape(item.properties?.rules ?? {})).toEqual(shape(RulesSchema as JsonSchema));
  });

  it('validate_mapping takes the rules of POST /api/v1/mappings', () => {
    expect(shape(tool('validate_mapping').input.properties?.rules ?? {})).toEqual(shape(RulesSchema as JsonSchema));
  });
});
