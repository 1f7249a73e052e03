import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { IdParamsSchema, ERROR_RESPONSES, TemplateFieldsSchema } from '../../schemas/index.ts';
import { contentDisposition } from './conversions.ts';
import { DOCX_TYPE, templateOut } from '../../services/present.ts';
import {
  addTemplate,
  deleteTemplate,
  editableTemplate,
  findTemplate,
  replaceTemplateFile,
  suggestedRules,
  templateStyles,
  updateTemplate,
} from '../../services/templates.ts';
import { access } from '../../web/access.ts';
import { upload } from '../body-limits.ts';
import { multipartError } from '../multipart-errors.ts';
import { TEMPLATE_LIMIT } from '../../limits.ts';

/** Largest template upload: the .docx and its text fields. */
const TEMPLATE_UPLOAD = upload(
  TEMPLATE_LIMIT,
  `a template upload (a ${TEMPLATE_LIMIT / 1024 / 1024} MB .docx and its fields)`,
);

/**
 * Reads a multipart upload: the file's bytes and the text fields. A body that is not well-formed multipart is
 * 400 bad_request (as on /api/v1/convert), a second file 422; the plugin's size limits keep their 413.
 */
async function readUpload(
  request: FastifyRequest,
): Promise<{ bytes?: Uint8Array; fields: Record<string, string>; filename?: string }> {
  if (!request.isMultipart())
    throw new ApiError('unsupported_media_type', 'Send the template as multipart/form-data with a "file" field.');
  try {
    return await readParts(request);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'FST_FILES_LIMIT') throw new ApiError('validation_error', 'file: send one template file per request.');
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT')
      throw new ApiError(
        'validation_error',
        'The upload has more parts than a template needs: a "file", and "name" and "description" if you like.',
      );
    multipartError(error);
  }
}

async function readParts(
  request: FastifyRequest,
): Promise<{ bytes?: Uint8Array; fields: Record<string, string>; filename?: string }> {
  const fields: Record<string, string> = {};
  let bytes: Uint8Array | undefined;
  let filename: string | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file')
        throw new ApiError(
          'validation_error',
          `${part.fieldname}: unexpected file field; send the template as "file".`,
        );
      // Read it here rather than with toBuffer(), which drains the whole request before it reports the limit: the
      // answer comes as soon as the limit is crossed, with a lingering close (../body-limits.ts).
      const file = part.file;
      file.once('limit', () =>
        file.destroy(
          Object.assign(new Error('request file too large'), { code: 'FST_REQ_FILE_TOO_LARGE', statusCode: 413 }),
        ),
      );
      // Read as a stream: a body that ends inside the part (no closing boundary) fails the reading.
      const chunks: Buffer[] = [];
      for await (const chunk of file) chunks.push(chunk as Buffer);
      const buffer = Buffer.concat(chunks);
      bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      filename = part.filename;
    } else {
      fields[part.fieldname] = String(part.value);
    }
  }
  return { bytes, fields, filename };
}

/**
 * The text fields of an upload (name, description), checked by the JSON validator against TemplateFieldsSchema:
 * the same rules and messages as the same fields in PATCH. An empty field, as a form sends it, is absent.
 */
function uploadFields(
  request: FastifyRequest,
  fields: Record<string, string>,
): { name?: string; description?: string } {
  const present: { name?: string; description?: string } = {};
  for (const key of ['name', 'description'] as const) {
    const value = fields[key]?.trim();
    if (value) present[key] = value;
  }
  const validate = request.compileValidationSchema(TemplateFieldsSchema);
  if (!validate(present)) {
    // Thrown as Fastify's own validation errors are, so the one error handler words both alike.
    throw Object.assign(new Error('validation'), {
      validation: validate.errors ?? [],
      validationContext: 'body',
      statusCode: 400,
    });
  }
  return present;
}

