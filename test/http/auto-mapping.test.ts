// A template uploaded through the API converts at once: the mapping matched by style name exists right after
// POST /api/v1/templates, names only styles the template has, and converts with no missing_style warning.
// Real corpus templates (../shared/corpus/templates), through app.inject.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { Store } from '../../server/store/store.ts';

const CORPUS = resolve(import.meta.dirname, '../../../shared/corpus/templates');
const ADMIN = { 'x-docwright-admin': 'admin-token-for-tests', host: '127.0.0.1:47823' };
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

let app: FastifyInstance;
let store: Store;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-auto-mapping-'));
  store = await Store.open(dir);
  app = await buildApp({
    store,
    secret: randomBytes(32),
    adminToken: ADMIN['x-docwright-admin'],
    uiToken: 'ui',
    now: () => new Date('2026-03-10T09:00:00Z'),
    port: 47823,
  });
  await app.ready();
  await app.inject({ method: 'PATCH', url: '/api/settings', headers: ADMIN, payload: { plan: 'team' } });
});
afterAll(async () => {
  await app.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function upload(method: 'POST' | 'PUT', url: string, bytes: Uint8Array, name: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: DOCX }), name);
  const response = new Response(form);
  return app.inject({
    method,
    url,
    headers: { ...ADMIN, 'content-type': response.headers.get('content-type') ?? '' },
    payload: Buffer.from(await response.arrayBuffer()),
  });
}

interface Mapping {
  id: string;
  name: string;
  template_id: string;
  rules: Record<string, unknown>;
}

const MARKDOWN =
  '# One\n\n## Two\n\n### Three\n\nBody **strong** *em* `code` [link](https://example.com)[^1].\n\n[^1]: A note.\n\n- a\n- b\n\n1. one\n2. two\n\n> quoted\n\n```\ncode\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n';

// What a person mapping each corpus template by hand picks (the corpus's *.mapping.json, where one exists).
const EXPECTED: Record<string, Record<string, unknown>> = {
  'apaquarto.docx': {
    paragraph: 'Body Text',
    list_bullet: 'Compact',
    list_ordered: 'Compact',
    code_block: 'Source Code',
    blockquote: 'Block Text',
    table: { style: 'Table', header_row: true },
    // Pandoc's character styles (issue 15 item 6).
    footnote_text: 'footnote text',
    inline_code: 'Verbatim Char',
    link: 'Hyperlink',
  },
  'gongwen-template-lite.dotx': {
    paragraph: 'Normal',
    list_bullet: 'List Paragraph',
    list_ordered: 'List Paragraph',
    code_block: 'Source Code',
    blockquote: 'Quote',
  },
  'officedown-template-hdr-ftr.docx': {
    paragraph: 'Body Text',
    list_bullet: 'Compact',
    blockquote: 'Block Text',
    table: { style: 'Table', header_row: true },
  },
  'ntu-dissertation-template.docx': {
    paragraph: 'Normal',
    table: { style: 'Table Grid', header_row: true },
    strong: 'Strong',
    emphasis: 'Emphasis',
    link: 'Hyperlink',
  },
  'office2007-academic-report.dotx': { paragraph: 'Normal', strong: 'Strong', emphasis: 'Emphasis' },
};

