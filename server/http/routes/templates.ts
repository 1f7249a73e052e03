import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TemplateRecord } from '../../store/database.ts';
import type { TemplateStyle } from '../../convert/index.ts';
import { PLAN_LIMITS } from '../../services.ts';
import { wellFormed } from '../../names.ts';
import { ApiError } from '../../errors.ts';
import { IdParamsSchema, ERROR_RESPONSES, TemplateFieldsSchema, type TemplateOut } from '../schemas/index.ts';
import { contentDisposition, DOCX_TYPE } from './conversions.ts';
import { access } from '../access.ts';
import { upload } from '../body-limits.ts';
import { multipartError } from '../multipart-errors.ts';
import { AUTO_MAPPING_NAME, matchedCount, suggestRules } from '../../convert/auto-mapping.ts';
import { TEMPLATE_LIMIT } from '../../limits.ts';

/** Largest template upload: the .docx and its text fields. */
const TEMPLATE_UPLOAD = upload(
  TEMPLATE_LIMIT,
  `a template upload (a ${TEMPLATE_LIMIT / 1024 / 1024} MB .docx and its fields)`,
);

/** The template as the API shows it. */
export function templateOut(t: TemplateRecord): TemplateOut {
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
  };
}

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

/** The name of a template uploaded without one: its file's, made to fit the rules of a name. */
function nameFromFile(filename: string | undefined): string {
  const base = wellFormed((filename ?? '').replace(/\.do[ct]x$/i, ''))
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .trim()
    .slice(0, 200);
  return base || 'Template';
}

/** Templates: list, upload, read, styles, download, rename, replace the file (version + 1), delete. */
export async function templateRoutes(app: FastifyInstance): Promise<void> {
  const store = app.services.store;
  /** A template that is not stored (never was, or deleted by another request while this one waited). */
  const gone = (id: string): never => {
    throw new ApiError('not_found', `Template ${id} not found.`);
  };
  const find = (id: string) => store.getTemplate(id) ?? gone(id);
  // Stored directly: its rules name only styles just read from the template, so there is nothing to check (and the
  // template is not read a second time).
  const addMatchedMapping = async (templateId: string, styles: readonly TemplateStyle[]) => {
    const at = app.services.now().toISOString();
    await store.addMapping({
      id: randomUUID(),
      name: AUTO_MAPPING_NAME,
      template_id: templateId,
      version: 1,
      rules: suggestRules(styles),
      created_at: at,
      updated_at: at,
      builtin: false,
      managed: false,
    });
  };
  const editable = (id: string) => {
    const t = find(id);
    if (t.builtin)
      throw new ApiError('forbidden', 'The built-in template cannot be changed or deleted; upload your own.');
    if (t.managed)
      throw new ApiError(
        'forbidden',
        `The template "${t.name}" is managed by your organisation; it cannot be changed or deleted here. Upload your own to change it.`,
      );
    return t;
  };

  app.get(
    '/api/v1/templates',
    {
      ...access('api'),
      schema: {
        summary: 'Templates (oldest first; the built-in one first)',
        response: { 200: Type.Array(Type.Ref('Template')), ...ERROR_RESPONSES },
      },
    },
    async () => store.listTemplates().map(templateOut),
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
      const name = given.name ?? nameFromFile(filename);
      const description = given.description ?? '';
      // Read, checked and sanitised in a worker; the clean bytes are what is stored.
      const inspected = await app.services.checkTemplate(bytes);
      const limit = PLAN_LIMITS[store.settings().plan].templates;
      const own = store.listTemplates().filter((t) => !t.builtin && !t.managed).length; // the organisation's do not count
      if (limit !== null && own >= limit)
        throw new ApiError('forbidden', `Your plan allows ${limit} templates; delete one or change the plan.`);
      const at = app.services.now().toISOString();
      const record = await store.addTemplate(
        {
          id: randomUUID(),
          name,
          description,
          version: 1,
          created_at: at,
          updated_at: at,
          warnings: inspected.warnings,
        },
        inspected.bytes,
      );
      // A template converts at once: a mapping matched by style name comes with it (docs/auto-mapping.md).
      await addMatchedMapping(record.id, inspected.styles);
      return reply.status(201).send(templateOut(record));
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
    async (request) => templateOut(find(request.params.id)),
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
    async (request) =>
      (await app.services.template(find(request.params.id))).styles.map(({ name, id, type }) => ({ name, id, type })),
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
    async (request) => {
      const rules = suggestRules((await app.services.template(find(request.params.id))).styles);
      return { rules, ...matchedCount(rules) };
    },
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
      const t = find(request.params.id);
      const bytes = await store.templateBytes(t);
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
      const t = editable(request.params.id);
      const patch = { ...request.body, version: t.version + 1, updated_at: app.services.now().toISOString() };
      return templateOut((await store.updateTemplate(t.id, patch)) ?? gone(t.id));
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
      const t = editable(request.params.id);
      const { bytes, fields } = await readUpload(request);
      const { name, description } = uploadFields(request, fields);
      if (!bytes) throw new ApiError('validation_error', 'file is required (the .docx template)');
      const inspected = await app.services.checkTemplate(bytes);
      const patch = {
        ...(name ? { name } : {}),
        ...(description !== undefined ? { description } : {}),
        version: t.version + 1,
        updated_at: app.services.now().toISOString(),
        warnings: inspected.warnings,
      };
      // Deleted while its new file was read: nothing is stored, and no mapping is made for it.
      const updated = (await store.updateTemplate(t.id, patch, inspected.bytes)) ?? gone(t.id);
      // The old version's bytes and reading, here and in every worker, are of no further use.
      app.services.forgetTemplate(t.id);
      // Existing mappings are the user's and stay as they are; a template left with none gets a matched one again.
      if (store.listMappings(t.id).length === 0) await addMatchedMapping(t.id, inspected.styles);
      return templateOut(updated);
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
      const t = editable(request.params.id);
      await store.deleteTemplate(t.id);
      app.services.forgetTemplate(t.id);
      return reply.status(204).send();
    },
  );
}
