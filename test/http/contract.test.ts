// Contract tests of the HTTP API against ../shared/SPEC.md, through `app.inject` (the app never listens).
// Each describe is one SPEC.md section; the comments quote the rule a test checks. Where SPEC.md says
// "not shown", the test pins Docwright's own choice and says so.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../server/auth/keys.ts';
import { buildApp } from '../../server/app.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../../server/store/store.ts';
import { fixture, validateDocx } from '../helpers/docx.ts';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;
const PORT = 47823;
const HOST = `127.0.0.1:${PORT}`;
const ADMIN_TOKEN = 'admin-token-for-tests';
const UI_TOKEN = 'ui-token-for-tests';
const CORPORATE = fixture('templates', 'corporate.docx');

type Injected = LightMyRequestResponse;
type Headers = Record<string, string>;

/** A fresh data directory, store and app; `clock` is the app's `now` and can be moved forward. */
interface Env {
  app: FastifyInstance;
  store: Store;
  secret: Buffer;
  clock: { now: Date };
  close: () => Promise<void>;
}

async function openEnv(start = new Date('2026-03-10T09:00:00Z')): Promise<Env> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-contract-'));
  const store = await Store.open(dir);
  const secret = randomBytes(32);
  const clock = { now: start };
  const app = await buildApp({
    store,
    secret,
    adminToken: ADMIN_TOKEN,
    uiToken: UI_TOKEN,
    now: () => clock.now,
    port: PORT,
  });
  await app.ready();
  return {
    app,
    store,
    secret,
    clock,
    close: async () => {
      await app.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Moves the clock forward by `ms`. */
function tick(env: Env, ms = 1000): void {
  env.clock.now = new Date(env.clock.now.getTime() + ms);
}

const admin: Headers = { 'x-docwright-admin': ADMIN_TOKEN };
const bearer = (key: string): Headers => ({ authorization: `Bearer ${key}` });

function req(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  headers: Headers = {},
  payload?: unknown,
): Promise<Injected> {
  const options: InjectOptions = { method, url, headers: { host: HOST, ...headers } };
  if (payload !== undefined) options.payload = payload as InjectOptions['payload'];
  return app.inject(options);
}

/** POST /api/settings/api-keys with the CLI's admin token; returns the creation response. */
async function createKey(
  app: FastifyInstance,
  name = 'test',
): Promise<{ id: string; name: string; key: string; key_prefix: string; created_at: string }> {
  const res = await req(app, 'POST', '/api/settings/api-keys', admin, { name });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/**
 * A UI session from `GET /auth/session?token=…` (the id in the redirect's fragment, sent as X-Docwright-Session): the
 * launch's link works once, so each call asks for a fresh link as the owner (`docwright open` does the same).
 */
async function sessionHeader(app: FastifyInstance): Promise<Headers> {
  const link = await req(app, 'POST', '/api/settings/session-link', admin);
  expect(link.statusCode, link.body).toBe(200);
  const res = await req(app, 'GET', link.json<{ path: string }>().path);
  expect(res.statusCode).toBe(303);
  expect(res.headers['set-cookie']).toBeUndefined();
  const id = /^\/#session=([A-Za-z0-9_-]{20,})$/.exec(String(res.headers.location))?.[1];
  expect(id).toBeDefined();
  return { 'x-docwright-session': id ?? '' };
}

const builtin = { template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID };

function convert(app: FastifyInstance, headers: Headers, body: Record<string, unknown>): Promise<Injected> {
  return req(app, 'POST', '/api/v1/convert', headers, body);
}

/** A multipart/form-data body built by the platform's FormData (fields, then an optional `file`). */
async function multipart(
  fields: Record<string, string>,
  file?: { bytes: Uint8Array; name: string; type?: string },
): Promise<{ payload: Buffer; headers: Headers }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type ?? DOCX }), file.name);
  const response = new Response(form);
  const payload = Buffer.from(await response.arrayBuffer());
  return { payload, headers: { 'content-type': response.headers.get('content-type') ?? '' } };
}

async function upload(
  app: FastifyInstance,
  headers: Headers,
  method: 'POST' | 'PUT',
  url: string,
  fields: Record<string, string>,
  file?: { bytes: Uint8Array; name: string; type?: string },
): Promise<Injected> {
  const body = await multipart(fields, file);
  return req(app, method, url, { ...headers, ...body.headers }, body.payload);
}

/**
 * SPEC.md Errors: "Envelope for every error, JSON: error.code (string), error.message (string, human-readable)".
 * Checks status, code, a JSON content type and that the body is exactly `{ error: { code, message } }`.
 */
function expectError(
  res: Injected,
  status: number,
  code: string,
  messageNames?: string,
): { code: string; message: string } {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json(?:;|$)/);
  const body = res.json<{ error: { code: string; message: string } }>();
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  if (messageNames !== undefined) expect(body.error.message).toContain(messageNames);
  return body.error;
}

/** SPEC.md Resources, Conversion record: exactly these fields (the implementation adds template_id and mapping_id). */
const RECORD_FIELDS = ['conversion_id', 'status', 'filename', 'download_url', 'warnings', 'stats', 'created_at'];
// docs/api.md: provenance (key_name with an API key), size, warnings with their source lines.
const RECORD_EXTRAS = ['template_id', 'mapping_id', 'channel', 'key_name', 'size', 'warning_details'];
const STATS_FIELDS = ['headings', 'paragraphs', 'lists', 'tables', 'code_blocks', 'images'];

function expectConversionRecord(record: Record<string, unknown>): void {
  expect(Object.keys(record).sort()).toEqual([...RECORD_FIELDS, ...RECORD_EXTRAS].sort());
  // conversion_id: string (UUID)
  expect(record.conversion_id).toMatch(UUID);
  // status: "Value `completed` is the only one given"
  expect(record.status).toBe('completed');
  // filename: "Output filename including the `.docx` extension"
  expect(record.filename).toMatch(/\.docx$/);
  // download_url: "Relative path of the form `/api/v1/conversions/<conversion_id>/download`"
  expect(record.download_url).toBe(`/api/v1/conversions/${String(record.conversion_id)}/download`);
  // warnings: array of strings "`<warning_code>: <detail>`"
  expect(Array.isArray(record.warnings)).toBe(true);
  for (const w of record.warnings as unknown[]) expect(w).toMatch(/^[a-z_]+: .+/);
  // stats: "integer fields: headings, paragraphs, lists, tables, code_blocks, images"
  const stats = record.stats as Record<string, unknown>;
  expect(Object.keys(stats).sort()).toEqual([...STATS_FIELDS].sort());
  for (const f of STATS_FIELDS) expect(Number.isInteger(stats[f])).toBe(true);
  // created_at: "ISO 8601 UTC timestamp"
  expect(record.created_at).toMatch(ISO_UTC);
  expect(record.template_id).toMatch(UUID);
  expect(record.mapping_id).toMatch(UUID);
}