describe('auto-mapping on template upload (corpus templates)', () => {
  for (const file of readdirSync(CORPUS).filter((f) => /\.do[ct]x$/.test(f))) {
    it(`${file}: a mapping matched by style name exists right after upload and converts without missing styles`, async () => {
      const res = await upload('POST', '/api/v1/templates', new Uint8Array(readFileSync(join(CORPUS, file))), file);
      expect(res.statusCode, res.body).toBe(201);
      const template = res.json<{ id: string }>();
      const mappings = (
        await app.inject({ method: 'GET', url: `/api/v1/mappings?template_id=${template.id}`, headers: ADMIN })
      ).json<Mapping[]>();
      expect(mappings).toHaveLength(1);
      const [mapping] = mappings;
      expect(mapping?.name).toBe('Matched by style name');
      expect(mapping?.rules).toMatchObject(EXPECTED[file] ?? {});
      const styles = (
        await app.inject({ method: 'GET', url: `/api/v1/templates/${template.id}/styles`, headers: ADMIN })
      ).json<{ name: string }[]>();
      // Each of Word's headings the template has (FEMA's fact sheet has heading 1 only).
      for (const level of ['1', '2', '3', '4', '5', '6'])
        if (styles.some((s) => s.name === `heading ${level}`))
          expect(mapping?.rules.heading).toMatchObject({ [level]: `heading ${level}` });
      // The same rules pre-fill "New mapping".
      const suggested = await app.inject({
        method: 'GET',
        url: `/api/v1/templates/${template.id}/suggested-rules`,
        headers: ADMIN,
      });
      expect(suggested.statusCode).toBe(200);
      expect(suggested.json<{ rules: unknown }>().rules).toEqual(mapping?.rules);
      const converted = await app.inject({
        method: 'POST',
        url: '/api/v1/convert',
        headers: ADMIN,
        payload: { markdown: MARKDOWN, template_id: template.id, mapping_id: mapping?.id, response_format: 'json' },
      });
      expect(converted.statusCode, converted.body).toBe(200);
      const warnings = converted.json<{ warnings: string[] }>().warnings;
      expect(warnings.filter((w) => w.startsWith('missing_style'))).toEqual([]);
    });
  }

  it('the template says how many elements its mappings matched: the upload answer, GET and the list', async () => {
    const bytes = new Uint8Array(readFileSync(join(CORPUS, 'apaquarto.docx')));
    const res = await upload('POST', '/api/v1/templates', bytes, 'apa-matched.docx');
    expect(res.statusCode, res.body).toBe(201);
    const template = res.json<{ id: string; mappings: unknown }>();
    const [mapping] = (
      await app.inject({ method: 'GET', url: `/api/v1/mappings?template_id=${template.id}`, headers: ADMIN })
    ).json<(Mapping & { matched: unknown })[]>();
    // Title, subtitle, author, date, abstract, bibliography, caption and the definition list styles included: all but strong and emphasis (APA has neither).
    expect(mapping?.matched).toEqual({ matched: 24, of: 26 });
    const expected = [{ id: mapping?.id, name: 'Matched by style name', matched: { matched: 24, of: 26 } }];
    expect(template.mappings).toEqual(expected);
    const got = await app.inject({ method: 'GET', url: `/api/v1/templates/${template.id}`, headers: ADMIN });
    expect(got.json<{ mappings: unknown }>().mappings).toEqual(expected);
    const listed = (await app.inject({ method: 'GET', url: '/api/v1/templates', headers: ADMIN })).json<
      { id: string; mappings: unknown }[]
    >();
    expect(listed.find((t) => t.id === template.id)?.mappings).toEqual(expected);
  });

  it("replacing the file keeps the user's mappings; a template left with none gets a matched one again", async () => {
    const bytes = new Uint8Array(readFileSync(join(CORPUS, 'apaquarto.docx')));
    const template = (await upload('POST', '/api/v1/templates', bytes, 'apa.docx')).json<{ id: string }>();
    const [auto] = (
      await app.inject({ method: 'GET', url: `/api/v1/mappings?template_id=${template.id}`, headers: ADMIN })
    ).json<Mapping[]>();
    expect(
      (
        await app.inject({
          method: 'PATCH',
          url: `/api/v1/mappings/${String(auto?.id)}`,
          headers: ADMIN,
          payload: { name: 'Mine' },
        })
      ).statusCode,
    ).toBe(200);
    expect((await upload('PUT', `/api/v1/templates/${template.id}/file`, bytes, 'apa.docx')).statusCode).toBe(200);
    let list = (
      await app.inject({ method: 'GET', url: `/api/v1/mappings?template_id=${template.id}`, headers: ADMIN })
    ).json<Mapping[]>();
    expect(list.map((m) => m.name)).toEqual(['Mine']);
    expect(
      (await app.inject({ method: 'DELETE', url: `/api/v1/mappings/${String(auto?.id)}`, headers: ADMIN })).statusCode,
    ).toBe(204);
    expect((await upload('PUT', `/api/v1/templates/${template.id}/file`, bytes, 'apa.docx')).statusCode).toBe(200);
    list = (
      await app.inject({ method: 'GET', url: `/api/v1/mappings?template_id=${template.id}`, headers: ADMIN })
    ).json<Mapping[]>();
    expect(list.map((m) => m.name)).toEqual(['Matched by style name']);
  });

  it('a refused upload (plan limit) creates no mapping', async () => {
    await app.inject({ method: 'PATCH', url: '/api/settings', headers: ADMIN, payload: { plan: 'solo' } });
    const before = (await app.inject({ method: 'GET', url: '/api/v1/mappings', headers: ADMIN })).json<Mapping[]>()
      .length;
    const res = await upload(
      'POST',
      '/api/v1/templates',
      new Uint8Array(readFileSync(join(CORPUS, 'apaquarto.docx'))),
      'one-too-many.docx',
    );
    expect(res.statusCode).toBe(403);
    expect(
      (await app.inject({ method: 'GET', url: '/api/v1/mappings', headers: ADMIN })).json<Mapping[]>().length,
    ).toBe(before);
  });
});
