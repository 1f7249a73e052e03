// A template given on the command line without a mapping is mapped to its styles exactly as an upload maps it
// (issue 32 item 5, acceptance 3): `docwright convert --template T` in its own process and through the running
// server writes the same document body as the REST API converting with the mapping the upload of T got, with no
// missing_style warning, and says how many elements were matched. Real processes, real corpus templates.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../server/app.ts';
import { Store } from '../server/store/store.ts';
import { part, validateDocx } from './helpers/docx.ts';
import { killAllChildren, runCli, startServe } from './helpers/docwright-process.ts';

const CORPUS = resolve(import.meta.dirname, '../../shared/corpus/templates');
const temp = mkdtempSync(join(tmpdir(), 'dw-cli-template-mapping-'));
const ADMIN = { 'x-docwright-admin': 'admin-token-for-tests', host: '127.0.0.1:47824' };
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const MARKDOWN = [
  '---',
  'title: A Report',
  'subtitle: On matching',
  'author: Ada Lovelace',
  'date: 2024-05-01',
  '---',
  '# One',
  '',
  'Body **strong** *em* `code` [link](https://example.com).',
  '',
  '- a',
  '- b',
  '',
  '1. one',
  '',
  '> quoted',
  '',
  '```',
  'code',
  '```',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
].join('\n');
writeFileSync(join(temp, 'doc.md'), MARKDOWN);

/** A user's environment with its own data folder (no keychain, no daemon switch). */
function userEnv(data: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DOCWRIGHT_HOME: data, DOCWRIGHT_KEYCHAIN: 'off' };
  delete env.DOCWRIGHT_DAEMON;
  return env;
}

/** The document body the REST API writes for TEMPLATE with the mapping its upload got, and that mapping's rules. */
async function apiBody(template: string): Promise<{ body: string; rules: unknown; matched: unknown }> {
  const dir = mkdtempSync(join(temp, 'api-'));
  const store = await Store.open(dir);
  const app = await buildApp({
    store,
    secret: randomBytes(32),
    adminToken: ADMIN['x-docwright-admin'],
    uiToken: 'ui',
    port: 47824,
  });
  try {
    await app.ready();
    await app.inject({ method: 'PATCH', url: '/api/settings', headers: ADMIN, payload: { plan: 'team' } });
    const form = new FormData();
    form.append('file', new Blob([readFileSync(join(CORPUS, template))], { type: DOCX }), template);
    const response = new Response(form);
    const uploaded = await app.inject({
      method: 'POST',
      url: '/api/v1/templates',
      headers: { ...ADMIN, 'content-type': response.headers.get('content-type') ?? '' },
      payload: Buffer.from(await response.arrayBuffer()),
    });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    const id = uploaded.json<{ id: string }>().id;
    const [mapping] = (
      await app.inject({ method: 'GET', url: `/api/v1/mappings?template_id=${id}`, headers: ADMIN })
    ).json<{ id: string; rules: unknown; matched: unknown }[]>();
    const converted = await app.inject({
      method: 'POST',
      url: '/api/v1/convert',
      headers: ADMIN,
      payload: { markdown: MARKDOWN, template_id: id, mapping_id: mapping?.id },
    });
    expect(converted.statusCode, converted.body).toBe(200);
    return {
      body: part(new Uint8Array(converted.rawPayload), 'word/document.xml'),
      rules: mapping?.rules,
      matched: mapping?.matched,
    };
  } finally {
    await app.close();
    store.close();
  }
}

afterAll(async () => {
  await killAllChildren();
  rmSync(temp, { recursive: true, force: true });
});

describe('docwright convert --template without --mapping', () => {
  for (const template of ['apaquarto.docx', 'gongwen-template-lite.dotx']) {
    it(`${template}: maps the template by style name as its upload does, alone and through the running server`, async () => {
      const api = await apiBody(template);
      // Alone: no server for this data folder.
      const alone = join(temp, `alone-${template}.docx`);
      const own = await runCli(['convert', join(temp, 'doc.md'), '--template', join(CORPUS, template), '-o', alone], {
        env: userEnv(join(temp, `data-alone-${template}`)),
        timeoutMs: 120_000,
      });
      expect(own.code, own.stderr).toBe(0);
      expect(own.stderr).not.toContain('missing_style');
      // How many of the elements the template's styles matched, as the API's mapping says it.
      const { matched, of } = api.matched as { matched: number; of: number };
      expect(own.stderr).toContain(`mapping: the template's styles matched by name, ${matched} of ${of} elements`);
      const docx = new Uint8Array(readFileSync(alone));
      const { ok, report } = await validateDocx(docx);
      expect(ok, report).toBe(true);
      expect(part(docx, 'word/document.xml')).toBe(api.body);

      // Through the running server of the data folder.
      const data = join(temp, `data-served-${template}`);
      const server = await startServe([], { env: userEnv(data), timeoutMs: 60_000 });
      const served = join(temp, `served-${template}.docx`);
      const through = await runCli(
        ['convert', join(temp, 'doc.md'), '--template', join(CORPUS, template), '-o', served],
        { env: userEnv(data), timeoutMs: 120_000 },
      );
      expect(through.code, through.stderr).toBe(0);
      expect(through.stderr).toContain(`converted by the running server (pid ${String(server.pid)})`);
      expect(through.stderr).not.toContain('missing_style');
      expect(through.stderr).toContain(`mapping: the template's styles matched by name, ${matched} of ${of} elements`);
      expect(part(new Uint8Array(readFileSync(served)), 'word/document.xml')).toBe(api.body);
      server.child.kill('SIGTERM');
      await server.exited;
    }, 240_000);
  }
});
