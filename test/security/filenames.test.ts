// Issue 12, filenames and names: any Unicode name is delivered (RFC 6266 `filename*` plus an ASCII fallback); a
// lone surrogate or a control character is refused with 422 before anything is stored or counted against the
// quota, in every name field (conversions, templates, mappings, API keys; JSON and multipart alike); no input ever
// yields a 500 after a record was saved or a unit charged; a failed conversion is neither recorded nor charged.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert as convertDocx, defaultTemplate } from '../../server/convert/index.ts';
import { builtin, expectError, multipart, openEnv, ADMIN, type Env } from './support.ts';

let env: Env;
beforeAll(async () => {
  env = await openEnv();
});
afterAll(async () => env?.close());

/** What a refused request must leave as it was: records of every kind and this month's usage. */
function snapshot() {
  return {
    conversions: env.store.listConversions(0, 1000).total,
    usage: env.store.usage(new Date()),
    templates: env.store.listTemplates().map((t) => `${t.id}:${t.name}:${t.version}`),
    mappings: env.store.listMappings().map((m) => `${m.id}:${m.name}:${m.version}`),
    keys: env.store.listKeys().map((k) => `${k.id}:${k.name}`),
  };
}

/** Decodes the `filename*` of a Content-Disposition, checking that the fallback `filename=` is plain ASCII. */
function dispositionName(header: string): string {
  const match = /^attachment; filename="([\x20-\x7e]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]+)$/.exec(header);
  expect(match, header).not.toBeNull();
  expect(match?.[1] ?? '').not.toMatch(/["\\/]/);
  return decodeURIComponent(match?.[2] ?? '');
}

const convert = (filename: string, format?: 'json') =>
  env.send('POST', '/api/v1/convert', env.auth, {
    markdown: '# x',
    ...builtin,
    filename,
    ...(format ? { response_format: format } : {}),
  });

describe('a lone surrogate or a control character in a name: 422 before anything is stored or charged', () => {
  const bad = {
    'a lone high surrogate': 'a\ud800b',
    'a lone low surrogate': 'a\udc00b',
    'a BEL': 'a\u0007b',
    'a newline': 'a\nb',
    'ESC (terminal codes)': 'k\u001b[31m',
    'a C1 control': 'a\u0085b',
    DEL: 'a\u007fb',
  };

  for (const [what, name] of Object.entries(bad)) {
    it(`POST /api/v1/convert filename with ${what} (binary and json): 422, no record, no unit charged`, async () => {
      const before = snapshot();
      for (const format of [undefined, 'json'] as const) {
        const message = expectError(await convert(name, format), 422, 'validation_error');
        expect(message).toContain('filename');
      }
      expect(snapshot()).toEqual(before);
    });
  }

  it('template rename (PATCH name), mapping create and rename, API key create: 422, nothing changes', async () => {
    const upload = await multipart({ name: 'Renamed later' }, { bytes: defaultTemplate(), name: 'ok.docx' });
    const template = await env.send('POST', '/api/v1/templates', { ...env.auth, ...upload.headers }, upload.payload);
    expect(template.statusCode, template.body).toBe(201);
    const templateId = template.json<{ id: string }>().id;
    const mapping = await env.send('POST', '/api/v1/mappings', env.auth, {
      name: 'fine',
      template_id: templateId,
      rules: {},
    });
    expect(mapping.statusCode, mapping.body).toBe(201);
    const mappingId = mapping.json<{ id: string }>().id;
    for (const name of Object.values(bad)) {
      const before = snapshot();
      expect(
        expectError(
          await env.send('PATCH', `/api/v1/templates/${templateId}`, env.auth, { name }),
          422,
          'validation_error',
        ),
      ).toContain('name');
      expect(
        expectError(
          await env.send('POST', '/api/v1/mappings', env.auth, { name, template_id: templateId, rules: {} }),
          422,
          'validation_error',
        ),
      ).toContain('name');
      expect(
        expectError(
          await env.send('PATCH', `/api/v1/mappings/${mappingId}`, env.auth, { name }),
          422,
          'validation_error',
        ),
      ).toContain('name');
      expect(
        expectError(await env.send('POST', '/api/settings/api-keys', ADMIN, { name }), 422, 'validation_error'),
      ).toContain('name');
      expect(snapshot()).toEqual(before);
    }
  });

  it('the other channels (MCP, CLI) go through Services, which refuses the same names before reserving anything', async () => {
    const before = snapshot();
    const services = env.app.services;
    await expect(
      services.convert({ markdown: '# x', ...builtin, filename: 'a\ud800b', channel: 'mcp' }),
    ).rejects.toMatchObject({ code: 'validation_error' });
    await expect(
      services.convert({ markdown: '# x', ...builtin, filename: 'a\u0007b', channel: 'mcp' }),
    ).rejects.toMatchObject({ code: 'validation_error' });
    await expect(services.createApiKey('k\u001b[31m', Buffer.alloc(32))).rejects.toMatchObject({
      code: 'validation_error',
    });
    await expect(
      services.createMapping({ name: 'm\u0000', template_id: builtin.template_id, rules: {} }),
    ).rejects.toMatchObject({ code: 'validation_error' });
    expect(snapshot()).toEqual(before);
  });

  it('style names in mapping rules follow the same rule on every channel (JSON, MCP through Services, the CLI through convert)', async () => {
    for (const name of Object.values(bad)) {
      const before = snapshot();
      const rules = { heading: { '1': name } };
      expect(
        expectError(
          await env.send('POST', '/api/v1/mappings', env.auth, {
            name: 'fine',
            template_id: builtin.template_id,
            rules,
          }),
          422,
          'validation_error',
        ),
      ).toContain('rules.heading.1');
      await expect(
        env.app.services.createMapping({ name: 'fine', template_id: builtin.template_id, rules }),
      ).rejects.toMatchObject({ code: 'validation_error' });
      await expect(
        env.app.services.mappingWarnings(builtin.template_id, { table: { style: name } }),
      ).rejects.toMatchObject({ code: 'validation_error', message: expect.stringContaining('rules.table.style') });
      await expect(
        convertDocx({ markdown: '# x', template: defaultTemplate(), mapping: { rules: { paragraph: name } } }),
      ).rejects.toThrow(/rules\.paragraph must not contain control characters/);
      expect(snapshot()).toEqual(before);
    }
  });

  it('template upload and file replacement (multipart name field): 422, nothing stored', async () => {
    const existing = env.store.listTemplates().find((t) => !t.builtin);
    expect(existing).toBeDefined();
    // FormData sends text as UTF-8, where a lone surrogate cannot exist: control characters are what a multipart field can carry.
    for (const name of ['a\u0007b', 'k\u001b[31m', 'a\u0085b', 'a\u007fb']) {
      const before = snapshot();
      const post = await multipart({ name }, { bytes: defaultTemplate(), name: 'x.docx' });
      expect(
        expectError(
          await env.send('POST', '/api/v1/templates', { ...env.auth, ...post.headers }, post.payload),
          422,
          'validation_error',
        ),
      ).toContain('name');
      const put = await multipart({ name }, { bytes: defaultTemplate(), name: 'x.docx' });
      expect(
        expectError(
          await env.send(
            'PUT',
            `/api/v1/templates/${String(existing?.id)}/file`,
            { ...env.auth, ...put.headers },
            put.payload,
          ),
          422,
          'validation_error',
        ),
      ).toContain('name');
      expect(snapshot()).toEqual(before);
    }
  });
});

describe('any Unicode name is accepted and delivered with RFC 6266 filename* and an ASCII fallback', () => {
  const names = {
    emoji: 'report 😀🎉',
    CJK: '四半期報告書',
    RTL: 'تقرير ربع سنوي',
    'Hebrew with digits': 'דוח 2026',
    combining: 'e\u0301te\u0301',
  };
  for (const [what, name] of Object.entries(names)) {
    it(`${what}: binary response, JSON record and download all carry it exactly`, async () => {
      const res = await convert(name);
      expect(res.statusCode, res.body).toBe(200);
      expect(dispositionName(String(res.headers['content-disposition']))).toBe(`${name}.docx`);
      const json = await convert(name, 'json');
      expect(json.statusCode, json.body).toBe(200);
      const record = json.json<{ filename: string; download_url: string }>();
      expect(record.filename).toBe(`${name}.docx`);
      const download = await env.send('GET', record.download_url, env.auth);
      expect(download.statusCode, download.body).toBe(200);
      expect(dispositionName(String(download.headers['content-disposition']))).toBe(`${name}.docx`);
    });
  }

  it('a template named in any script downloads with its name', async () => {
    const upload = await multipart({ name: 'Vorlage – 模板 😀' }, { bytes: defaultTemplate(), name: 't.docx' });
    const res = await env.send('POST', '/api/v1/templates', { ...env.auth, ...upload.headers }, upload.payload);
    expect(res.statusCode, res.body).toBe(201);
    const download = await env.send('GET', `/api/v1/templates/${res.json<{ id: string }>().id}/download`, env.auth);
    expect(download.statusCode, download.body).toBe(200);
    expect(dispositionName(String(download.headers['content-disposition']))).toBe('Vorlage – 模板 😀.docx');
  });
});

describe('no 500 after a record was saved or a unit charged', () => {
  it('records stored before this check (a lone surrogate in a conversion or template name) still download', async () => {
    const res = await convert('legacy', 'json');
    const record = res.json<{ conversion_id: string; download_url: string }>();
    // Written as an older version could have stored them.
    // Conversion records live in the conversion log (one file per month), templates in db.json.
    const db = env.store as unknown as {
      db: { data: { templates: { id: string; name: string; builtin: boolean }[] } };
      log: { get(id: string): { filename: string } | undefined };
    };
    const stored = db.log.get(record.conversion_id);
    if (stored) stored.filename = 'a\ud800b.docx';
    const template = db.db.data.templates.find((t) => !t.builtin);
    if (template) template.name = 'b\udfffc';
    const download = await env.send('GET', record.download_url, env.auth);
    expect(download.statusCode, download.body).toBe(200);
    expect(dispositionName(String(download.headers['content-disposition']))).toBe('a\ufffdb.docx');
    const templateDownload = await env.send('GET', `/api/v1/templates/${String(template?.id)}/download`, env.auth);
    expect(templateDownload.statusCode, templateDownload.body).toBe(200);
    expect(dispositionName(String(templateDownload.headers['content-disposition']))).toBe('b\ufffdc.docx');
    expect((await env.send('GET', `/api/v1/conversions/${record.conversion_id}`, env.auth)).statusCode).toBe(200);
  });

  it('a conversion that fails (its template file is gone) answers an error, is not recorded and not charged', async () => {
    const upload = await multipart({ name: 'soon gone' }, { bytes: defaultTemplate(), name: 'g.docx' });
    const res = await env.send('POST', '/api/v1/templates', { ...env.auth, ...upload.headers }, upload.payload);
    const template = env.store.getTemplate(res.json<{ id: string }>().id);
    rmSync(join(env.dir, 'templates', template?.file ?? 'none'));
    const before = snapshot();
    const failed = await env.send('POST', '/api/v1/convert', env.auth, {
      markdown: '# x',
      template_id: template?.id,
      mapping_id: builtin.mapping_id,
    });
    expect(failed.statusCode).toBeGreaterThanOrEqual(400);
    expect(Object.keys(failed.json<object>())).toEqual(['error']);
    expect(snapshot(), 'no record, no unit').toEqual(before);
  });
});
