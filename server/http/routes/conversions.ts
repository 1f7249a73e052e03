import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ConversionRecord } from '../../store/database.ts';
import { findConversion } from '../../services/conversions.ts';
import { conversionOut, DOCX_TYPE } from '../../services/present.ts';
import { wellFormed } from '../../convert/names.ts';
import { ApiError } from '../../errors.ts';
import { IdParamsSchema, ERROR_RESPONSES } from '../../schemas/index.ts';
import { access } from '../../web/access.ts';

/**
 * A Content-Disposition (RFC 6266) safe for any filename, never throwing: the exact name in RFC 8187 `filename*`
 * and an ASCII fallback without quotes, backslashes, control characters or path separators. A name stored before
 * names were checked may hold an unpaired surrogate: it is delivered as U+FFFD rather than failing the download.
 * (The `content-disposition` package was not used: it throws on such a name too, and sends `filename*` only
 * for non-ASCII names, where clients are best served by always having both.)
 */
export function contentDisposition(filename: string): string {
  const clean = wellFormed(filename).replace(/[\u0000-\u001f\u007f-\u009f/\\]/g, '_');
  const ascii = clean.replace(/[^\x20-\x7e]/g, '_').replace(/["%;]/g, '_');
  const encoded = encodeURIComponent(clean).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Conversion records: read, download, list (newest first), delete. */
export async function conversionRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string } }>(
    '/api/v1/conversions/:id',
    {
      ...access('api'),
      schema: {
        summary: 'A conversion record',
        params: IdParamsSchema,
        response: { 200: Type.Ref('Conversion'), ...ERROR_RESPONSES },
      },
    },
    async (request) => conversionOut(findConversion(app.services, request.params.id)),
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/conversions/:id/download',
    {
      ...access('api'),
      schema: {
        summary: 'Download the .docx of a conversion',
        params: IdParamsSchema,
        response: {
          200: {
            description: 'The .docx bytes',
            content: { [DOCX_TYPE]: { schema: { type: 'string', format: 'binary' } } },
          },
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request, reply) => {
      const record = findConversion(app.services, request.params.id);
      let bytes: Uint8Array;
      try {
        bytes = await app.services.store.outputBytes(record);
      } catch {
        throw new ApiError('not_found', `The output of conversion ${record.conversion_id} is no longer stored.`);
      }
      reply.header('Content-Type', DOCX_TYPE);
      reply.header('Content-Disposition', contentDisposition(record.filename));
      reply.header('X-Conversion-Id', record.conversion_id);
      return reply.send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    },
  );

  app.get<{
    Querystring: {
      offset?: string;
      limit?: string;
      q?: string;
      template_id?: string;
      channel?: ConversionRecord['channel'];
    };
  }>(
    '/api/v1/conversions',
    {
      ...access('api'),
      schema: {
        summary: 'Conversions, newest first',
        querystring: Type.Object({
          offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: 'Records to skip (default 0)' })),
          limit: Type.Optional(
            Type.String({
              pattern: '^(?:[1-9][0-9]?|1[0-9]{2}|200)$',
              description: 'Records to return, 1 to 200 (default 50)',
            }),
          ),
          q: Type.Optional(
            Type.String({
              maxLength: 200,
              description: 'Only conversions whose filename contains this text (any case)',
            }),
          ),
          template_id: Type.Optional(
            Type.String({ maxLength: 100, description: 'Only conversions with this template' }),
          ),
          channel: Type.Optional(
            Type.Union([Type.Literal('api'), Type.Literal('ui'), Type.Literal('mcp'), Type.Literal('cli')], {
              description: 'Only conversions from this channel',
            }),
          ),
        }),
        response: { 200: Type.Ref('ConversionList'), ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const offset = Number(request.query.offset ?? 0);
      const limit = Number(request.query.limit ?? 50);
      await app.services.store.purgeExpired(app.services.now());
      const { q, template_id: templateId, channel } = request.query;
      const text = q?.trim().toLocaleLowerCase() ?? '';
      const filtered = text !== '' || templateId !== undefined || channel !== undefined;
      const match = (record: ConversionRecord): boolean =>
        (text === '' || record.filename.toLocaleLowerCase().includes(text)) &&
        (templateId === undefined || record.template_id === templateId) &&
        (channel === undefined || record.channel === channel);
      const { items, total } = app.services.store.listConversions(offset, limit, filtered ? match : undefined);
      return { items: items.map(conversionOut), total, offset, limit };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v1/conversions/:id',
    {
      ...access('api'),
      schema: {
        summary: 'Delete a conversion and its output',
        params: IdParamsSchema,
        response: { 204: Type.Null(), ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const record = findConversion(app.services, request.params.id);
      await app.services.store.deleteConversion(record.conversion_id);
      return reply.status(204).send();
    },
  );
}