/** Templates: list, upload, read, styles, download, rename, replace the file (version + 1), delete. */
export async function templateRoutes(app: FastifyInstance): Promise<void> {
  const services = app.services;

  app.get(
    '/api/v1/templates',
    {
      ...access('api'),
      schema: {
        summary: 'Templates (oldest first; the built-in one first)',
        response: { 200: Type.Array(Type.Ref('Template')), ...ERROR_RESPONSES },
      },
    },
    async () => services.store.listTemplates().map((t) => templateOut(t, services.store.listMappings(t.id))),
  );

  app.post(
    '/api/v1/templates',
    {
      config: { ...access('api').config, upload: TEMPLATE_UPLOAD },
      schema: {
        summary: 'Upload a .docx template',
        consumes: ['multipart/form-data'],
        response: { 201: Type.Ref('Template'), ...ERROR_RESPONSES },
      } as never,
    },
    async (request, reply) => {
      const { bytes, fields, filename } = await readUpload(request);
      const given = uploadFields(request, fields);
      if (!bytes) throw new ApiError('validation_error', 'file is required (the .docx template)');
      const record = await addTemplate(services, bytes, { ...given, filename });
      return reply.status(201).send(templateOut(record, services.store.listMappings(record.id)));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/templates/:id',
    {
      ...access('api'),
      schema: {
        summary: 'A template',
        params: IdParamsSchema,
        response: { 200: Type.Ref('Template'), ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const t = findTemplate(services, request.params.id);
      return templateOut(t, services.store.listMappings(t.id));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/templates/:id/styles',
    {
      ...access('api'),
      schema: {
        summary: "A template's styles (the names a mapping uses)",
        params: IdParamsSchema,
        response: { 200: Type.Array(Type.Ref('TemplateStyle')), ...ERROR_RESPONSES },
      },
    },
    async (request) => templateStyles(services, request.params.id),
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/templates/:id/suggested-rules',
    {
      ...access('api'),
      schema: {
        summary:
          "Mapping rules matched to the template's styles by name (what a new template's mapping gets; pre-fills a new mapping)",
        params: IdParamsSchema,
        response: {
          200: Type.Object({
            rules: Type.Ref('Rules'),
            matched: Type.Integer({ minimum: 0 }),
            of: Type.Integer({ minimum: 1 }),
          }),
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request) => suggestedRules(services, request.params.id),
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/templates/:id/download',
    {
      ...access('api'),
      schema: {
        summary: "The template's .docx",
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
      const t = findTemplate(services, request.params.id);
      const bytes = await services.store.templateBytes(t);
      reply.header('Content-Type', DOCX_TYPE).header('Content-Disposition', contentDisposition(`${t.name}.docx`));
      return reply.send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    },
  );

  app.patch<{ Params: { id: string }; Body: { name?: string; description?: string } }>(
    '/api/v1/templates/:id',
    {
      ...access('api'),
      schema: {
        summary: 'Rename a template or change its description (version + 1)',
        params: IdParamsSchema,
        body: Type.Ref('TemplatePatch'),
        response: { 200: Type.Ref('Template'), ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const t = await updateTemplate(services, request.params.id, request.body);
      return templateOut(t, services.store.listMappings(t.id));
    },
  );

  app.put<{ Params: { id: string } }>(
    '/api/v1/templates/:id/file',
    {
      config: { ...access('api').config, upload: TEMPLATE_UPLOAD },
      schema: {
        summary: "Replace a template's .docx (version + 1)",
        consumes: ['multipart/form-data'],
        params: IdParamsSchema,
        response: { 200: Type.Ref('Template'), ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      // Refused before its body is read: neither the built-in template nor a managed one can be replaced.
      const t = editableTemplate(services, request.params.id);
      const { bytes, fields } = await readUpload(request);
      const given = uploadFields(request, fields);
      if (!bytes) throw new ApiError('validation_error', 'file is required (the .docx template)');
      const updated = await replaceTemplateFile(services, t, bytes, given);
      return templateOut(updated, services.store.listMappings(updated.id));
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v1/templates/:id',
    {
      ...access('api'),
      schema: {
        summary: 'Delete a template and its mappings',
        params: IdParamsSchema,
        response: { 204: Type.Null(), ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      await deleteTemplate(services, request.params.id);
      return reply.status(204).send();
    },
  );
}
