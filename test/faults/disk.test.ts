// A full disk and an unwritable data directory, on a real `docwright serve` process. A full disk is a file-size
// limit on the server (prlimit --fsize: every write past it fails with EFBIG, as ENOSPC would); an unwritable
// directory is chmod a-w, with the server run as user nobody (setpriv) when the tests run as root, whom permissions
// do not stop. Requests that must write answer 500 internal_error and leave nothing behind (the records are rolled
// back, no half-written file stays), reads keep working, a start names the directory, and db.json and every stored
// file are byte for byte what they were.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FormData, fetch, type Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultTemplate } from '../../server/convert/index.ts';
import { startServer } from '../../server/serve.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, killAllChildren, startServe, trustingAgent } from '../helpers/docwright-process.ts';
import { fileHashes } from '../helpers/file-hashes.ts';

const isRoot = process.getuid?.() === 0;
/** How the server is run for the unwritable-directory tests: as nobody when we are root. */
const AS_USER = isRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'] : [];
// The key secret in a file of the data directory, which that other user can read (the keychain is ours).
process.env.DOCWRIGHT_KEYCHAIN = 'off';

const root = mkdtempSync(join(tmpdir(), 'dw-faults-disk-'));
chmodSync(root, 0o755);
// This file's temp folder (test/helpers/temp-per-file.ts, 0700, ours) must let that user through to the data
// directories in it (search only, no listing), and that user needs a temp folder of its own (tsx's cache, uploads).
chmodSync(tmpdir(), 0o711);
const userTmp = join(root, 'user-tmp');
mkdirSync(userTmp, { mode: 0o700 });
if (isRoot) chownSync(userTmp, 65534, 65534);
/** The environment of a server run as that user. */
const userEnv = { ...process.env, TMPDIR: userTmp };
afterAll(async () => {
  await killAllChildren();
  chmodAll(root, true);
  rmSync(root, { recursive: true, force: true });
});

/** Files that belong to a running server, not to the data: they come and go with it. */
const RUNTIME = new Set(['server.json', 'admin.token', 'docwright.lock']);

/** Every data file with the hash of its bytes. */
const files = (dir: string) => fileHashes(dir, (name) => RUNTIME.has(name));

function chmodAll(dir: string, writable: boolean) {
  const walk = (d: string) => {
    chmodSync(d, writable ? 0o700 : 0o500);
    for (const name of readdirSync(d)) if (statSync(join(d, name)).isDirectory()) walk(join(d, name));
  };
  walk(dir);
}

/** Makes the directory unwritable for the server; returns how to undo it. */
function makeReadOnly(dir: string): () => void {
  chmodAll(dir, false);
  return () => chmodAll(dir, true);
}