const SAMPLE =
  '# Title\n\nA paragraph with **bold**.\n\n## Part\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nlet x = 1;\n```\n\n![logo](logo.png)\n';

// ---------------------------------------------------------------------------------------------------------------------
// POST /api/v1/convert
// ---------------------------------------------------------------------------------------------------------------------
describe('SPEC.md Endpoints: POST /api/v1/convert', () => {
  let env: Env;
  let auth: Headers;
  let missingStyleMapping: string;

  beforeAll(async () => {
    env = await openEnv();
    auth = bearer((await createKey(env.app)).key);
    const res = await req(env.app, 'POST', '/api/v1/mappings', auth, {
      name: 'broken',
      template_id: BUILTIN_TEMPLATE_ID,
      rules: { paragraph: 'No Such Style' },
    });
    expect(res.statusCode, res.body).toBe(201);
    missingStyleMapping = res.json<{ id: string }>().id;
  });
  afterAll(() => env.close());

  describe('Rule 1: "When response_format is binary or omitted, the response body is the raw .docx bytes"', () => {
    it('200 with Content-Type exactly the docx type, Content-Disposition document.docx, X-Conversion-Id of a fetchable record, no X-Warnings, a valid docx', async () => {
      // Without the image: its placeholder is reported (image_placeholder), and this case has no warnings.
      const res = await convert(env.app, auth, { markdown: SAMPLE.replace('![logo](logo.png)\n', ''), ...builtin });
      expect(res.statusCode, res.body).toBe(200);
      // "Content-Type: application/vnd.openxmlformats-officedocument.wordprocessingml.document"
      expect(res.headers['content-type']).toBe(DOCX);
      // "Content-Disposition: Filename for the download"; filename "default `document`"
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="document\.docx"/);
      // "X-Conversion-Id: UUID of the conversion record"
      const id = res.headers['x-conversion-id'] as string;
      expect(id).toMatch(UUID);
      const record = await req(env.app, 'GET', `/api/v1/conversions/${id}`, auth);
      expect(record.statusCode).toBe(200);
      expect(record.json().conversion_id).toBe(id);
      // "X-Warnings: present only if there are warnings"
      expect(res.headers['x-warnings']).toBeUndefined();
      expect(res.rawPayload.subarray(0, 2).toString()).toBe('PK');
      const { ok, report } = await validateDocx(new Uint8Array(res.rawPayload));
      expect(ok, report).toBe(true);
    });

    it('response_format "binary" given explicitly is the same as omitted', async () => {
      const res = await convert(env.app, auth, { markdown: 'x', ...builtin, response_format: 'binary' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(DOCX);
    });

    it('filename: "Output filename without extension" → Content-Disposition <filename>.docx', async () => {
      const res = await convert(env.app, auth, { markdown: 'x', ...builtin, filename: 'quarterly-report' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="quarterly-report\.docx"/);
      const record = await req(env.app, 'GET', `/api/v1/conversions/${String(res.headers['x-conversion-id'])}`, auth);
      expect(record.json().filename).toBe('quarterly-report.docx');
    });

    it('X-Warnings is a JSON array of "code: detail" strings when the mapping names a missing style', async () => {
      const res = await convert(env.app, auth, {
        markdown: 'Some text.',
        template_id: BUILTIN_TEMPLATE_ID,
        mapping_id: missingStyleMapping,
      });
      expect(res.statusCode).toBe(200);
      const warnings = JSON.parse(res.headers['x-warnings'] as string) as unknown;
      expect(warnings).toEqual(['missing_style: No Such Style']);
      const { ok, report } = await validateDocx(new Uint8Array(res.rawPayload));
      expect(ok, report).toBe(true);
    });
  });

  describe('Rule 2: "When response_format is json, the response body is a conversion record … status equal to completed"', () => {
    it('returns the record with exactly the SPEC.md fields (plus template_id, mapping_id)', async () => {
      const res = await convert(env.app, auth, { markdown: SAMPLE, ...builtin, response_format: 'json' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const record = res.json<Record<string, unknown>>();
      expectConversionRecord(record);
      expect(record.filename).toBe('document.docx');
      // "Images: A placeholder text is inserted in place of the image", and said so (docs/api.md).
      expect(record.warnings).toEqual(['image_placeholder: logo']);
      expect(record.template_id).toBe(BUILTIN_TEMPLATE_ID);
      expect(record.mapping_id).toBe(BUILTIN_MAPPING_ID);
      expect(record.created_at).toBe(env.clock.now.toISOString());
      expect(record.stats).toEqual({
        headings: 2,
        paragraphs: expect.any(Number),
        lists: 1,
        tables: 1,
        code_blocks: 1,
        images: 1,
      });
      // "download_url points to the download endpoint"
      const download = await req(env.app, 'GET', record.download_url as string, auth);
      expect(download.statusCode).toBe(200);
      expect(download.headers['content-type']).toBe(DOCX);
    });

    it('the record carries the warnings of a missing style', async () => {
      const res = await convert(env.app, auth, {
        markdown: 'x',
        template_id: BUILTIN_TEMPLATE_ID,
        mapping_id: missingStyleMapping,
        response_format: 'json',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().warnings).toEqual(['missing_style: No Such Style']);
    });
  });

  describe('Rule 3: "When the body fails validation, the response is 422 validation_error"; "The message … names the offending field"', () => {
    it('markdown missing', async () => {
      expectError(await convert(env.app, auth, { ...builtin }), 422, 'validation_error', 'markdown');
    });
    it('markdown "" (minimum 1 character)', async () => {
      expectError(await convert(env.app, auth, { markdown: '', ...builtin }), 422, 'validation_error', 'markdown');
    });
    it('template_id not a UUID', async () => {
      expectError(
        await convert(env.app, auth, { markdown: 'x', template_id: 'corporate', mapping_id: BUILTIN_MAPPING_ID }),
        422,
        'validation_error',
        'template_id',
      );
    });
    it('mapping_id missing', async () => {
      expectError(
        await convert(env.app, auth, { markdown: 'x', template_id: BUILTIN_TEMPLATE_ID }),
        422,
        'validation_error',
        'mapping_id',
      );
    });
    it('response_format "pdf" (only binary or json); SPEC.md: "Response to … an unrecognised response_format value: not shown" — Docwright answers 422', async () => {
      expectError(
        await convert(env.app, auth, { markdown: 'x', ...builtin, response_format: 'pdf' }),
        422,
        'validation_error',
        'response_format',
      );
    });
    it('an extra unknown field', async () => {
      expectError(
        await convert(env.app, auth, { markdown: 'x', ...builtin, colour: 'red' }),
        422,
        'validation_error',
        'colour',
      );
    });
    it('markdown of the wrong type', async () => {
      expectError(await convert(env.app, auth, { markdown: 42, ...builtin }), 422, 'validation_error', 'markdown');
    });
  });

  describe('Rule 4: "When the template or mapping does not exist, the response is 404 not_found"', () => {
    it('unknown template (a valid UUID)', async () => {
      expectError(
        await convert(env.app, auth, { markdown: 'x', template_id: randomUUID(), mapping_id: BUILTIN_MAPPING_ID }),
        404,
        'not_found',
      );
    });
    it('unknown mapping (a valid UUID)', async () => {
      expectError(
        await convert(env.app, auth, { markdown: 'x', template_id: BUILTIN_TEMPLATE_ID, mapping_id: randomUUID() }),
        404,
        'not_found',
      );
    });
  });

  describe('Request body: "JSON, Content-Type: application/json" (malformed JSON, other types, size: "not shown" — Docwright\'s choices)', () => {
    it('malformed JSON → 400 bad_request', async () => {
      const res = await req(
        env.app,
        'POST',
        '/api/v1/convert',
        { ...auth, 'content-type': 'application/json' },
        '{"markdown": "x",',
      );
      expectError(res, 400, 'bad_request');
    });
    it('text/plain → 415 unsupported_media_type', async () => {
      const res = await req(env.app, 'POST', '/api/v1/convert', { ...auth, 'content-type': 'text/plain' }, '# hello');
      expectError(res, 415, 'unsupported_media_type');
    });
    it('a body over the limit (11 MB of markdown) → 413 payload_too_large', async () => {
      const res = await convert(env.app, auth, { markdown: 'a'.repeat(11 * 1024 * 1024), ...builtin });
      expectError(res, 413, 'payload_too_large');
    });
  });

  describe('Content-Disposition "Filename for the download" is safe for any requested filename', () => {
    const dispositionOf = async (filename: string) => {
      const res = await convert(env.app, auth, { markdown: 'x', ...builtin, filename });
      expect(res.statusCode, res.body).toBe(200);
      const header = res.headers['content-disposition'] as string;
      // One header line: no CR/LF; the quoted fallback holds no quote, backslash, or path separator.
      expect(header).not.toMatch(/[\r\n]/);
      const match = /^attachment; filename="([^"\\]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]+)$/.exec(header);
      expect(match, header).not.toBeNull();
      const [, ascii = '', encoded = ''] = match ?? [];
      expect(ascii).toMatch(/^[\x20-\x7e]+\.docx$/);
      expect(ascii).not.toMatch(/[/\\]/);
      const decoded = decodeURIComponent(encoded);
      expect(decoded).not.toMatch(/[/\\\u0000-\u001f]/);
      expect(decoded).toMatch(/\.docx$/);
      return { header, ascii, decoded };
    };

    it('quotes', async () => {
      const { ascii, decoded } = await dispositionOf('say "hi"');
      expect(ascii).not.toContain('"');
      expect(decoded).toBe('say "hi".docx');
    });
    it('a newline ("a\\nb") is refused: 422 validation_error naming filename (issue 12: control characters in names)', async () => {
      expectError(
        await convert(env.app, auth, { markdown: 'x', ...builtin, filename: 'a\nb' }),
        422,
        'validation_error',
        'filename',
      );
    });
    it('path separators ("../../etc/passwd")', async () => {
      const { header, decoded } = await dispositionOf('../../etc/passwd');
      expect(header).not.toContain('/');
      expect(decoded).not.toContain('/');
    });
    it('backslashes ("..\\\\windows\\\\win.ini")', async () => {
      const { header } = await dispositionOf('..\\windows\\win.ini');
      expect(header).not.toContain('\\');
    });
    it('non-ASCII ("résumé" → filename*=UTF-8\'\'r%C3%A9sum%C3%A9.docx)', async () => {
      const { header, decoded } = await dispositionOf('résumé');
      expect(header).toContain("filename*=UTF-8''r%C3%A9sum%C3%A9.docx");
      expect(decoded).toBe('résumé.docx');
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// Conversion records: GET /api/v1/conversions/:id, GET …/download (and Docwright's list and delete)
// ---------------------------------------------------------------------------------------------------------------------
describe('SPEC.md Endpoints: GET /api/v1/conversions/:id and GET /api/v1/conversions/:id/download', () => {
  let env: Env;
  let auth: Headers;

  beforeAll(async () => {
    env = await openEnv();
    auth = bearer((await createKey(env.app)).key);
  });
  afterAll(() => env.close());

  it('GET /api/v1/conversions/:id: "Response: a conversion record (JSON)"', async () => {
    const made = await convert(env.app, auth, {
      markdown: SAMPLE,
      ...builtin,
      filename: 'rec',
      response_format: 'json',
    });
    const created = made.json<Record<string, unknown>>();
    const res = await req(env.app, 'GET', `/api/v1/conversions/${String(created.conversion_id)}`, auth);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectConversionRecord(res.json());
    expect(res.json()).toEqual(created);
  });

  it('"Unknown conversion: 404 not_found" (a valid UUID, and an id that is not a UUID)', async () => {
    expectError(await req(env.app, 'GET', `/api/v1/conversions/${randomUUID()}`, auth), 404, 'not_found');
    expectError(await req(env.app, 'GET', '/api/v1/conversions/not-a-uuid', auth), 404, 'not_found');
  });

  it('GET …/download: "the .docx bytes of that conversion" (equal to the convert response), with docx Content-Type and Content-Disposition', async () => {
    const made = await convert(env.app, auth, { markdown: SAMPLE, ...builtin, filename: 'bytes' });
    const id = made.headers['x-conversion-id'] as string;
    const res = await req(env.app, 'GET', `/api/v1/conversions/${id}/download`, auth);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(DOCX);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="bytes\.docx"/);
    expect(Buffer.compare(res.rawPayload, made.rawPayload)).toBe(0);
  });

  it('GET …/download of an unknown conversion: 404 not_found', async () => {
    expectError(await req(env.app, 'GET', `/api/v1/conversions/${randomUUID()}/download`, auth), 404, 'not_found');
    expectError(await req(env.app, 'GET', '/api/v1/conversions/nope/download', auth), 404, 'not_found');
  });

  it('GET /api/v1/conversions (Docwright: not in SPEC.md) lists newest first with offset and limit', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      tick(env);
      const res = await convert(env.app, auth, { markdown: `n${i}`, ...builtin, filename: `list-${i}` });
      ids.push(res.headers['x-conversion-id'] as string);
    }
    const all = await req(env.app, 'GET', '/api/v1/conversions', auth);
    expect(all.statusCode).toBe(200);
    const body = all.json<{
      items: Array<{ conversion_id: string; created_at: string }>;
      total: number;
      offset: number;
      limit: number;
    }>();
    expect(body.items.slice(0, 3).map((c) => c.conversion_id)).toEqual([...ids].reverse());
    for (let i = 1; i < body.items.length; i++)
      expect(Date.parse(body.items[i - 1]?.created_at ?? '') >= Date.parse(body.items[i]?.created_at ?? '')).toBe(true);
    for (const item of body.items) expectConversionRecord(item);
    expect(body.total).toBe(body.items.length);
    const page = await req(env.app, 'GET', '/api/v1/conversions?offset=1&limit=1', auth);
    expect(page.statusCode).toBe(200);
    expect(page.json()).toMatchObject({ offset: 1, limit: 1, total: body.total });
    expect(page.json().items.map((c: { conversion_id: string }) => c.conversion_id)).toEqual([ids[1]]);
    expectError(await req(env.app, 'GET', '/api/v1/conversions?limit=0', auth), 422, 'validation_error', 'limit');
  });

  it('DELETE /api/v1/conversions/:id (Docwright: not in SPEC.md) → 204, then the record and its download are 404', async () => {
    const made = await convert(env.app, auth, { markdown: 'x', ...builtin });
    const id = made.headers['x-conversion-id'] as string;
    const res = await req(env.app, 'DELETE', `/api/v1/conversions/${id}`, auth);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectError(await req(env.app, 'GET', `/api/v1/conversions/${id}`, auth), 404, 'not_found');
    expectError(await req(env.app, 'GET', `/api/v1/conversions/${id}/download`, auth), 404, 'not_found');
    expectError(await req(env.app, 'DELETE', `/api/v1/conversions/${id}`, auth), 404, 'not_found');
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------------------------------------------------
describe('SPEC.md Endpoints: GET /api/v1/templates; Resources: Template; Versioning', () => {
  let env: Env;
  let auth: Headers;
  let uploaded: Record<string, unknown>;

  beforeAll(async () => {
    env = await openEnv();
    auth = bearer((await createKey(env.app)).key);
  });
  afterAll(() => env.close());

  const expectTemplate = (t: Record<string, unknown>) => {
    // "id (UUID), name, description, version (integer), created_at, updated_at (ISO 8601 UTC)"
    expect(t.id).toMatch(UUID);
    expect(typeof t.name).toBe('string');
    expect(typeof t.description).toBe('string');
    expect(Number.isInteger(t.version)).toBe(true);
    expect(t.created_at).toMatch(ISO_UTC);
    expect(t.updated_at).toMatch(ISO_UTC);
  };

  it('"Response: JSON array of template objects"; the built-in template is listed', async () => {
    const res = await req(env.app, 'GET', '/api/v1/templates', auth);
    expect(res.statusCode).toBe(200);
    const list = res.json<Array<Record<string, unknown>>>();
    expect(Array.isArray(list)).toBe(true);
    for (const t of list) expectTemplate(t);
    expect(list.map((t) => t.id)).toContain(BUILTIN_TEMPLATE_ID);
  });

  it('uploading corporate.docx (multipart) → 201, "a newly created template shows 1"', async () => {
    tick(env);
    const res = await upload(
      env.app,
      auth,
      'POST',
      '/api/v1/templates',
      { name: 'Corporate', description: 'ACME house style' },
      { bytes: CORPORATE, name: 'corporate.docx' },
    );
    expect(res.statusCode, res.body).toBe(201);
    uploaded = res.json();
    expectTemplate(uploaded);
    expect(uploaded).toMatchObject({
      name: 'Corporate',
      description: 'ACME house style',
      version: 1,
      created_at: env.clock.now.toISOString(),
      updated_at: env.clock.now.toISOString(),
    });
    const list = (await req(env.app, 'GET', '/api/v1/templates', auth)).json<Array<{ id: string }>>();
    expect(list.map((t) => t.id)).toContain(uploaded.id);
  });

  it('GET /api/v1/templates/:id returns it; unknown → 404 not_found', async () => {
    const res = await req(env.app, 'GET', `/api/v1/templates/${String(uploaded.id)}`, auth);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(uploaded);
    expectError(await req(env.app, 'GET', `/api/v1/templates/${randomUUID()}`, auth), 404, 'not_found');
  });

  it('GET /api/v1/templates/:id/styles lists "Corp Body" (paragraph) and "Corp Table" (table)', async () => {
    const res = await req(env.app, 'GET', `/api/v1/templates/${String(uploaded.id)}/styles`, auth);
    expect(res.statusCode).toBe(200);
    const styles = res.json<Array<{ name: string; type: string }>>();
    expect(styles).toContainEqual(expect.objectContaining({ name: 'Corp Body', type: 'paragraph' }));
    expect(styles).toContainEqual(expect.objectContaining({ name: 'Corp Table', type: 'table' }));
  });

  it('PUT /api/v1/templates/:id/file: "version … increases as the template changes" → 2, updated_at changes', async () => {
    tick(env, 60_000);
    const res = await upload(
      env.app,
      auth,
      'PUT',
      `/api/v1/templates/${String(uploaded.id)}/file`,
      {},
      { bytes: fixture('templates', 'corporate-nobody.docx'), name: 'corporate-nobody.docx' },
    );
    expect(res.statusCode, res.body).toBe(200);
    const t = res.json<Record<string, unknown>>();
    expect(t.version).toBe(2);
    expect(t.created_at).toBe(uploaded.created_at);
    expect(t.updated_at).not.toBe(uploaded.updated_at);
    expect(Date.parse(t.updated_at as string)).toBeGreaterThan(Date.parse(uploaded.updated_at as string));
    uploaded = t;
  });

  it('PATCH name → version + 1', async () => {
    tick(env);
    const res = await req(env.app, 'PATCH', `/api/v1/templates/${String(uploaded.id)}`, auth, {
      name: 'Corporate 2026',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Corporate 2026', version: (uploaded.version as number) + 1 });
    uploaded = res.json();
  });

  it('a non-docx upload → 422 validation_error naming file', async () => {
    const bytes = new TextEncoder().encode('this is not a zip');
    const res = await upload(env.app, auth, 'POST', '/api/v1/templates', { name: 'bad' }, { bytes, name: 'bad.docx' });
    expectError(res, 422, 'validation_error', 'file');
    const replace = await upload(
      env.app,
      auth,
      'PUT',
      `/api/v1/templates/${String(uploaded.id)}/file`,
      {},
      { bytes, name: 'bad.docx' },
    );
    expectError(replace, 422, 'validation_error', 'file');
    const noFile = await upload(env.app, auth, 'POST', '/api/v1/templates', { name: 'nothing' });
    expectError(noFile, 422, 'validation_error', 'file');
  });

  it('the built-in template cannot be deleted (403) and stays listed', async () => {
    expectError(await req(env.app, 'DELETE', `/api/v1/templates/${BUILTIN_TEMPLATE_ID}`, auth), 403, 'forbidden');
    const list = (await req(env.app, 'GET', '/api/v1/templates', auth)).json<Array<{ id: string }>>();
    expect(list.map((t) => t.id)).toContain(BUILTIN_TEMPLATE_ID);
  });

  it('DELETE /api/v1/templates/:id → 204, then 404', async () => {
    const res = await req(env.app, 'DELETE', `/api/v1/templates/${String(uploaded.id)}`, auth);
    expect(res.statusCode).toBe(204);
    expectError(await req(env.app, 'GET', `/api/v1/templates/${String(uploaded.id)}`, auth), 404, 'not_found');
    const list = (await req(env.app, 'GET', '/api/v1/templates', auth)).json<Array<{ id: string }>>();
    expect(list.map((t) => t.id)).not.toContain(uploaded.id);
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// Style mappings
// ---------------------------------------------------------------------------------------------------------------------
describe('SPEC.md Endpoints: GET /api/v1/mappings; Resources: Style mapping', () => {
  let env: Env;
  let auth: Headers;
  let templateId: string;
  let mapping: Record<string, unknown>;

  beforeAll(async () => {
    env = await openEnv();
    auth = bearer((await createKey(env.app)).key);
    const res = await upload(
      env.app,
      auth,
      'POST',
      '/api/v1/templates',
      { name: 'Corporate' },
      { bytes: CORPORATE, name: 'corporate.docx' },
    );
    expect(res.statusCode, res.body).toBe(201);
    templateId = res.json<{ id: string }>().id;
  });
  afterAll(() => env.close());

  const expectMapping = (m: Record<string, unknown>) => {
    // "id (UUID), name, template_id (UUID), version (integer), rules (object), created_at, updated_at"
    expect(m.id).toMatch(UUID);
    expect(typeof m.name).toBe('string');
    expect(m.template_id).toMatch(UUID);
    expect(Number.isInteger(m.version)).toBe(true);
    expect(typeof m.rules).toBe('object');
    expect(m.created_at).toMatch(ISO_UTC);
    expect(m.updated_at).toMatch(ISO_UTC);
  };

  it('"Response: JSON array of style mapping objects"; the built-in mapping is listed', async () => {
    const res = await req(env.app, 'GET', '/api/v1/mappings', auth);
    expect(res.statusCode).toBe(200);
    const list = res.json<Array<Record<string, unknown>>>();
    expect(Array.isArray(list)).toBe(true);
    for (const m of list) expectMapping(m);
    expect(list.find((m) => m.id === BUILTIN_MAPPING_ID)).toMatchObject({ template_id: BUILTIN_TEMPLATE_ID });
  });

  it('POST /api/v1/mappings with a rule naming a missing style → 201 with warnings ["missing_style: …"]', async () => {
    const rules = {
      heading: { '1': 'heading 1' },
      paragraph: 'Corp Body',
      blockquote: 'Corp Quote',
      code_block: 'Corp Code',
      list_bullet: 'Missing Bullet',
      table: { style: 'Corp Table', header_row: true },
    };
    const res = await req(env.app, 'POST', '/api/v1/mappings', auth, {
      name: 'Corporate',
      template_id: templateId,
      rules,
    });
    expect(res.statusCode, res.body).toBe(201);
    mapping = res.json();
    expectMapping(mapping);
    expect(mapping).toMatchObject({
      name: 'Corporate',
      template_id: templateId,
      version: 1,
      rules,
      warnings: ['missing_style: Missing Bullet'],
    });
  });

  it('"template_id: Return only mappings of this template"', async () => {
    const mine = (await req(env.app, 'GET', `/api/v1/mappings?template_id=${templateId}`, auth)).json<
      Array<{
        id: string;
        template_id: string;
      }>
    >();
    // The template's own mapping matched by style name (docs/mappings.md), then the one created above.
    expect(mine.map((m) => m.id)).toContain(mapping.id);
    expect(mine.every((m) => m.template_id === templateId)).toBe(true);
    const builtinOnly = (await req(env.app, 'GET', `/api/v1/mappings?template_id=${BUILTIN_TEMPLATE_ID}`, auth)).json<
      Array<{ id: string; template_id: string }>
    >();
    expect(builtinOnly.map((m) => m.id)).toContain(BUILTIN_MAPPING_ID);
    expect(builtinOnly.every((m) => m.template_id === BUILTIN_TEMPLATE_ID)).toBe(true);
    expect((await req(env.app, 'GET', `/api/v1/mappings?template_id=${randomUUID()}`, auth)).json()).toEqual([]);
    expectError(
      await req(env.app, 'GET', '/api/v1/mappings?template_id=nope', auth),
      422,
      'validation_error',
      'template_id',
    );
  });

  it('the created mapping converts with the uploaded template', async () => {
    const res = await convert(env.app, auth, {
      markdown: '# Hi\n\nText\n\n- a\n',
      template_id: templateId,
      mapping_id: mapping.id,
      response_format: 'json',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().warnings).toEqual(['missing_style: Missing Bullet']);
  });

  describe('rules shape: "heading: keys are heading levels as strings"; "table: style string, header_row boolean" — 422 naming the field', () => {
    it('rules.heading."9"', async () => {
      const res = await req(env.app, 'POST', '/api/v1/mappings', auth, {
        name: 'x',
        template_id: templateId,
        rules: { heading: { '9': 'Corp Body' } },
      });
      expectError(res, 422, 'validation_error', 'rules.heading.9');
    });
    it('rules.table.header_row "yes"', async () => {
      const res = await req(env.app, 'POST', '/api/v1/mappings', auth, {
        name: 'x',
        template_id: templateId,
        rules: { table: { style: 'Corp Table', header_row: 'yes' } },
      });
      expectError(res, 422, 'validation_error', 'rules.table.header_row');
    });
    it('an unknown rules key', async () => {
      const res = await req(env.app, 'POST', '/api/v1/mappings', auth, {
        name: 'x',
        template_id: templateId,
        rules: { footer: 'Corp Body' },
      });
      expectError(res, 422, 'validation_error', 'rules.footer');
    });
    it.each([
      ['a lone surrogate', { heading: { '1': 'Heading \ud800' } }, 'rules.heading.1'],
      ['a NUL', { paragraph: 'Body\u0000' }, 'rules.paragraph'],
      ['a control character', { table: { style: 'Corp\u001bTable' } }, 'rules.table.style'],
    ])('a style name with %s → 422 naming the field, on POST and PATCH', async (_what, rules, field) => {
      const res = await req(env.app, 'POST', '/api/v1/mappings', auth, { name: 'x', template_id: templateId, rules });
      expectError(res, 422, 'validation_error', field);
      expect(res.body).toContain('control characters or unpaired surrogates');
      const patched = await req(env.app, 'PATCH', `/api/v1/mappings/${String(mapping.id)}`, auth, { rules });
      expectError(patched, 422, 'validation_error', field);
    });
    it('a mapping for an unknown template → 404 not_found', async () => {
      const res = await req(env.app, 'POST', '/api/v1/mappings', auth, {
        name: 'x',
        template_id: randomUUID(),
        rules: {},
      });
      expectError(res, 404, 'not_found');
    });
  });

  it('PATCH → version + 1, updated_at moves, warnings recomputed', async () => {
    tick(env, 5000);
    const res = await req(env.app, 'PATCH', `/api/v1/mappings/${String(mapping.id)}`, auth, {
      rules: { paragraph: 'Corp Body', list_bullet: 'List Bullet' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const m = res.json<Record<string, unknown>>();
    expect(m.version).toBe((mapping.version as number) + 1);
    expect(m.updated_at).toBe(env.clock.now.toISOString());
    expect(m.created_at).toBe(mapping.created_at);
    expect(m.warnings).toEqual([]);
    const read = await req(env.app, 'GET', `/api/v1/mappings/${String(mapping.id)}`, auth);
    expect(read.json()).toMatchObject({
      version: m.version,
      rules: { paragraph: 'Corp Body', list_bullet: 'List Bullet' },
    });
  });

  it('the built-in mapping cannot be deleted (403) and stays listed', async () => {
    expectError(await req(env.app, 'DELETE', `/api/v1/mappings/${BUILTIN_MAPPING_ID}`, auth), 403, 'forbidden');
    const list = (await req(env.app, 'GET', '/api/v1/mappings', auth)).json<Array<{ id: string }>>();
    expect(list.map((m) => m.id)).toContain(BUILTIN_MAPPING_ID);
  });

  it('DELETE → 204, then 404', async () => {
    const res = await req(env.app, 'DELETE', `/api/v1/mappings/${String(mapping.id)}`, auth);
    expect(res.statusCode).toBe(204);
    expectError(await req(env.app, 'GET', `/api/v1/mappings/${String(mapping.id)}`, auth), 404, 'not_found');
    expectError(await req(env.app, 'DELETE', `/api/v1/mappings/${String(mapping.id)}`, auth), 404, 'not_found');
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// Authentication and API keys
// ---------------------------------------------------------------------------------------------------------------------
describe('SPEC.md Authentication; Resources: API key; POST /api/settings/api-keys', () => {
  let env: Env;

  beforeAll(async () => {
    env = await openEnv();
  });
  afterAll(() => env.close());

  describe('7. Failures: "401 missing_api_key: No Authorization header"; "401 invalid_api_key: Key invalid, revoked, or not of the service\'s key format"', () => {
    it('no Authorization header → 401 missing_api_key', async () => {
      expectError(await convert(env.app, {}, { markdown: 'x', ...builtin }), 401, 'missing_api_key');
      expectError(await req(env.app, 'GET', '/api/v1/templates'), 401, 'missing_api_key');
    });

    it('"Bearer abc" → 401 invalid_api_key', async () => {
      expectError(await req(env.app, 'GET', '/api/v1/templates', bearer('abc')), 401, 'invalid_api_key');
    });

    it('3. "A key starts with the service\'s fixed key prefix. A value without it is invalid."', async () => {
      const { key } = await createKey(env.app, 'prefix');
      expectError(await req(env.app, 'GET', '/api/v1/templates', bearer(`xx_${key.slice(3)}`)), 401, 'invalid_api_key');
      expectError(await req(env.app, 'GET', '/api/v1/templates', bearer(key.slice(3))), 401, 'invalid_api_key');
    });

    it('a dw_ key with a bad checksum → 401 invalid_api_key', async () => {
      const { key } = await createKey(env.app, 'checksum');
      const last = key.slice(-1);
      const forged = key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
      expectError(await req(env.app, 'GET', '/api/v1/templates', bearer(forged)), 401, 'invalid_api_key');
      // The genuine key works.
      expect((await req(env.app, 'GET', '/api/v1/templates', bearer(key))).statusCode).toBe(200);
    });

    it('a well-formed dw_ key that was never issued → 401 invalid_api_key', async () => {
      const other = await openEnv();
      try {
        const { key } = await createKey(other.app, 'elsewhere');
        expectError(await req(env.app, 'GET', '/api/v1/templates', bearer(key)), 401, 'invalid_api_key');
      } finally {
        await other.close();
      }
    });
  });

  it('4. "Several keys may be active simultaneously"; 5. "Revoking a key makes every later request with it fail with 401"', async () => {
    const a = await createKey(env.app, 'production');
    const b = await createKey(env.app, 'staging');
    expect((await req(env.app, 'GET', '/api/v1/templates', bearer(a.key))).statusCode).toBe(200);
    expect((await req(env.app, 'GET', '/api/v1/templates', bearer(b.key))).statusCode).toBe(200);
    const revoke = await req(env.app, 'DELETE', `/api/settings/api-keys/${a.id}`, admin);
    expect(revoke.statusCode, revoke.body).toBe(200);
    expect(revoke.json().revoked_at).toMatch(ISO_UTC);
    // The very next request.
    expectError(await req(env.app, 'GET', '/api/v1/templates', bearer(a.key)), 401, 'invalid_api_key');
    expectError(await convert(env.app, bearer(a.key), { markdown: 'x', ...builtin }), 401, 'invalid_api_key');
    expect((await req(env.app, 'GET', '/api/v1/templates', bearer(b.key))).statusCode).toBe(200);
    expect((await convert(env.app, bearer(b.key), { markdown: 'x', ...builtin })).statusCode).toBe(200);
  });

  describe('API key resource and POST /api/settings/api-keys (settings area)', () => {
    it('"Response: API key object with id, name, key, key_prefix, created_at"; "Every key begins with a fixed … prefix followed by an underscore"', async () => {
      const res = await req(env.app, 'POST', '/api/settings/api-keys', admin, { name: 'CI' });
      expect(res.statusCode).toBe(201);
      const body = res.json<Record<string, string>>();
      expect(Object.keys(body).sort()).toEqual(['created_at', 'id', 'key', 'key_prefix', 'name']);
      expect(body.name).toBe('CI');
      expect(body.key).toMatch(/^dw_/);
      expect(body.key_prefix?.length).toBeGreaterThan(3);
      expect(body.key?.startsWith(body.key_prefix ?? '\u0000')).toBe(true);
      expect(body.key_prefix?.length).toBeLessThan(body.key?.length ?? 0);
      expect(body.created_at).toMatch(ISO_UTC);
    });

    it('a UI session may create keys too; a missing name → 422 naming name', async () => {
      const session = await sessionHeader(env.app);
      const res = await req(env.app, 'POST', '/api/settings/api-keys', session, { name: 'from the UI' });
      expect(res.statusCode).toBe(201);
      expectError(await req(env.app, 'POST', '/api/settings/api-keys', admin, {}), 422, 'validation_error', 'name');
    });

    it('"key: Returned only in the creation response, never afterwards": the list has neither the key nor its hash', async () => {
      const created = await createKey(env.app, 'secret-check');
      const res = await req(env.app, 'GET', '/api/settings/api-keys', admin);
      expect(res.statusCode).toBe(200);
      const list = res.json<Array<Record<string, unknown>>>();
      const entry = list.find((k) => k.id === created.id);
      expect(entry).toMatchObject({
        name: 'secret-check',
        key_prefix: created.key_prefix,
        created_at: created.created_at,
      });
      expect(entry).not.toHaveProperty('key');
      expect(entry).not.toHaveProperty('hash');
      expect(res.body).not.toContain(created.key);
      expect(res.body).not.toContain(hashKey(env.secret, created.key));
      for (const k of list) expect(Object.keys(k)).not.toContain('key');
    });

    it('"Each key records a last-used timestamp named last_used_at": set after use', async () => {
      const created = await createKey(env.app, 'usage');
      const before = (await req(env.app, 'GET', '/api/settings/api-keys', admin))
        .json<Array<Record<string, unknown>>>()
        .find((k) => k.id === created.id);
      expect(before?.last_used_at).toBeNull();
      tick(env, 120_000);
      expect((await req(env.app, 'GET', '/api/v1/templates', bearer(created.key))).statusCode).toBe(200);
      const after = (await req(env.app, 'GET', '/api/settings/api-keys', admin))
        .json<Array<Record<string, unknown>>>()
        .find((k) => k.id === created.id);
      expect(after?.last_used_at).toBe(env.clock.now.toISOString());
    });

    it('an API key cannot reach the settings area (401)', async () => {
      const { key } = await createKey(env.app, 'not-admin');
      expectError(await req(env.app, 'GET', '/api/settings', bearer(key)), 401, 'unauthorized');
      expectError(await req(env.app, 'GET', '/api/settings/api-keys', bearer(key)), 401, 'unauthorized');
      expectError(
        await req(env.app, 'POST', '/api/settings/api-keys', bearer(key), { name: 'escalate' }),
        401,
        'unauthorized',
      );
      expectError(
        await req(env.app, 'PATCH', '/api/settings', bearer(key), { plan: 'enterprise' }),
        401,
        'unauthorized',
      );
      expectError(await req(env.app, 'GET', '/api/settings'), 401, 'unauthorized');
      expectError(await req(env.app, 'GET', '/api/settings', { 'x-docwright-admin': 'wrong' }), 401, 'unauthorized');
    });
  });
});

describe('SPEC.md Authentication 6. Plan access: "Public API /api/v1/* — Solo: no (403 api_access_denied)"', () => {
  let env: Env;
  let key: string;

  beforeAll(async () => {
    env = await openEnv();
    key = (await createKey(env.app)).key;
    expect((await convert(env.app, bearer(key), { markdown: 'x', ...builtin })).statusCode).toBe(200);
    const res = await req(env.app, 'PATCH', '/api/settings', admin, { plan: 'solo' });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => env.close());

  it('a valid key on Solo → 403 api_access_denied', async () => {
    expectError(await convert(env.app, bearer(key), { markdown: 'x', ...builtin }), 403, 'api_access_denied');
    expectError(await req(env.app, 'GET', '/api/v1/templates', bearer(key)), 403, 'api_access_denied');
  });

  it('an invalid key on Solo is still 401 invalid_api_key (authentication before plan)', async () => {
    expectError(await req(env.app, 'GET', '/api/v1/templates', bearer('abc')), 401, 'invalid_api_key');
  });

  it("the app's own UI session still converts on Solo", async () => {
    const session = await sessionHeader(env.app);
    const res = await convert(env.app, session, { markdown: '# From the app', ...builtin });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe(DOCX);
  });

  it('Limits: "Templates: Solo 5" — the sixth upload is refused (403 forbidden: Docwright\'s choice, the code is not shown)', async () => {
    const session = await sessionHeader(env.app);
    for (let i = 1; i <= 5; i++) {
      const res = await upload(
        env.app,
        session,
        'POST',
        '/api/v1/templates',
        { name: `T${i}` },
        { bytes: CORPORATE, name: 'corporate.docx' },
      );
      expect(res.statusCode, res.body).toBe(201);
    }
    const sixth = await upload(
      env.app,
      session,
      'POST',
      '/api/v1/templates',
      { name: 'T6' },
      { bytes: CORPORATE, name: 'corporate.docx' },
    );
    expectError(sixth, 403, 'forbidden', '5');
    const own = (await req(env.app, 'GET', '/api/v1/templates', session))
      .json<Array<{ id: string }>>()
      .filter((t) => t.id !== BUILTIN_TEMPLATE_ID);
    expect(own).toHaveLength(5);
  });

  it('back on Team the same key works again', async () => {
    expect((await req(env.app, 'PATCH', '/api/settings', admin, { plan: 'team' })).statusCode).toBe(200);
    expect((await req(env.app, 'GET', '/api/v1/templates', bearer(key))).statusCode).toBe(200);
    expect((await req(env.app, 'PATCH', '/api/settings', admin, { plan: 'solo' })).statusCode).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------------------------------
describe('SPEC.md Limits: "Exceeding the monthly conversion quota gives 429 rate_limit_exceeded"; convert Rule 5', () => {
  const NOW = new Date('2026-11-22T12:00:00Z');
  // "Retry-related headers on 429: not shown": Docwright sends Retry-After, the seconds until the quota resets on the
  // first of the next month (UTC).
  const RETRY_AFTER = (Date.parse('2026-12-01T00:00:00Z') - NOW.getTime()) / 1000;
  let env: Env;
  let auth: Headers;
  let corporate: { template_id: string; mapping_id: string };

  beforeAll(async () => {
    env = await openEnv(NOW);
    auth = bearer((await createKey(env.app)).key);
    // An uploaded template whose current version no conversion has read yet: the first conversions all wait on
    // reading it from disk while holding their quota reservation, so the burst below really races.
    const up = await upload(
      env.app,
      auth,
      'POST',
      '/api/v1/templates',
      { name: 'Corporate' },
      { bytes: CORPORATE, name: 'corporate.docx' },
    );
    expect(up.statusCode, up.body).toBe(201);
    const template_id = up.json<{ id: string }>().id;
    const m = await req(env.app, 'POST', '/api/v1/mappings', auth, {
      name: 'Corporate',
      template_id,
      rules: { paragraph: 'Corp Body', table: { style: 'Corp Table', header_row: true } },
    });
    expect(m.statusCode, m.body).toBe(201);
    corporate = { template_id, mapping_id: m.json<{ id: string }>().id };
    const put = await upload(
      env.app,
      auth,
      'PUT',
      `/api/v1/templates/${template_id}/file`,
      {},
      { bytes: CORPORATE, name: 'corporate.docx' },
    );
    expect(put.statusCode, put.body).toBe(200);
    const res = await req(env.app, 'PATCH', '/api/settings', admin, { monthly_quota: 20 });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => env.close());

  it('40 parallel converts with a quota of 20 → exactly 20 × 200 and 20 × 429 with Retry-After', async () => {
    expect(RETRY_AFTER).toBe(734_400);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => convert(env.app, auth, { markdown: `# Doc ${i}\n\ntext`, ...corporate })),
    );
    const ok = results.filter((r) => r.statusCode === 200);
    const limited = results.filter((r) => r.statusCode === 429);
    expect(ok).toHaveLength(20);
    expect(limited).toHaveLength(20);
    for (const r of ok) expect(r.headers['content-type']).toBe(DOCX);
    for (const r of limited) {
      expectError(r, 429, 'rate_limit_exceeded');
      expect(r.headers['retry-after']).toBe(String(RETRY_AFTER));
    }
    // Twenty records exist, no more.
    expect((await req(env.app, 'GET', '/api/v1/conversions', auth)).json().total).toBe(20);
    const settings = (await req(env.app, 'GET', '/api/settings', admin)).json<{
      usage: { conversions: number; quota: number };
    }>();
    expect(settings.usage).toMatchObject({ conversions: 20, quota: 20 });
  });

  it('a failed conversion does not count: validation and 404 errors leave the quota alone', async () => {
    expect((await req(env.app, 'PATCH', '/api/settings', admin, { monthly_quota: 21 })).statusCode).toBe(200);
    expectError(
      await convert(env.app, auth, { markdown: 'x', template_id: randomUUID(), mapping_id: BUILTIN_MAPPING_ID }),
      404,
      'not_found',
    );
    expectError(await convert(env.app, auth, { markdown: '', ...builtin }), 422, 'validation_error');
    expect((await convert(env.app, auth, { markdown: 'x', ...builtin })).statusCode).toBe(200);
    expectError(await convert(env.app, auth, { markdown: 'x', ...builtin }), 429, 'rate_limit_exceeded');
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// Errors (envelope on every error), local-server defences, OpenAPI document
// ---------------------------------------------------------------------------------------------------------------------
describe('SPEC.md Errors: "Envelope for every error, JSON"', () => {
  let env: Env;
  let auth: Headers;

  beforeAll(async () => {
    env = await openEnv();
    auth = bearer((await createKey(env.app)).key);
  });
  afterAll(() => env.close());

  it('an unknown route → 404 envelope (with and without a key)', async () => {
    expectError(await req(env.app, 'GET', '/api/v1/nope', auth), 404, 'not_found');
    expectError(await req(env.app, 'GET', '/nope'), 404, 'not_found');
    expectError(await req(env.app, 'POST', '/api/v2/convert', auth, { markdown: 'x' }), 404, 'not_found');
  });

  it('an empty JSON body → 400 bad_request envelope', async () => {
    expectError(
      await req(env.app, 'POST', '/api/v1/convert', { ...auth, 'content-type': 'application/json' }, ''),
      400,
      'bad_request',
    );
  });

  it('a JSON array instead of an object → 422 validation_error', async () => {
    expectError(
      await req(env.app, 'POST', '/api/v1/convert', { ...auth, 'content-type': 'application/json' }, '[]'),
      422,
      'validation_error',
    );
  });

  describe('Host allow-list and Origin check (Docwright runs on 127.0.0.1; not in SPEC.md)', () => {
    it('a Host header of another site → 403', async () => {
      const res = await env.app.inject({
        method: 'GET',
        url: '/api/v1/templates',
        headers: { host: `evil.example:${PORT}`, ...auth },
      });
      expectError(res, 403, 'forbidden');
      const bare = await env.app.inject({ method: 'GET', url: '/api/health', headers: { host: 'attacker.test' } });
      expectError(bare, 403, 'forbidden');
    });

    it('localhost and 127.0.0.1 are accepted', async () => {
      const res = await env.app.inject({
        method: 'GET',
        url: '/api/v1/templates',
        headers: { host: `localhost:${PORT}`, ...auth },
      });
      expect(res.statusCode).toBe(200);
    });

    it('a cross-site Origin → 403', async () => {
      expectError(
        await req(
          env.app,
          'POST',
          '/api/v1/convert',
          { ...auth, origin: 'https://evil.example' },
          { markdown: 'x', ...builtin },
        ),
        403,
        'forbidden',
      );
      expectError(
        await req(env.app, 'GET', '/api/settings', { ...admin, origin: 'http://evil.example' }),
        403,
        'forbidden',
      );
      expectError(await req(env.app, 'GET', '/api/v1/templates', { ...auth, origin: 'null' }), 403, 'forbidden');
    });

    it('a same-origin Origin is accepted', async () => {
      const res = await req(env.app, 'GET', '/api/v1/templates', { ...auth, origin: `http://${HOST}` });
      expect(res.statusCode).toBe(200);
    });
  });
});

describe('GET /api/v1/openapi.json (Docwright: not in SPEC.md)', () => {
  let env: Env;
  let doc: Record<string, unknown>;

  beforeAll(async () => {
    env = await openEnv();
    const { key } = await createKey(env.app);
    const res = await req(env.app, 'GET', '/api/v1/openapi.json', bearer(key));
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(() => env.close());

  it('is a valid OpenAPI 3 document', async () => {
    expect(String(doc.openapi)).toMatch(/^3\./);
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.valid, JSON.stringify(result.errors)).toBe(true);
  });

  it('documents the SPEC.md paths', () => {
    const paths = Object.keys(doc.paths as Record<string, unknown>);
    for (const p of [
      '/api/v1/convert',
      '/api/v1/conversions/{id}',
      '/api/v1/conversions/{id}/download',
      '/api/v1/templates',
      '/api/v1/mappings',
      '/api/settings/api-keys',
    ]) {
      expect(paths).toContain(p);
    }
  });

  it('declares bearer authentication (SPEC.md Authentication 1: "Authorization: Bearer <API_KEY>")', () => {
    const components = doc.components as { securitySchemes?: Record<string, { type: string; scheme?: string }> };
    expect(Object.values(components.securitySchemes ?? {})).toContainEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
  });
});
