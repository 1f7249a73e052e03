import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ApiKeyRecord } from '../../store/database.ts';
import { ApiError } from '../../errors.ts';
import { IdParamsSchema, ERROR_RESPONSES } from '../../schemas/index.ts';
import { access } from '../../web/access.ts';

/** An API key as listed: never the secret. */
export function keyOut(k: ApiKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    key_prefix: k.key_prefix,
    created_at: k.created_at,
    last_used_at: k.last_used_at,
    revoked_at: k.revoked_at,
  };
}

/** API keys in the settings area: create (the key is shown once), list, revoke. */
export async function apiKeyRoutes(app: FastifyInstance): Promise<void> {
  const store = app.services.store;
  const secret = app.authenticator.keySecret;

  app.post<{ Body: { name: string } }>(
    '/api/settings/api-keys',
    {
      ...access('owner'),
      schema: {
        summary: 'Create an API key; the full key appears only in this response',
        body: Type.Ref('ApiKeyCreate'),
        response: { 201: Type.Ref('ApiKeyCreated'), ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { record, key } = await app.services.createApiKey(request.body.name, secret);
      // The only response that ever holds the key: no cache may keep it.
      return reply
        .status(201)
        .header('Cache-Control', 'no-store')
        .send({ id: record.id, name: record.name, key, key_prefix: record.key_prefix, created_at: record.created_at });
    },
  );

  app.get(
    '/api/settings/api-keys',
    {
      ...access('owner'),
      schema: {
        summary: 'API keys (never their secrets)',
        response: { 200: Type.Array(Type.Ref('ApiKey')), ...ERROR_RESPONSES },
      },
    },
    async () => store.listKeys().map(keyOut),
  );

  app.delete<{ Params: { id: string } }>(
    '/api/settings/api-keys/:id',
    {
      ...access('owner'),
      schema: {
        summary: 'Revoke an API key (effective on the very next request)',
        params: IdParamsSchema,
        response: { 200: Type.Ref('ApiKey'), ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const record = await store.revokeKey(request.params.id, app.services.now());
      if (!record) throw new ApiError('not_found', `API key ${request.params.id} not found.`);
      return keyOut(record);
    },
  );
}
