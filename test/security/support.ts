// Shared set-up of the security tests: a fresh data directory, store and app (contract tests through `inject`),
// an API key, and helpers to send JSON and multipart requests.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../../server/store/store.ts';

export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const PORT = 47824;
const HOST = `127.0.0.1:${PORT}`;
export const ADMIN = { 'x-docwright-admin': 'admin-token-for-security-tests' };
export const builtin = { template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID };

export type Headers = Record<string, string>;

export interface Env {
  app: FastifyInstance;
  store: Store;
  dir: string;
  /** Bearer header of a fresh API key. */
  auth: Headers;
  send: (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    headers?: Headers,
    payload?: unknown,
  ) => Promise<LightMyRequestResponse>;
  close: () => Promise<void>;
}

/** A fresh data directory with a team-plan store (API access), the app on it, and an API key. */
export async function openEnv(): Promise<Env> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-security-'));
  const store = await Store.open(dir);
  await store.updateSettings({ plan: 'team' });
  const app = await buildApp({ store, secret: randomBytes(32), adminToken: ADMIN['x-docwright-admin'], port: PORT });
  await app.ready();
  const send: Env['send'] = (method, url, headers = {}, payload) => {
    const options: InjectOptions = { method, url, headers: { host: HOST, ...headers } };
    if (payload !== undefined) options.payload = payload as InjectOptions['payload'];
    return app.inject(options);
  };
  const created = await send('POST', '/api/settings/api-keys', ADMIN, { name: 'security' });
  expect(created.statusCode, created.body).toBe(201);
  const auth = { authorization: `Bearer ${created.json<{ key: string }>().key}` };
  return {
    app,
    store,
    dir,
    auth,
    send,
    close: async () => {
      await app.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A multipart/form-data body built by the platform's FormData (fields, then an optional `file`). */
export async function multipart(
  fields: Record<string, string>,
  file?: { bytes: Uint8Array; name: string },
): Promise<{ payload: Buffer; headers: Headers }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([new Uint8Array(file.bytes)], { type: DOCX }), file.name);
  const response = new Response(form);
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    headers: { 'content-type': response.headers.get('content-type') ?? '' },
  };
}

/** Checks the error envelope with its status and code; returns the message. */
export function expectError(res: LightMyRequestResponse, status: number, code: string): string {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json<{ error: { code: string; message: string } }>();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  return body.error.message;
}
