// Issue 15 items 6–8 over the HTTP API (app.inject): character-style keys and the thematic_break / task_list options
// are stored with a mapping, validated into the error envelope, typed in the OpenAPI document and applied by
// POST /api/v1/convert; a mapping that asks for nothing keeps SPEC's page break and plain task items.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ELEMENT_OPTIONS } from '../../server/convert/element-options.ts';
import { DEFAULT_RULES } from '../../server/convert/index.ts';
import { buildApp } from '../../server/app.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../../server/store/store.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const ADMIN = { 'x-docwright-admin': 'admin-token-for-tests', host: '127.0.0.1:47824' };
const MARKDOWN = 'Some **strong** and `code`.\n\n---\n\n- [ ] open\n- [x] done\n';

let app: FastifyInstance;
let store: Store;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-mapping-options-'));
  store = await Store.open(dir);
  app = await buildApp({
    store,
    secret: randomBytes(32),
    adminToken: ADMIN['x-docwright-admin'],
    uiToken: 'ui',
    now: () => new Date('2026-03-10T09:00:00Z'),
    port: 47824,
  });
  await app.ready();
  await app.inject({ method: 'PATCH', url: '/api/settings', headers: ADMIN, payload: { plan: 'team' } });
});
afterAll(async () => {
  await app.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (url: string, payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url, headers: ADMIN, payload });

async function convertWith(mappingId: string): Promise<string> {
  const res = await post('/api/v1/convert', {
    markdown: MARKDOWN,
    template_id: BUILTIN_TEMPLATE_ID,
    mapping_id: mappingId,
  });
  expect(res.statusCode, res.body).toBe(200);
  const docx = Uint8Array.from(res.rawPayload);
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
  return part(docx, 'word/document.xml');
}

describe('mapping options and character styles over the API', () => {
  let mappingId = '';

  it('stores the new keys; a paragraph style named for a character key is a missing_style warning', async () => {
    const rules = {
      paragraph: 'Body Text',
      strong: 'Body Text',
      inline_code: 'Verbatim Char',
      emphasis: 'Emphasis',
      link: 'Hyperlink',
      footnote_text: 'footnote text',
      thematic_break: 'rule',
      task_list: 'checkbox',
    };
    const res = await post('/api/v1/mappings', { name: 'Options', template_id: BUILTIN_TEMPLATE_ID, rules });
    expect(res.statusCode, res.body).toBe(201);
    const mapping = res.json<{ id: string; rules: unknown; warnings: string[] }>();
    expect(mapping.rules).toEqual(rules);
    expect(mapping.warnings).toEqual(['missing_style: Body Text']);
    mappingId = mapping.id;
    const again = await app.inject({ method: 'GET', url: `/api/v1/mappings/${mappingId}`, headers: ADMIN });
    expect(again.json<{ rules: unknown }>().rules).toEqual(rules);
  });

  it('converts with them: the character style on the run, a bordered rule, ballot boxes', async () => {
    const xml = await convertWith(mappingId);
    expect(xml).toContain('<w:rStyle w:val="VerbatimChar"/>');
    // "Body Text" is a paragraph style: the strong run stays bold by direct formatting.
    expect(xml).not.toContain('<w:rStyle w:val="BodyText"/>');
    expect(xml).toMatch(/<w:r><w:rPr><w:b\/><w:bCs\/><\/w:rPr><w:t xml:space="preserve">strong</);
    expect(xml).toContain('<w:pBdr><w:bottom w:val="single"');
    expect(xml).not.toContain('w:type="page"');
    expect(xml).toContain('\u2610 ');
    expect(xml).toContain('\u2612 ');
  });

  it('the built-in mapping keeps SPEC: a page break, plain task items, bold through the template\'s "Strong"', async () => {
    const xml = await convertWith(BUILTIN_MAPPING_ID);
    expect(xml).toMatch(/<w:pageBreakBefore\/>|<w:br w:type="page"\/>/);
    expect(xml).not.toContain('\u2610');
    expect(xml).not.toContain('pBdr');
    expect(xml).toContain('<w:rStyle w:val="Strong"/>');
  });

  it.each([
    ['thematic_break', { thematic_break: 'dots' }],
    ['task_list', { task_list: true }],
    ['strong', { strong: 5 }],
    ['inline_code', { inline_code: '' }],
  ])('a bad %s → 422 validation_error in the envelope, on POST and PATCH; nothing stored', async (field, rules) => {
    const before = store.listMappings().length;
    for (const res of [
      await post('/api/v1/mappings', { name: 'Bad', template_id: BUILTIN_TEMPLATE_ID, rules }),
      await app.inject({ method: 'PATCH', url: `/api/v1/mappings/${mappingId}`, headers: ADMIN, payload: { rules } }),
    ]) {
      expect(res.statusCode, res.body).toBe(422);
      const body = res.json<{ error: { code: string; message: string } }>();
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error.code).toBe('validation_error');
      expect(body.error.message).toContain(`rules.${field}`);
    }
    expect(store.listMappings()).toHaveLength(before);
    const kept = await app.inject({ method: 'GET', url: `/api/v1/mappings/${mappingId}`, headers: ADMIN });
    expect(kept.json<{ rules: { thematic_break: string } }>().rules.thematic_break).toBe('rule');
  });

  it('the OpenAPI document names the keys and the options with their values', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: ADMIN });
    expect(res.statusCode).toBe(200);
    const doc = res.json<{ components: { schemas: Record<string, { properties: Record<string, unknown> }> } }>();
    const rules = doc.components.schemas.Rules;
    expect(rules).toBeDefined();
    const properties = rules?.properties ?? {};
    for (const key of ['inline_code', 'link', 'strong', 'emphasis', 'footnote_text'])
      expect(properties[key], key).toMatchObject({ type: 'string' });
    const values = (key: string) => JSON.stringify(properties[key]);
    // The same values as the engine's (server/convert/element-options.ts).
    for (const v of ELEMENT_OPTIONS.thematic_break) expect(values('thematic_break')).toContain(`"${v}"`);
    for (const v of ELEMENT_OPTIONS.task_list) expect(values('task_list')).toContain(`"${v}"`);
  });
});

describe('the built-in mapping of an older data folder', () => {
  it('gets the new keys on start, with a new version (it is read-only to users)', async () => {
    const older = mkdtempSync(join(tmpdir(), 'dw-builtin-upgrade-'));
    try {
      const first = await Store.open(older);
      first.close();
      const path = join(older, 'db.json');
      const data = JSON.parse(readFileSync(path, 'utf8')) as { mappings: { id: string; rules: object }[] };
      const builtin = data.mappings.find((m) => m.id === BUILTIN_MAPPING_ID);
      if (!builtin) throw new Error('no built-in mapping written');
      builtin.rules = { paragraph: 'Body Text' };
      writeFileSync(path, JSON.stringify(data));
      const reopened = await Store.open(older);
      const upgraded = reopened.listMappings().find((m) => m.id === BUILTIN_MAPPING_ID);
      reopened.close();
      expect(upgraded?.rules).toEqual(DEFAULT_RULES);
      expect(upgraded?.version).toBe(2);
    } finally {
      rmSync(older, { recursive: true, force: true });
    }
  });
});
