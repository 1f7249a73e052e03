import { matchedCount } from '../convert/auto-mapping.ts';
import type { ConversionRecord, MappingRecord, TemplateRecord } from '../store/database.ts';
import type { Conversion, TemplateOut } from '../schemas/index.ts';

// How a stored record is shown, the same on every surface (the REST API, MCP, the app): the shapes of
// server/schemas/.

/** The media type of a .docx. */
export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** The conversion record as the API shows it. */
export function conversionOut(record: ConversionRecord): Conversion {
  return {
    conversion_id: record.conversion_id,
    status: record.status,
    filename: record.filename,
    download_url: `/api/v1/conversions/${record.conversion_id}/download`,
    warnings: record.warnings,
    stats: record.stats,
    created_at: record.created_at,
    template_id: record.template_id,
    mapping_id: record.mapping_id,
    // Extensions (docs/api.md): where the conversion came from, its size, and where each warning came from.
    channel: record.channel,
    ...(record.key_name !== undefined ? { key_name: record.key_name } : {}),
    size: record.size,
    warning_details: record.warning_details ?? record.warnings.map((warning) => ({ warning, line: null, count: 1 })),
  };
}

/** The template as the API shows it, with its mappings (id, name, how many elements each matched). */
export function templateOut(t: TemplateRecord, mappings: readonly MappingRecord[]): TemplateOut {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    version: t.version,
    created_at: t.created_at,
    updated_at: t.updated_at,
    builtin: t.builtin,
    managed: t.managed,
    size: t.size,
    warnings: t.warnings ?? [],
    mappings: mappings.map((m) => ({ id: m.id, name: m.name, matched: matchedCount(m.rules) })),
  };
}

/** The mapping as the API shows it. */
export function mappingOut(m: MappingRecord) {
  return {
    id: m.id,
    name: m.name,
    template_id: m.template_id,
    version: m.version,
    rules: m.rules,
    created_at: m.created_at,
    updated_at: m.updated_at,
    builtin: m.builtin,
    managed: m.managed,
    matched: matchedCount(m.rules),
  };
}
