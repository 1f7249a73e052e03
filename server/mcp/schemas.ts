import * as z from 'zod';
import { RulesSchema } from '../schemas/index.ts';
import { conversionOut } from '../services/present.ts';
import type { ConversionRecord } from '../store/database.ts';

// The tools' inputs and outputs in zod, which the MCP SDK speaks. The mapping rules come from the REST API's own
// TypeBox schema (the single source), converted, so both channels accept exactly the same rules.

/** Mapping rules, as POST /api/v1/mappings takes them. */
export const Rules = z
  .fromJSONSchema(JSON.parse(JSON.stringify(RulesSchema)) as Parameters<typeof z.fromJSONSchema>[0])
  .describe(
    'Style mapping rules: for each markdown element, the name of a template style as Word shows it. Keys: heading (object: "1"…"6" → style), paragraph, list_bullet, list_ordered, code_block, blockquote, footnote_text, caption (each a paragraph style name; caption: the style of an image title shown as a caption under it), table ({ style, header_row: boolean }), title, subtitle, author, date (paragraph styles of the title block printed at the top from front matter), inline_code, link, strong, emphasis (each a character style name); options thematic_break ("page_break" default, "rule", "none") and task_list ("plain" default, "checkbox"). Leave out what should stay Word\'s Normal.',
  );

/** A template or mapping named by id or name. */
export const IdOrName = (what: 'template' | 'mapping') =>
  z
    .string()
    .min(1)
    .max(200)
    .describe(
      `The ${what}'s id (UUID) or its name, exactly as list_${what}s shows it (case and extra spaces do not matter).`,
    );

export const Stats = z.object({
  headings: z.int().min(0),
  paragraphs: z.int().min(0),
  lists: z.int().min(0),
  tables: z.int().min(0),
  code_blocks: z.int().min(0),
  images: z.int().min(0),
});

/** The conversion record of the REST API (SPEC.md), as GET /api/v1/conversions/:id shows it. */
export const Conversion = z.object({
  conversion_id: z.string(),
  status: z.literal('completed'),
  filename: z.string().describe('Output file name, .docx included'),
  download_url: z
    .string()
    .describe('Path of the REST download (/api/v1/conversions/<id>/download; Team and Enterprise plans)'),
  warnings: z
    .array(z.string())
    .describe('`<code>: <detail>` strings, e.g. `missing_style: Body Text`; empty when none'),
  stats: Stats,
  created_at: z.string(),
  template_id: z.string(),
  mapping_id: z.string(),
});

/** Where the .docx of a conversion can be had over MCP. */
export const DocumentRef = z.object({
  uri: z.string().describe('MCP resource with the .docx bytes (resources/read)'),
  mime_type: z.string(),
  size: z.int().min(0).describe('Bytes'),
  embedded: z.boolean().describe('Whether this reply holds the .docx as an embedded resource (else: a resource link)'),
});

export const TemplateSummary = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  version: z.int().min(1),
  created_at: z.string(),
  updated_at: z.string(),
  builtin: z.boolean(),
  size: z.int().min(0),
  warnings: z
    .array(z.string())
    .describe('What was removed from or renamed in the uploaded file before it was stored; empty when none'),
});

export const Mapping = z.object({
  id: z.string(),
  name: z.string(),
  template_id: z.string(),
  version: z.int().min(1),
  rules: Rules,
  created_at: z.string(),
  updated_at: z.string(),
  builtin: z.boolean(),
});

/** The REST record of a conversion, its stats typed (the TypeBox type leaves the referenced Stats unknown). */
export function conversionResult(record: ConversionRecord): z.input<typeof Conversion> {
  return { ...conversionOut(record), stats: record.stats };
}
