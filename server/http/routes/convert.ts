import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { holdConnection } from '../../web/long-request.ts';
import { warningsHeaders } from '../warnings-header.ts';
import { type ConvertBody } from '../../schemas/index.ts';
import { contentDisposition } from './conversions.ts';
import { conversionOut, DOCX_TYPE } from '../../services/present.ts';
import { access } from '../../web/access.ts';
import { CONVERT_UPLOAD, readConvertUpload } from '../convert-upload.ts';

/** The images of a multipart conversion, read before validation (its fields are validated as the JSON body). */
const uploaded = new WeakMap<object, Map<string, Uint8Array>>();

/** POST /api/v1/convert (SPEC.md): the .docx bytes by default, or the conversion record. */
export async function convertRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: ConvertBody }>(
    '/api/v1/convert',
    {
      config: { ...access('api').config, upload: CONVERT_UPLOAD },
      // A multipart request carries the markdown's images too (docs/images.md); its text fields become the body.
      preValidation: async (request) => {
        if (!request.isMultipart()) return;
        const upload = await readConvertUpload(request);
        request.body = upload.fields as unknown as ConvertBody;
        uploaded.set(request, upload.images);
      },
      schema: {
        summary: 'Convert markdown to .docx',
        description:
          'A JSON body converts with images as placeholders (SPEC.md). A multipart/form-data body takes the same fields plus the image files the markdown refers to, each as an "images" part whose filename is its path relative to the markdown; those images are embedded (docs/images.md).',
        consumes: ['application/json', 'multipart/form-data'],
        body: {
          content: {
            'application/json': { schema: Type.Ref('ConvertRequest') },
            'multipart/form-data': { schema: Type.Ref('ConvertUpload') },
          },
        },
        response: {
          200: {
            description: 'The .docx bytes (response_format binary, the default) or the conversion record (json)',
            content: {
              [DOCX_TYPE]: { schema: { type: 'string', format: 'binary' } },
              'application/json': { schema: Type.Ref('Conversion') },
            },
          },
          '4xx': Type.Ref('Error'),
          '5xx': Type.Ref('Error'),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const principal = request.principal;
      const channel = principal?.kind === 'key' ? 'api' : 'ui';
      // Waiting for its conversion is not idleness: the connection timeout must not cut the request.
      const release = holdConnection(app, request);
      // A client that goes away (closes the connection, or aborts its fetch: the app's Cancel) cancels the conversion:
      // its worker is ended and nothing is stored or charged.
      const gone = new AbortController();
      const onClose = (): void => {
        if (!reply.raw.writableEnded) gone.abort();
      };
      reply.raw.on('close', onClose);
      let converted;
      try {
        const images = uploaded.get(request);
        converted = await app.services.convert({
          ...body,
          ...(images ? { images: { files: images } } : {}),
          channel,
          signal: gone.signal,
          ...(principal?.kind === 'key' ? { keyId: principal.keyId } : {}),
        });
      } finally {
        release();
        reply.raw.off('close', onClose);
      }
      const { record, docx } = converted;
      if (body.response_format === 'json') return conversionOut(record);
      reply.header('Content-Type', DOCX_TYPE);
      reply.header('Content-Disposition', contentDisposition(record.filename));
      reply.header('X-Conversion-Id', record.conversion_id);
      reply.headers(warningsHeaders(record.warnings, record.conversion_id));
      return reply.send(Buffer.from(docx.buffer, docx.byteOffset, docx.byteLength));
    },
  );
}
