import { Type, type Static } from 'typebox';
import { RulesSchema } from '../convert/mapping.ts';
import { BIBLIOGRAPHY_FORMATS, BUNDLED_STYLES, CITATION_LIMITS } from '../convert/citations/index.ts';
import { NAME_PATTERN, TEXT_PATTERN } from '../convert/names.ts';

/** One schema per resource: the single source of validation, types, serialisation and the OpenAPI document. */

const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });
/** A name a user gives (server/convert/names.ts): any Unicode text without control characters or unpaired surrogates. */
const Name = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: NAME_PATTERN, ...(description ? { description } : {}) });
/** A template's description: multi-line text under the same rule. */
const Description = Type.String({ maxLength: 2000, pattern: TEXT_PATTERN });

export const ErrorSchema = Type.Object(
  { error: Type.Object({ code: Type.String(), message: Type.String() }) },
  { $id: 'Error', description: 'The error envelope' },
);

export const StatsSchema = Type.Object(
  {
    headings: Type.Integer({ minimum: 0 }),
    paragraphs: Type.Integer({ minimum: 0 }),
    lists: Type.Integer({ minimum: 0 }),
    tables: Type.Integer({ minimum: 0 }),
    code_blocks: Type.Integer({ minimum: 0 }),
    images: Type.Integer({ minimum: 0 }),
  },
  { $id: 'Stats', additionalProperties: false },
);

export const ConversionSchema = Type.Object(
  {
    conversion_id: Uuid,
    status: Type.Literal('completed'),
    filename: Type.String({ description: 'Output filename including .docx' }),
    download_url: Type.String({ description: '/api/v1/conversions/<conversion_id>/download' }),
    warnings: Type.Array(Type.String(), { description: '`<warning_code>: <detail>` strings' }),
    stats: Type.Ref('Stats'),
    created_at: Timestamp,
    template_id: Uuid,
    mapping_id: Uuid,
    channel: Type.Union([Type.Literal('api'), Type.Literal('ui'), Type.Literal('mcp'), Type.Literal('cli')], {
      description: 'Where the conversion came from: the public API, the app, MCP or the CLI',
    }),
    key_name: Type.Optional(
      Type.String({ description: 'Name of the API key that asked for it (channel api), as it was then' }),
    ),
    size: Type.Integer({ minimum: 0, description: 'Size of the .docx in bytes' }),
    warning_details: Type.Array(
      Type.Object({
        warning: Type.String({ description: 'The warning, as in `warnings`' }),
        line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
          description: 'First line of the markdown it came from; null when not tied to a line',
        }),
        count: Type.Integer({ minimum: 1, description: 'How often it occurred' }),
      }),
      { description: '`warnings` in the same order, with the first source line and the count of each' },
    ),
  },
  { $id: 'Conversion' },
);
export type Conversion = Static<typeof ConversionSchema>;

export const ConversionListSchema = Type.Object(
  {
    items: Type.Array(Type.Ref('Conversion')),
    total: Type.Integer({ minimum: 0 }),
    offset: Type.Integer({ minimum: 0 }),
    limit: Type.Integer({ minimum: 1 }),
  },
  { $id: 'ConversionList' },
);

