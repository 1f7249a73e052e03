// Seeded templates and mappings: the policy's seed folder is imported at start, idempotently (ids from the file
// names, the same at every start), a changed file becomes the next version of the same record, a removed file
// releases its record, a bad file is a warning naming it while the rest is imported, and what is seeded is
// read-only for users (403 `forbidden`). The first start is a real `docwright serve` process, the restarts
// startServer on a real port.
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FormData, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { seedId } from '../../server/policy/index.ts';
import { startServer } from '../../server/serve.ts';
import { BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { CORPORATE_RULES } from '../helpers/corporate.ts';
import { validateDocx } from '../helpers/docx.ts';
import { killAllChildren, startServe } from '../helpers/docwright-process.ts';
import { clientOf, envFor, removeTempDirs, tempDir, writePolicy } from './support.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/templates');
const saved = process.env.DOCWRIGHT_POLICY;

afterAll(async () => {
  if (saved === undefined) delete process.env.DOCWRIGHT_POLICY;
  else process.env.DOCWRIGHT_POLICY = saved;
  await killAllChildren();
  removeTempDirs();
});

interface Template {
  id: string;
  name: string;
  version: number;
  created_at: string;
  updated_at: string;
  builtin: boolean;
  managed: boolean;
  size: number;
  /** Beyond SPEC: the mappings of the template, with how many elements each matched. */
  mappings?: { id: string; name: string }[];
}
interface Mapping {
  id: string;
  name: string;
  template_id: string;
  version: number;
  rules: unknown;
  managed: boolean;
  updated_at: string;
}

it('seed ids are UUIDs (version 5) of the file name, ignoring case', () => {
  const id = seedId('template', 'corporate.docx');
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(seedId('template', 'Corporate.DOCX')).toBe(id);
  expect(seedId('mapping', 'corporate.docx')).not.toBe(id);
  expect(seedId('template', 'letter.docx')).not.toBe(id);
});

