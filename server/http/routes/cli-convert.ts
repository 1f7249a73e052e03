// `docwright convert` through the running server of its data folder (docs/cli.md, "Through the running server"):
// the command line sends its markdown, template, mapping and images folder here with the admin token, and the
// server converts in its warm workers, under the limits of every conversion, and answers the document; nothing is
// recorded in History, stored or charged (the command line writes the file, as it does converting alone).
import { createHash } from 'node:crypto';
import { isAbsolute } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { BIBLIOGRAPHY_FORMATS, CITATION_LIMITS } from '../../convert/citations/bibliography.ts';
import { ConvertInputError } from '../../convert/errors.ts';
import { linesOf } from '../../convert/warning-list.ts';
import { ConvertBusyError, ConvertLimitError, limitMessage } from '../../convert-pool/pool.ts';
import { BUILTIN_TEMPLATE_KEY } from '../../convert-pool/protocol.ts';
import { ApiError } from '../../errors.ts';
import { MAPPING_LIMIT, TEMPLATE_LIMIT } from '../../limits.ts';
import { access } from '../../web/access.ts';
import { holdConnection } from '../../web/long-request.ts';

const CliConvertBody = Type.Object(
  {
    markdown: Type.String(),
    /** The template's bytes, base64; absent: the built-in template. */
    template: Type.Optional(Type.String({ contentEncoding: 'base64' })),
    /**
     * The mapping file's JSON (rules, or a mapping holding rules), checked by the worker; absent: the built-in, or
     * with a template the rules its upload would get (matched by style name).
     */
    mapping: Type.Optional(Type.Unknown()),
    /** The absolute folder images are read from; absent: placeholders. */
    folder: Type.Optional(Type.String({ minLength: 1 })),
    /** --number-sections. */
    number_sections: Type.Optional(Type.Boolean()),
    /** --from's dialect; absent: the front matter's, else GFM. */
    dialect: Type.Optional(Type.Union([Type.Literal('gfm'), Type.Literal('pandoc')])),
    /** --bibliography's files (the command line read them, each at most what the API takes); absent: the front matter's. */
    bibliography: Type.Optional(
      Type.Array(
        Type.Object(
          {
            text: Type.String({ maxLength: CITATION_LIMITS.bibliographyChars }),
            format: Type.Union(BIBLIOGRAPHY_FORMATS.map((format) => Type.Literal(format))),
            name: Type.String({ maxLength: 4096 }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 1000 },
      ),
    ),
    /** --csl's style: a bundled name or a CSL file's XML; absent: the front matter's. */
    csl: Type.Optional(Type.String({ minLength: 1, maxLength: CITATION_LIMITS.styleChars })),
    /** The creation time written into the document, ms since the epoch (at most what a Date holds). */
    created: Type.Integer({ minimum: 0, maximum: 8.64e15 }),
  },
  { additionalProperties: false },
);

/**
 * The markdown, the template in base64, the mapping, the bibliographies (together at most the API's one, read as
 * bytes; JSON's escapes counted thrice) and the style, with room for the rest. A larger body is refused and the
 * command line converts in its own process.
 */
const CLI_BODY_LIMIT =
  10 * 1024 * 1024 +
  64 * 1024 +
  Math.ceil(TEMPLATE_LIMIT / 3) * 4 +
  MAPPING_LIMIT +
  3 * (CITATION_LIMITS.bibliographyChars + CITATION_LIMITS.styleChars);

export async function cliConvertRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: Static<typeof CliConvertBody> }>(
    '/api/cli/convert',
    { ...access('owner'), bodyLimit: CLI_BODY_LIMIT, schema: { hide: true, body: CliConvertBody } },
    async (request, reply) => {
      // The command line's admin token only: reading a folder of this computer is not for the app's web page.
      if (request.principal?.kind !== 'admin')
        throw new ApiError('forbidden', 'Only `docwright convert` (the admin token) may convert through this route.');
      const body = request.body;
      if (body.folder !== undefined && !isAbsolute(body.folder))
        throw new ApiError('validation_error', 'folder must be an absolute path.');
      const template = body.template === undefined ? undefined : Buffer.from(body.template, 'base64');
      // Waiting for its conversion is not idleness: the connection timeout must not cut the request (as on /api/v1).
      const release = holdConnection(app, request);
      try {
        const result = await app.services
          .convertForCommandLine({
            markdown: body.markdown,
            ...(body.mapping === undefined ? {} : { mapping: body.mapping as never }),
            created: new Date(body.created),
            // A key naming the template's exact bytes: the workers keep it read for the next conversions.
            template: template
              ? { key: `cli:${createHash('sha256').update(template).digest('hex')}`, bytes: new Uint8Array(template) }
              : { key: BUILTIN_TEMPLATE_KEY },
            ...(body.folder === undefined ? {} : { images: { folder: body.folder } }),
            ...(body.number_sections ? { numberSections: true } : {}),
            ...(body.dialect === undefined ? {} : { dialect: body.dialect }),
            ...(body.bibliography || body.csl !== undefined
              ? {
                  citations: {
                    ...(body.bibliography ? { bibliography: body.bibliography } : {}),
                    ...(body.csl === undefined ? {} : { csl: body.csl }),
                  },
                }
              : {}),
          })
          .finally(release);
        return {
          docx: Buffer.from(result.docx.buffer, result.docx.byteOffset, result.docx.byteLength).toString('base64'),
          warnings: result.warnings,
          warning_lines: linesOf(result.warnings, result.warningDetails),
          stats: result.stats,
          ...(result.matched ? { matched: result.matched } : {}),
        };
      } catch (error) {
        if (error instanceof ConvertInputError) throw new ApiError('validation_error', error.message);
        // The limit and the engine's own words too: the command line says it as it would have alone.
        if (error instanceof ConvertLimitError)
          return reply.code(422).send({
            error: {
              code: 'document_too_complex',
              message: limitMessage(error),
              limit: error.limit,
              reason: error.message,
            },
          });
        if (error instanceof ConvertBusyError)
          throw new ApiError('server_busy', `The server is busy: ${error.message}; retry in a few seconds.`, {
            'Retry-After': '5',
          });
        throw error;
      }
    },
  );

  app.get('/api/cli/convert', { ...access('owner'), schema: { hide: true } }, async () => ({
    conversions: app.services.cliConversions,
  }));
}
