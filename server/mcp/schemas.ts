import * as z from 'zod';
import type { TSchema } from 'typebox';
import { ConversionSchema, MappingSchema, RulesSchema, SHARED_SCHEMAS, TemplateSchema } from '../schemas/index.ts';

// The tools' inputs and outputs in zod, which the tools validate their arguments and results with (its issues give
// the messages of tool.ts). The resources (conversion, template, mapping, rules) are the REST API's own TypeBox
// schemas (server/schemas/, the single source), converted, so both surfaces accept and show exactly the same shapes.

/** A TypeBox schema of server/schemas/ as zod: its references to other shared schemas inlined, then converted. */
function fromTypeBox(schema: TSchema): z.ZodObject {
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (typeof value !== 'object' || value === null) return value;
    const { $ref, $id: _id, ...rest } = value as Record<string, unknown>;
    if (typeof $ref === 'string') {
      const target = SHARED_SCHEMAS.find((shared) => (shared as { $id?: string }).$id === $ref);
      if (!target) throw new Error(`No shared schema ${$ref}`);
      return inline(target);
    }
    return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v)]));
  };
  return z.fromJSONSchema(inline(schema) as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodObject;
}

/** Mapping rules, as POST /api/v1/mappings takes them. */
export const Rules = fromTypeBox(RulesSchema).describe(
  'Style mapping rules: for each markdown element, the name of a template style as Word shows it. Keys: heading (object: "1"…"6" → style), paragraph, list_bullet, list_ordered, code_block, blockquote, footnote_text, caption, definition_term, definition (each a paragraph style name; caption: the style of an image title shown as a caption under it; definition_term and definition: a definition list\'s terms and definitions, pandoc\'s dialect), table ({ style, header_row: boolean }), title, subtitle, author, date (paragraph styles of the title block printed at the top from front matter), inline_code, link, strong, emphasis (each a character style name); options thematic_break ("page_break" default, "rule", "none"), task_list ("plain" default, "checkbox"), code_highlighting ("on" default: fenced code in a known language gets pandoc\'s token character styles KeywordTok, StringTok…; "off": plain) comments ("drop" default: HTML comments <!-- … --> are left out; "word": each becomes a Word comment where it stood) and math ("dollars" default: $…$ and $$…$$ become Word equations; "dollars_and_fences": ```math fences too; "none": dollars stay text). Leave out what should stay Word\'s Normal.',
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

/** The conversion record of the REST API (SPEC.md), as GET /api/v1/conversions/:id shows it. */
export const Conversion = fromTypeBox(ConversionSchema);

/** Where the .docx of a conversion can be had over MCP. */
export const DocumentRef = z.object({
  uri: z.string().describe('MCP resource with the .docx bytes (resources/read)'),
  mime_type: z.string(),
  size: z.int().min(0).describe('Bytes'),
  embedded: z.boolean().describe('Whether this reply holds the .docx as an embedded resource (else: a resource link)'),
});

/** A template as GET /api/v1/templates shows it. */
export const TemplateSummary = fromTypeBox(TemplateSchema);

/** A mapping as GET /api/v1/mappings shows it. */
export const Mapping = fromTypeBox(MappingSchema);
