import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { MappingRules } from '../../convert/index.ts';
import { mappingOut } from '../../services/present.ts';
import { deleteMapping, findMapping, updateMapping } from '../../services/templates.ts';
import { IdParamsSchema, ERROR_RESPONSES, type MappingCreate } from '../../schemas/index.ts';
import { access } from '../../web/access.ts';

/** Style mappings: list (optionally of one template), create, read, update (version + 1), delete. */
export async function mappingRoutes(app: FastifyInstance): Promise<void> {
  const services = app.services;

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
    async (request) => services.store.listMappings(request.query.template_id).map(mappingOut),
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
      const { mapping, warnings } = await services.createMapping({
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
    async (request) => mappingOut(findMapping(services, request.params.id)),
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
      const { mapping, warnings } = await updateMapping(services, request.params.id, request.body);
      return { ...mappingOut(mapping), warnings };
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
      await deleteMapping(services, request.params.id);
      return reply.status(204).send();
    },
  );
}