describe('a seed folder across starts', () => {
  const home = tempDir();
  const seed = join(tempDir(), 'seed');
  mkdirSync(seed);
  const policy = writePolicy({ seed_dir: seed });
  const corporateId = seedId('template', 'corporate.docx');
  const corporateMappingId = seedId('mapping', 'corporate.mapping.json');
  const defaultMappingId = seedId('mapping', 'plain.mapping.json');
  const writeJson = (name: string, value: unknown) => writeFileSync(join(seed, name), JSON.stringify(value, null, 2));

  /** Restarts the server in this process (real port) and returns the templates and mappings it lists. */
  async function restart(): Promise<{ templates: Template[]; mappings: Mapping[]; warnings: string[] }> {
    process.env.DOCWRIGHT_POLICY = policy;
    const server = await startServer({ dataDir: home, port: 0 });
    try {
      const client = clientOf(home);
      const key = (await client.admin('POST', '/api/settings/api-keys', { name: 'restart' })).json().key as string;
      return {
        templates: (await client.api(key, 'GET', '/api/v1/templates')).json(),
        mappings: (await client.api(key, 'GET', '/api/v1/mappings')).json(),
        warnings: server.warnings,
      };
    } finally {
      await server.close();
    }
  }

  it('first start (a real serve process): imported, marked managed, bad files named in warnings', async () => {
    copyFileSync(join(FIXTURES, 'corporate.docx'), join(seed, 'corporate.docx'));
    writeJson('corporate.mapping.json', { name: 'Corporate', template: 'corporate.docx', rules: CORPORATE_RULES });
    writeJson('plain.mapping.json', { template: 'Docwright Default', rules: { paragraph: 'No Such Style' } });
    writeFileSync(join(seed, 'broken.docx'), 'this is not a zip package');
    writeFileSync(join(seed, 'broken.mapping.json'), '{ "template": ');
    writeJson('orphan.mapping.json', { template: 'letterhead', rules: {} });
    writeJson('wrong.mapping.json', { template: 'corporate', rules: { heading: { '7': 'Heading 7' } } });
    writeJson('notes.json', { hello: 'world' });
    writeFileSync(join(seed, 'README.txt'), 'Our templates.');

    const serve = await startServe([], { env: envFor(home, policy) });
    try {
      await firstStart(serve.stderr());
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  async function firstStart(stderr: string): Promise<void> {
    for (const expected of [
      `warning: Seed file ${join(seed, 'broken.docx')} is not a usable Word template (`,
      `warning: Seed file ${join(seed, 'broken.mapping.json')}: not valid JSON (`,
      `warning: Seed file ${join(seed, 'orphan.mapping.json')}: template "letterhead" is neither a template of the seed folder (its file name or name) nor "Docwright Default"; skipped.`,
      `warning: Seed file ${join(seed, 'wrong.mapping.json')}: rules.heading.7 is not a heading level; use "1" to "6"; skipped.`,
      `warning: Seed file ${join(seed, 'plain.mapping.json')}: missing_style: No Such Style`,
      `warning: Seed file ${join(seed, 'notes.json')} is not named <name>.mapping.json; ignored.`,
    ]) {
      expect(stderr).toContain(expected);
    }
    expect(stderr).not.toContain('README.txt');

    const client = clientOf(home);
    const key = (await client.admin('POST', '/api/settings/api-keys', { name: 'seed test' })).json().key as string;
    const templates = (await client.api(key, 'GET', '/api/v1/templates')).json() as Template[];
    expect(templates.map((t) => [t.id, t.name, t.version, t.builtin, t.managed])).toEqual([
      [BUILTIN_TEMPLATE_ID, 'Docwright Default', 1, true, false],
      [corporateId, 'corporate', 1, false, true],
    ]);
    const mappings = (await client.api(key, 'GET', '/api/v1/mappings')).json() as Mapping[];
    const seeded = mappings.filter((m) => m.managed);
    expect(seeded.map((m) => [m.id, m.name, m.template_id, m.version]).sort()).toEqual(
      [
        [corporateMappingId, 'Corporate', corporateId, 1],
        [defaultMappingId, 'plain', BUILTIN_TEMPLATE_ID, 1],
      ].sort(),
    );

    // They convert like any other.
    const converted = await client.api(key, 'POST', '/api/v1/convert', {
      markdown: '# Title\n\nBody text.',
      template_id: corporateId,
      mapping_id: corporateMappingId,
    });
    expect(converted.status).toBe(200);
    const checked = await validateDocx(new Uint8Array(converted.bytes));
    expect(checked.ok, checked.report).toBe(true);

    // Read-only for users: every change is 403 forbidden, and nothing changes.
    const refusals = [
      await client.api(key, 'PATCH', `/api/v1/templates/${corporateId}`, { name: 'Mine now' }),
      await client.api(key, 'DELETE', `/api/v1/templates/${corporateId}`),
      await client.api(key, 'PATCH', `/api/v1/mappings/${corporateMappingId}`, { name: 'Mine now' }),
      await client.api(key, 'DELETE', `/api/v1/mappings/${corporateMappingId}`),
    ];
    const form = new FormData();
    form.append('file', new Blob([readFileSync(join(FIXTURES, 'corporate-nobody.docx'))]), 'other.docx');
    const put = await request(`${client.url}/api/v1/templates/${corporateId}/file`, {
      method: 'PUT',
      body: form,
      headers: { authorization: `Bearer ${key}` },
      ...(client.agent ? { dispatcher: client.agent } : {}),
    });
    const putBody = Buffer.from(await put.body.arrayBuffer()).toString('utf8');
    const answers = [
      ...refusals.map((r) => ({ status: r.status, body: r.json() })),
      { status: put.statusCode, body: JSON.parse(putBody) },
    ];
    for (const { status, body } of answers) {
      expect(status).toBe(403);
      expect(body.error.code).toBe('forbidden');
      expect(body.error.message).toMatch(
        /^The (template "corporate"|mapping "Corporate") is managed by your organisation; it cannot be changed or deleted here\./,
      );
    }
    // A user's own mapping for the seeded template is theirs to edit.
    const own = await client.api(key, 'POST', '/api/v1/mappings', {
      name: 'My corporate',
      template_id: corporateId,
      rules: { paragraph: 'Corp Body' },
    });
    expect(own.status).toBe(201);
    expect(own.json().managed).toBe(false);
    // The seeded template is unchanged; only its list of mappings (beyond SPEC's fields) names the user's new one.
    const after = (await client.api(key, 'GET', '/api/v1/templates')).json() as Template[];
    const withoutMappings = (list: Template[]): unknown[] => list.map(({ mappings: _mappings, ...rest }) => rest);
    expect(withoutMappings(after)).toEqual(withoutMappings(templates));
    expect(after.find((t) => t.id === corporateId)?.mappings?.map((m) => m.name)).toContain('My corporate');
  }

  let first: { templates: Template[]; mappings: Mapping[] };

  it('restarts: the same ids, no duplicates, nothing changed', async () => {
    first = await restart();
    const again = await restart();
    expect(again.templates).toEqual(first.templates);
    expect(again.mappings).toEqual(first.mappings);
    expect(first.templates).toHaveLength(2);
    expect(first.mappings.filter((m) => m.managed)).toHaveLength(2);
  });

  it('a changed file: the same id, version 2, updated_at changes; a changed mapping file likewise', async () => {
    copyFileSync(join(FIXTURES, 'corporate-nobody.docx'), join(seed, 'corporate.docx'));
    writeJson('corporate.mapping.json', {
      name: 'Corporate',
      template: 'corporate',
      rules: { ...CORPORATE_RULES, paragraph: 'Corp Quote' },
    });
    const changed = await restart();
    const before = first.templates.find((t) => t.id === corporateId);
    const now = changed.templates.find((t) => t.id === corporateId);
    expect(changed.templates).toHaveLength(2);
    expect(now).toMatchObject({
      version: 2,
      managed: true,
      created_at: before?.created_at,
      size: readFileSync(join(FIXTURES, 'corporate-nobody.docx')).length,
    });
    expect(now?.updated_at).not.toBe(before?.updated_at);
    const mapping = changed.mappings.find((m) => m.id === corporateMappingId);
    expect(mapping).toMatchObject({ version: 2, managed: true, rules: { paragraph: 'Corp Quote' } });
    expect(changed.mappings.find((m) => m.id === defaultMappingId)?.version).toBe(1);
    const stable = await restart();
    expect(stable.templates.find((t) => t.id === corporateId)?.version).toBe(2);
  });

  it('a removed file releases its record (kept, no longer managed); an unreadable folder changes nothing', async () => {
    rmSync(join(seed, 'plain.mapping.json'));
    const released = await restart();
    expect(released.mappings.find((m) => m.id === defaultMappingId)).toMatchObject({ managed: false, version: 1 });
    expect(released.mappings.find((m) => m.id === corporateMappingId)?.managed).toBe(true);

    renameSync(seed, `${seed}-away`);
    const unmounted = await restart();
    expect(unmounted.warnings).toContainEqual(
      expect.stringContaining(`The seed folder ${seed} (policy ${policy}) cannot be read`),
    );
    expect(unmounted.templates.find((t) => t.id === corporateId)).toMatchObject({ managed: true, version: 2 });
    expect(unmounted.mappings.find((m) => m.id === corporateMappingId)?.managed).toBe(true);
    renameSync(`${seed}-away`, seed);
  });
});