/** Hands the directory to the user the server runs as. */
function giveAway(dir: string) {
  if (!isRoot) return;
  const walk = (path: string) => {
    chownSync(path, 65534, 65534);
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
}

interface Client {
  url: string;
  agent: Agent;
  auth: Record<string, string>;
  admin: Record<string, string>;
  get: (path: string) => ReturnType<typeof call>;
  post: (path: string, body: unknown, headers?: Record<string, string>) => ReturnType<typeof call>;
}

async function client(url: string, dir: string, key: string): Promise<Client> {
  const agent = trustingAgent(join(dir, 'tls', 'localhost-cert.pem'));
  const auth = { authorization: `Bearer ${key}` };
  const admin = { 'x-docwright-admin': readFileSync(join(dir, 'admin.token'), 'utf8').trim() };
  return {
    url,
    agent,
    auth,
    admin,
    get: (path) => call(agent, `${url}${path}`, { headers: path.startsWith('/api/settings') ? admin : auth }),
    post: (path, body, headers) =>
      call(agent, `${url}${path}`, {
        method: 'POST',
        headers: headers ?? (path.startsWith('/api/settings') ? admin : auth),
        body,
      }),
  };
}

async function uploadTemplate(c: Client): Promise<number> {
  const form = new FormData();
  form.append('name', 'full disk');
  form.append('file', new Blob([new Uint8Array(defaultTemplate())]), 'disk.docx');
  const res = await fetch(`${c.url}/api/v1/templates`, {
    method: 'POST',
    body: form,
    headers: c.auth,
    dispatcher: c.agent,
  });
  const body = (await res.json()) as { error?: { code: string; message: string } };
  if (res.status >= 500) expect(body).toEqual({ error: { code: 'internal_error', message: expect.any(String) } });
  return res.status;
}

const convert = (markdown: string) => ({
  markdown,
  template_id: BUILTIN_TEMPLATE_ID,
  mapping_id: BUILTIN_MAPPING_ID,
  response_format: 'json',
});

/** A data directory with a key, a template and conversions, written by a real server (in this process) that is then stopped. */
async function populated(
  keys: number,
): Promise<{ dir: string; key: string; conversionIds: string[]; outputSize: number }> {
  const dir = mkdtempSync(join(root, 'd-'));
  const server = await startServer({ dataDir: dir, port: 0 });
  const agent = trustingAgent(join(dir, 'tls', 'localhost-cert.pem'));
  const created = await call(agent, `${server.discovery.url}/api/settings/api-keys`, {
    method: 'POST',
    headers: { 'x-docwright-admin': server.adminToken },
    body: { name: 'disk' },
  });
  await agent.close();
  const key = (created.json() as { key: string }).key;
  const c = await client(server.discovery.url, dir, key);
  expect(await uploadTemplate(c)).toBe(201);
  const conversionIds: string[] = [];
  let outputSize = 0;
  for (let i = 0; i < 3; i++) {
    const res = await c.post('/api/v1/convert', convert(`# Stored ${i}\n\nSome text.\n`));
    expect(res.status).toBe(200);
    conversionIds.push((res.json() as { conversion_id: string }).conversion_id);
    outputSize = Math.max(outputSize, readFileSync(join(dir, 'outputs', `${String(conversionIds[i])}.docx`)).length);
  }
  for (let i = 0; i < keys; i++)
    expect((await c.post('/api/settings/api-keys', { name: `padding key ${i} ${'x'.repeat(80)}` })).status).toBe(201);
  await c.agent.close();
  await server.close();
  return { dir, key, conversionIds, outputSize };
}

function expectInternalError(res: Awaited<ReturnType<typeof call>>, what: string) {
  expect(res.status, `${what}: ${res.bytes.toString()}`).toBe(500);
  expect(res.json()).toEqual({ error: { code: 'internal_error', message: expect.any(String) } });
  expect(res.bytes.toString()).not.toMatch(/EFBIG|EROFS|EACCES|ENOSPC|\/tmp|db\.json/);
}

/** The writes a user can cause, each refused with 500; the reads still answer, the records are as before. */
async function writesFailReadsWork(c: Client, dir: string, conversionIds: string[]) {
  const keysBefore = (await c.get('/api/settings/api-keys')).json() as unknown[];
  const templatesBefore = (await c.get('/api/v1/templates')).json() as unknown[];
  const settingsBefore = ((await c.get('/api/settings')).json() as { settings: { retention_days: number } }).settings;
  const usage = async () =>
    ((await c.get('/api/settings')).json() as { usage: { conversions: number } }).usage.conversions;
  const usageBefore = await usage();
  expect(usageBefore, 'the populated conversions were counted').toBeGreaterThan(0);

  expectInternalError(await c.post('/api/v1/convert', convert('# A small one\n')), 'a small conversion');
  // Incompressible text: its output is larger than the limit, so writing the output itself fails.
  expectInternalError(
    await c.post('/api/v1/convert', convert(`# A large one\n\n${randomBytes(24_000).toString('base64')}\n`)),
    'a large conversion',
  );
  expectInternalError(await c.post('/api/settings/api-keys', { name: 'not stored' }), 'a key');
  expect(await uploadTemplate(c)).toBe(500);
  expectInternalError(
    await call(c.agent, `${c.url}/api/settings`, {
      method: 'PATCH',
      headers: c.admin,
      body: { retention_days: settingsBefore.retention_days + 1 },
    }),
    'a setting',
  );
  const victim = conversionIds[0] ?? '';
  expectInternalError(
    await call(c.agent, `${c.url}/api/v1/conversions/${victim}`, { method: 'DELETE', headers: c.auth }),
    'a deletion',
  );

  // What failed is not there, not even in memory; what was deleted in vain is still there, and downloads.
  expect((await c.get('/api/settings/api-keys')).json()).toEqual(keysBefore);
  expect((await c.get('/api/v1/templates')).json()).toEqual(templatesBefore);
  expect(
    ((await c.get('/api/settings')).json() as { settings: { retention_days: number } }).settings.retention_days,
  ).toBe(settingsBefore.retention_days);
  // The conversions that failed to be stored were refunded (Store.reserve's cancel after a failed save).
  expect(await usage(), 'failed conversions are not charged').toBe(usageBefore);
  const list = (await c.get('/api/v1/conversions')).json() as { items: { conversion_id: string }[]; total: number };
  expect(list.items.map((i) => i.conversion_id).sort()).toEqual([...conversionIds].sort());
  for (const id of conversionIds) {
    const download = await c.get(`/api/v1/conversions/${id}/download`);
    expect(download.status).toBe(200);
    expect(download.bytes.subarray(0, 2).toString()).toBe('PK');
  }
  expect((await c.get('/api/health')).status).toBe(200);
  expect(readdirSync(join(dir, 'outputs')).sort()).toEqual(conversionIds.map((id) => `${id}.docx`).sort());
  expect(
    ['', 'templates', 'outputs', 'conversions'].flatMap((d) =>
      readdirSync(join(dir, d)).filter((n) => n.endsWith('.tmp')),
    ),
  ).toEqual([]);
}

async function restartAndCheck(dir: string, key: string, conversionIds: string[]) {
  // Back to us (root), who restarts it here: a data directory another user owns is refused at start.
  if (isRoot) {
    const walk = (path: string) => {
      chownSync(path, 0, 0);
      if (statSync(path).isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    };
    walk(dir);
  }
  const server = await startServer({ dataDir: dir, port: 0 });
  const c = await client(server.discovery.url, dir, key);
  const list = (await c.get('/api/v1/conversions')).json() as { items: { conversion_id: string }[] };
  expect(list.items.map((i) => i.conversion_id).sort()).toEqual([...conversionIds].sort());
  await c.agent.close();
  await server.close();
}

describe('a full disk (a file-size limit on the server process)', () => {
  it('every write answers 500 internal_error and leaves db.json and the stored files as they were; reads go on', async () => {
    const { dir, key, conversionIds, outputSize } = await populated(40);
    // The conversion records' file (conversions/, schema 2) grows like db.json with use: padded here (a field a
    // hand edit may add, kept) so that writing it is over the limit too.
    const [segment, ...others] = readdirSync(join(dir, 'conversions')).map((name) => join(dir, 'conversions', name));
    expect(others).toEqual([]);
    const records = JSON.parse(readFileSync(segment ?? '', 'utf8')) as Record<string, unknown>;
    writeFileSync(segment ?? '', JSON.stringify({ ...records, note: 'x'.repeat(statSync(join(dir, 'db.json')).size) }));
    const dbSize = statSync(join(dir, 'db.json')).size;
    // Under the limit: server.json, admin.token, one small output. Over it: db.json, the records, a large output, a template.
    const limit = Math.floor((outputSize + dbSize) / 2);
    expect(outputSize + 1024, 'the test needs db.json to be larger than a small output').toBeLessThan(dbSize);
    expect(statSync(segment ?? '').size).toBeGreaterThan(limit);
    expect(defaultTemplate().length + 1024).toBeLessThan(dbSize);
    const before = files(dir);
    const server = await startServe(['--data-dir', dir], { wrapper: ['prlimit', `--fsize=${limit}`, '--'] });
    const c = await client(server.url, dir, key);
    await writesFailReadsWork(c, dir, conversionIds);
    await c.agent.close();
    server.child.kill('SIGTERM');
    await server.exited;
    expect(server.child.exitCode).toBe(0);
    expect(files(dir), 'db.json and every stored file are untouched').toEqual(before);
    console.log(`full disk: limit ${limit} bytes (db.json ${dbSize}, a small output ${outputSize})`);
    await restartAndCheck(dir, key, conversionIds);
  });

  it('a first start on a full disk fails with one line naming the directory', async () => {
    const dir = join(root, 'fresh-limited');
    const result = await execFileAsync('prlimit', [
      '--fsize=300',
      '--',
      process.execPath,
      'bin/docwright.js',
      'serve',
      '--port',
      '0',
      '--data-dir',
      dir,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^docwright: The data directory .* cannot be used: (the disk is full|a file reached the size limit)/,
    );
    expect(result.stderr).toContain(dir);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp') || n === 'docwright.lock')).toEqual([]);
  });
});

describe('an unwritable data directory', () => {
  it(`at start: docwright serve exits 1 naming the directory (chmod a-w${isRoot ? ', run as nobody' : ''}); nothing changes`, async () => {
    const { dir } = await populated(0);
    giveAway(dir);
    const before = files(dir);
    const undo = makeReadOnly(dir);
    try {
      const result = await execFileAsync(
        AS_USER[0] ?? process.execPath,
        [
          ...AS_USER.slice(1),
          ...(AS_USER.length ? [process.execPath] : []),
          'bin/docwright.js',
          'serve',
          '--port',
          '0',
          '--data-dir',
          dir,
        ],
        userEnv,
      );
      expect(result.code, result.stderr).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^docwright: The data directory .* cannot be used: permission denied/);
      expect(lines[0]).toContain(dir);
    } finally {
      undo();
    }
    expect(files(dir)).toEqual(before);
  });

  it('while running: writes answer 500 internal_error, reads go on, nothing changes', async () => {
    const { dir, key, conversionIds } = await populated(0);
    giveAway(dir);
    const before = files(dir);
    const server = await startServe(['--data-dir', dir], { wrapper: AS_USER, env: userEnv });
    const c = await client(server.url, dir, key);
    const undo = makeReadOnly(dir);
    try {
      await writesFailReadsWork(c, dir, conversionIds);
    } finally {
      undo();
    }
    await c.agent.close();
    server.child.kill('SIGTERM');
    await server.exited;
    expect(server.child.exitCode).toBe(0);
    expect(files(dir)).toEqual(before);
    await restartAndCheck(dir, key, conversionIds);
  });
});

function execFileAsync(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: join(import.meta.dirname, '../..'), env }, (error, _stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr });
    });
  });
}
