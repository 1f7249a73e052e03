// A template deleted while another request about it waits (for its new file to be read, or to add a mapping):
// nothing of the late request is stored, it answers 404, and no mapping outlives its template (found by the attacker's
// review: a replaced file answered 200 with the stale record and left a mapping of the deleted template, which
// survived a restart).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTemplate } from '../../server/convert/index.ts';
import { DEFAULT_RULES } from '../../server/convert/default-template.ts';
import { expectError, multipart, openEnv, type Env } from './support.ts';

let env: Env;
beforeAll(async () => {
  env = await openEnv();
});
afterAll(async () => env?.close());

async function newTemplate(): Promise<string> {
  const upload = await multipart({ name: `t ${randomUUID()}` }, { bytes: defaultTemplate(), name: 't.docx' });
  const res = await env.send('POST', '/api/v1/templates', { ...env.auth, ...upload.headers }, upload.payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

describe('a template deleted while a request about it waits', () => {
  it('its file replaced meanwhile: 404, nothing stored, no mapping made for it', async () => {
    const id = await newTemplate();
    const upload = await multipart({}, { bytes: defaultTemplate(), name: 'v2.docx' });
    // Sent together: the delete is done while the new file is read in a worker.
    const [put, del] = await Promise.all([
      env.send('PUT', `/api/v1/templates/${id}/file`, { ...env.auth, ...upload.headers }, upload.payload),
      env.send('DELETE', `/api/v1/templates/${id}`, env.auth),
    ]);
    expect(del.statusCode, del.body).toBe(204);
    expectError(put, 404, 'not_found');
    expect(env.store.getTemplate(id)).toBeUndefined();
    expect(env.store.listMappings(id)).toEqual([]);
  });

  it('the store adds no mapping of a template it does not hold', async () => {
    const id = await newTemplate();
    expect(await env.send('DELETE', `/api/v1/templates/${id}`, env.auth)).toMatchObject({ statusCode: 204 });
    const at = new Date(0).toISOString();
    const added = await env.store.addMapping({
      id: randomUUID(),
      name: 'late',
      template_id: id,
      version: 1,
      rules: DEFAULT_RULES,
      created_at: at,
      updated_at: at,
      builtin: false,
      managed: false,
    });
    expect(added).toBeUndefined();
    expect(env.store.listMappings(id)).toEqual([]);
  });
});