export const ConvertBodySchema = Type.Object(
  {
    markdown: Type.String({ minLength: 1, description: 'Raw markdown, at least 1 character' }),
    template_id: Uuid,
    mapping_id: Uuid,
    filename: Type.Optional(Name(200, 'Output filename without extension; default "document"; no control characters')),
    response_format: Type.Optional(
      Type.Union([Type.Literal('binary'), Type.Literal('json')], { description: '`binary` (default) or `json`' }),
    ),
    // Beyond SPEC (docs/api-extensions.md): pandoc's --number-sections.
    number_sections: Type.Optional(
      Type.Boolean({
        description:
          'Number the headings 1, 1.1, 1.1.1 with a multilevel list on the heading styles (a template whose heading styles number themselves keeps its own); the front matter `number_sections` wins. Multipart: "true" or "false"',
      }),
    ),
    dialect: Type.Optional(
      Type.Union([Type.Literal('gfm'), Type.Literal('pandoc')], {
        description:
          "The markdown dialect: `gfm` (SPEC.md's) or `pandoc` (also `~sub~`); wins over the front matter's `markdown:`; default: the front matter's, else `gfm` (docs/api-extensions.md)",
      }),
    ),
    // Beyond SPEC (docs/captions-references.md): the sources the markdown's citations ([@key]) are formatted from.
    bibliography: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CITATION_LIMITS.bibliographyChars,
        description: `A bibliography for the markdown's citations ([@key]): BibTeX/BibLaTeX, CSL JSON or CSL YAML text, at most ${CITATION_LIMITS.bibliographyChars / 1024 / 1024} MiB and ${CITATION_LIMITS.entries} entries; used in place of the files the front matter's \`bibliography\` names`,
      }),
    ),
    bibliography_format: Type.Optional(
      Type.Union(
        BIBLIOGRAPHY_FORMATS.map((format) => Type.Literal(format)),
        {
          description:
            "The bibliography's format; default: told from its text (`[`/`{`: CSL JSON, `@type{`: BibTeX, else CSL YAML)",
        },
      ),
    ),
    csl: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CITATION_LIMITS.styleChars,
        description: `The citation style: a bundled one (${BUNDLED_STYLES.map((s) => `\`${s}\``).join(', ')}; default \`apa\`) or a CSL style's XML, at most ${CITATION_LIMITS.styleChars / 1024} KiB; in place of the front matter's \`csl\``,
      }),
    ),
  },
  { $id: 'ConvertRequest', additionalProperties: false },
);
export type ConvertBody = Static<typeof ConvertBodySchema>;

/** The multipart form of POST /api/v1/convert: the JSON body's fields, and the images (docs/images.md). */
export const ConvertUploadSchema = Type.Object(
  {
    ...ConvertBodySchema.properties,
    markdown: Type.String({ minLength: 1, description: 'Raw markdown: a text field, or a file part' }),
    images: Type.Optional(
      Type.Array(Type.String({ format: 'binary' }), {
        description:
          'Image files, each a part named "images" whose filename is its path relative to the markdown (img/chart.png); PNG, JPEG, GIF or SVG; at most 200 files, 10 MiB each, 50 MiB together',
      }),
    ),
    bibliography: Type.Optional(
      Type.String({
        description:
          'The bibliography as a text field or a file part (its extension, .bib, .json or .yaml, gives its format when bibliography_format does not)',
      }),
    ),
    csl: Type.Optional(
      Type.String({ description: "A bundled style's name, or a CSL style as a text field or a file part" }),
    ),
  },
  { $id: 'ConvertUpload', additionalProperties: false },
);

/** How many elements a mapping names a style for (beyond SPEC: docs/mappings.md). */
const Matched = Type.Object(
  { matched: Type.Integer({ minimum: 0 }), of: Type.Integer({ minimum: 1 }) },
  {
    description:
      'How many of the elements a mapping can style (`of`; each heading level one) the mapping names a style for (`matched`)',
  },
);

export const TemplateSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    description: Type.String(),
    version: Type.Integer({ minimum: 1 }),
    created_at: Timestamp,
    updated_at: Timestamp,
    builtin: Type.Boolean({ description: 'The built-in template, which cannot be changed or deleted' }),
    managed: Type.Boolean({
      description: "Seeded by the organisation's policy: read-only (PATCH, PUT and DELETE answer 403)",
    }),
    size: Type.Integer({ minimum: 0, description: 'Size of the .docx in bytes' }),
    warnings: Type.Array(Type.String(), {
      description:
        'What was removed from or renamed in the uploaded file before it was stored (template_external_removed, template_style_renamed, template_font_renamed); empty for a clean file',
    }),
    // Beyond SPEC (docs/api.md): the upload's answer already says how well its mapping matched.
    mappings: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), matched: Matched }), {
      description: "The template's mappings (the one matched by style name after an upload), each with `matched`",
    }),
  },
  { $id: 'Template' },
);
export type TemplateOut = Static<typeof TemplateSchema>;

