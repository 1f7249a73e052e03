import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { MappingRules } from '../../convert/index.ts';
import type { MappingRecord } from '../../store/database.ts';
import { ApiError } from '../../errors.ts';
import { IdParamsSchema, ERROR_RESPONSES, type MappingCreate } from '../schemas/index.ts';
import { access } from '../access.ts';

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
  };
}

const managedMessage = (name: string) =>
  `The mapping "${name}" is managed by your organisation; it cannot be changed or deleted here. Create your own to change it.`;

/** Style mappings: list (optionally of one template), create, read, update (version + 1), delete. */
export async function mappingRoutes(app: FastifyInstance): Promise<void> {
  const store = app.services.store;
  const find = (id: string) => {
    const m = store.getMapping(id);
    if (!m) throw new ApiError('not_found', `Mapping ${id} not found.`);
    return m;
  };

  app.get<{ Querystring: { template_id?: string } }>(
    '/api/v1/mappings',
    {
      ...access('api'),
      schema: {
        summary: 'Style mappings',
        querystring: Type.Object({
          template_id: Type.Optional(
            Type.String({ format: 'uuid', description: 'Only the mappings of this template' }),
          ),
        }),
        response: { 200: Type.Array(Type.Ref('Mapping')), ...ERROR_RESPONSES },
      },
    },
    async (request) => store.listMappings(request.query.template_id).map(mappingOut),
  );

  app.post<{ Body: MappingCreate }>(
    '/api/v1/mappings',
    {
      ...access('api'),
      schema: {
        summary: 'Create a mapping; unknown style names come back as warnings',
        body: Type.Ref('MappingCreate'),
        response: { 201: Type.Ref('MappingWithWarnings'), ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { mapping, warnings } = await app.services.createMapping({
        ...request.body,
        rules: request.body.rules as MappingRules,
      });
      return reply.status(201).send({ ...mappingOut(mapping), warnings });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/mappings/:id',
    {
      ...access('api'),
      schema: {
        summary: 'A mapping',
        params: IdParamsSchema,
        response: { 200: Type.Ref('Mapping'), ...ERROR_RESPONSES },
      },
    },
    async (request) => mappingOut(find(request.params.id)),
  );

  app.patch<{ Params: { id: string }; Body: { name?: string; rules?: MappingRules } }>(
    '/api/v1/mappings/:id',
    {
      ...access('api'),
      schema: {
        summary: 'Rename a mapping or replace its rules (version + 1)',
        params: IdParamsSchema,
        body: Type.Ref('MappingPatch'),
        response: { 200: Type.Ref('MappingWithWarnings'), ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const m = find(request.params.id);
      if (m.builtin) throw new ApiError('forbidden', 'The built-in mapping cannot be changed; create your own.');
      if (m.managed) throw new ApiError('forbidden', managedMessage(m.name));
      const rules = request.body.rules ?? m.rules;
      const warnings = await app.services.mappingWarnings(m.template_id, rules);
      const updated = await store.updateMapping(m.id, {
        ...request.body,
        rules,
        version: m.version + 1,
        updated_at: app.services.now().toISOString(),
      });
      return { ...mappingOut(updated ?? m), warnings };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v1/mappings/:id',
    {
      ...access('api'),
      schema: {
        summary: 'Delete a mapping',
        params: IdParamsSchema,
        response: { 204: Type.Null(), ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const m = find(request.params.id);
      if (m.builtin) throw new ApiError('forbidden', 'The built-in mapping cannot be deleted.');
      if (m.managed) throw new ApiError('forbidden', managedMessage(m.name));
      await store.deleteMapping(m.id);
      return reply.status(204).send();
    },
  );
}
