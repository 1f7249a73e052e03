// Issue 12: names sent with an uploaded template's multipart fields are validated exactly like the same names in
// JSON (PATCH /api/v1/templates/:id): same rules (length, control characters), same 422 and the same message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTemplate } from '../../server/convert/index.ts';
import { expectError, multipart, openEnv, type Env } from './support.ts';

let env: Env;
let templateId: string;
beforeAll(async () => {
  env = await openEnv();
  const upload = await multipart({ name: 'base' }, { bytes: defaultTemplate(), name: 'base.docx' });
  const res = await env.send('POST', '/api/v1/templates', { ...env.auth, ...upload.headers }, upload.payload);
  expect(res.statusCode, res.body).toBe(201);
  templateId = res.json<{ id: string }>().id;
});
afterAll(async () => env?.close());

const cases: Record<string, Record<string, string>> = {
  'a name of 201 characters': { name: 'n'.repeat(201) },
  'a description of 2001 characters': { description: 'd'.repeat(2001) },
  'a name with a control character': { name: 'a\u0007b' },
  'a description with an escape sequence': { description: 'x\u001b[2Jy' },
};

describe('template upload fields (multipart) and the same fields in JSON answer alike', () => {
  for (const [what, fields] of Object.entries(cases)) {
    it(`${what}: POST and PUT (multipart) give the PATCH (JSON) answer; nothing is stored`, async () => {
      const before = env.store.listTemplates();
      const json = expectError(
        await env.send('PATCH', `/api/v1/templates/${templateId}`, env.auth, fields),
        422,
        'validation_error',
      );
      const post = await multipart(fields, { bytes: defaultTemplate(), name: 'x.docx' });
      const put = await multipart(fields, { bytes: defaultTemplate(), name: 'x.docx' });
      expect(
        expectError(
          await env.send('POST', '/api/v1/templates', { ...env.auth, ...post.headers }, post.payload),
          422,
          'validation_error',
        ),
      ).toBe(json);
      expect(
        expectError(
          await env.send('PUT', `/api/v1/templates/${templateId}/file`, { ...env.auth, ...put.headers }, put.payload),
          422,
          'validation_error',
        ),
      ).toBe(json);
      expect(env.store.listTemplates()).toEqual(before);
    });
  }

  it('names at the limit (200 characters, any script) are accepted by both', async () => {
    const name = '模'.repeat(200);
    const post = await multipart(
      { name, description: 'line one\nline two' },
      { bytes: defaultTemplate(), name: 'x.docx' },
    );
    const created = await env.send('POST', '/api/v1/templates', { ...env.auth, ...post.headers }, post.payload);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json<{ name: string }>().name).toBe(name);
    const patched = await env.send('PATCH', `/api/v1/templates/${created.json<{ id: string }>().id}`, env.auth, {
      name: `${name.slice(1)}😀`.slice(0, 199),
    });
    expect(patched.statusCode, patched.body).toBe(200);
  });
});

describe('a malformed multipart body on the template routes', () => {
  /** POSTs PARTS (each a whole part, with its boundary line) as a template upload; expects 422, returns the message. */
  async function refused(boundary: string, parts: string[]): Promise<string> {
    const body = Buffer.from(`${parts.join('')}--${boundary}--\r\n`);
    const headers = { ...env.auth, 'content-type': `multipart/form-data; boundary=${boundary}` };
    return expectError(await env.send('POST', '/api/v1/templates', headers, body), 422, 'validation_error');
  }

  const truncated = Buffer.from(
    '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.docx"\r\nContent-Type: application/octet-stream\r\n\r\nPK\u0003\u0004',
  );
  const bodies: [string, Record<string, string>, Buffer][] = [
    ['no boundary', { 'content-type': 'multipart/form-data' }, Buffer.from('abc')],
    ['a body cut off inside a part', { 'content-type': 'multipart/form-data; boundary=xx' }, truncated],
  ];
  for (const [what, headers, body] of bodies) {
    it(`${what}: 400 bad_request, as on /api/v1/convert; nothing is stored`, async () => {
      const before = env.store.listTemplates();
      for (const [method, url] of [
        ['POST', '/api/v1/templates'],
        ['PUT', `/api/v1/templates/${templateId}/file`],
        // The conversion route reads the same way (its part cut off is an "images" one).
        ['POST', '/api/v1/convert'],
      ] as const) {
        const sent =
          url === '/api/v1/convert'
            ? Buffer.from(body.toString('latin1').replace('name="file"', 'name="images"'), 'latin1')
            : body;
        const message = expectError(await env.send(method, url, { ...env.auth, ...headers }, sent), 400, 'bad_request');
        expect(message, `${method} ${url}`).toMatch(/multipart body is malformed/);
      }
      expect(env.store.listTemplates()).toEqual(before);
    });
  }

  it("more parts or fields than an upload has: 422 validation_error, not the parser's 413", async () => {
    const boundary = 'cc';
    const parts: [string, (i: number) => string][] = [
      ['empty parts', () => `--${boundary}\r\nContent-Disposition: form-data; name="x"\r\n\r\n\r\n`],
      ['text fields', (i) => `--${boundary}\r\nContent-Disposition: form-data; name="f${String(i)}"\r\n\r\nv\r\n`],
    ];
    for (const [what, part] of parts) {
      const message = await refused(
        boundary,
        Array.from({ length: 60 }, (_, i) => part(i)),
      );
      expect(message, what).toMatch(/more parts than a template needs/);
    }
  });

  it('two template files: 422 validation_error naming the field', async () => {
    const boundary = 'bb';
    const part = (name: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\nPK\r\n`;
    const message = await refused(boundary, [part('a.docx'), part('b.docx')]);
    expect(message).toMatch(/^file: .*one/);
  });
});