export const TemplateStyleSchema = Type.Object(
  {
    name: Type.String(),
    id: Type.String(),
    type: Type.Union([
      Type.Literal('paragraph'),
      Type.Literal('character'),
      Type.Literal('table'),
      Type.Literal('numbering'),
    ]),
  },
  { $id: 'TemplateStyle' },
);

const templateFields = { name: Type.Optional(Name(200)), description: Type.Optional(Description) };

export const TemplatePatchSchema = Type.Object(templateFields, {
  $id: 'TemplatePatch',
  additionalProperties: false,
  minProperties: 1,
});

/** The text fields sent with an uploaded template (multipart), checked by the same validator as TemplatePatch. */
export const TemplateFieldsSchema = Type.Object(templateFields);

/** Mapping rules: the engine's schema (server/convert/mapping.ts), which checkRules checks with. */
export { RulesSchema };

const mappingFields = {
  id: Uuid,
  name: Type.String(),
  template_id: Uuid,
  version: Type.Integer({ minimum: 1 }),
  rules: Type.Ref('Rules'),
  created_at: Timestamp,
  updated_at: Timestamp,
  builtin: Type.Boolean({ description: 'The built-in mapping, which cannot be changed or deleted' }),
  managed: Type.Boolean({
    description: "Seeded by the organisation's policy: read-only (PATCH and DELETE answer 403)",
  }),
  // Beyond SPEC (docs/mappings.md): what "22 of 24" says beside the mapping on every surface.
  matched: Matched,
};

export const MappingSchema = Type.Object(mappingFields, { $id: 'Mapping' });

export const MappingWithWarningsSchema = Type.Object(
  {
    ...mappingFields,
    warnings: Type.Array(Type.String(), { description: '`missing_style: <name>` for each style the template lacks' }),
  },
  { $id: 'MappingWithWarnings' },
);

export const MappingCreateSchema = Type.Object(
  { name: Name(200), template_id: Uuid, rules: Type.Ref('Rules') },
  { $id: 'MappingCreate', additionalProperties: false },
);
export type MappingCreate = Static<typeof MappingCreateSchema>;

export const MappingPatchSchema = Type.Object(
  { name: Type.Optional(Name(200)), rules: Type.Optional(Type.Ref('Rules')) },
  { $id: 'MappingPatch', additionalProperties: false, minProperties: 1 },
);

export const ApiKeyCreateSchema = Type.Object(
  { name: Name(100) },
  { $id: 'ApiKeyCreate', additionalProperties: false },
);

export const ApiKeyCreatedSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    key: Type.String({ description: 'The full key; shown only in this response' }),
    key_prefix: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'ApiKeyCreated' },
);

export const ApiKeySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    key_prefix: Type.String(),
    created_at: Timestamp,
    last_used_at: Type.Union([Timestamp, Type.Null()]),
    revoked_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'ApiKey' },
);

/** The `:id` path parameter of every resource route. */
export const IdParamsSchema = Type.Object({ id: Type.String() });

/** Every route's error responses: the envelope. */
export const ERROR_RESPONSES = { '4xx': Type.Ref('Error'), '5xx': Type.Ref('Error') };

/** Every shared schema, registered once with Fastify (and so in the OpenAPI document's components). */
export const SHARED_SCHEMAS = [
  ErrorSchema,
  StatsSchema,
  ConversionSchema,
  ConversionListSchema,
  ConvertBodySchema,
  ConvertUploadSchema,
  TemplateSchema,
  TemplateStyleSchema,
  TemplatePatchSchema,
  RulesSchema,
  MappingSchema,
  MappingWithWarningsSchema,
  MappingCreateSchema,
  MappingPatchSchema,
  ApiKeyCreateSchema,
  ApiKeyCreatedSchema,
  ApiKeySchema,
];
