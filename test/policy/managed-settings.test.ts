// Managed settings end to end: a policy locks some settings and gives defaults for others; a real `docwright
// serve` process and the CLI (with and without that server) enforce it: a locked value wins over the user's stored
// choice and cannot be changed (403 `forbidden` from the API, exit 1 from the CLI), an unlocked one is the default
// until the user chooses, and API-key creation follows allow_api_keys and max_api_keys. Then startServer with a
// locked port, HTTP switch and retention.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PolicyError } from '../../server/policy/index.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { Store } from '../../server/store/store.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, killAllChildren, runCli, startServe } from '../helpers/docwright-process.ts';
import { clientOf, envFor, removeTempDirs, tempDir, writePolicy } from './support.ts';

const running: RunningServer[] = [];
afterAll(async () => {
  for (const server of running) await server.close();
  await killAllChildren();
  removeTempDirs();
});

const builtin = { template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID, response_format: 'json' };

describe('a real server and the CLI under a policy', () => {
  it('locked wins and cannot be changed (API, CLI with and without the server); unlocked is the default; key limits', async () => {
    const home = tempDir();
    // The user chose a plan and a retention before the policy arrived.
    const store = await Store.open(home);
    await store.updateSettings({ plan: 'solo', retention_days: 40 });
    store.close();
    const policy = writePolicy({
      settings: {
        plan: { value: 'enterprise', locked: true },
        monthly_quota: { value: 2, locked: false },
        retention_days: { value: 60, locked: false },
        allow_api_keys: { value: true, locked: true },
        max_api_keys: { value: 2, locked: true },
      },
    });
    const env = envFor(home, policy);
    const serve = await startServe([], { env });
    const client = clientOf(home);
    const locked = `plan is managed by your organisation's policy (${policy}).`;

    const view = (await client.admin('GET', '/api/settings')).json();
    expect(view.settings).toMatchObject({ plan: 'enterprise', monthly_quota: 2, retention_days: 40 });
    expect(view.policy_path).toBe(policy);
    expect(view.managed).toEqual({
      plan: { value: 'enterprise', locked: true, in_force: true, source: policy },
      monthly_quota: { value: 2, locked: false, in_force: true, source: policy },
      retention_days: { value: 60, locked: false, in_force: false, source: policy },
      allow_api_keys: { value: true, locked: true, in_force: true, source: policy },
      max_api_keys: { value: 2, locked: true, in_force: true, source: policy },
    });
    expect(view.usage.quota).toBe(2);
    expect(view.api_keys).toEqual({ allowed: true, max: 2, active: 0 });

    // A locked setting: 403 naming it, and nothing of the request changes (not even the unlocked part).
    for (const body of [{ plan: 'team' }, { retention_days: 10, plan: 'enterprise' }]) {
      const refused = await client.admin('PATCH', '/api/settings', body);
      expect(refused.status).toBe(403);
      expect(refused.json()).toEqual({ error: { code: 'forbidden', message: locked } });
    }
    expect((await client.admin('GET', '/api/settings')).json().settings).toMatchObject({
      plan: 'enterprise',
      retention_days: 40,
    });

    // Keys: at most 2 not revoked.
    const made: { id: string; key: string }[] = [];
    for (const name of ['one', 'two']) {
      const res = await client.admin('POST', '/api/settings/api-keys', { name });
      expect(res.status, res.bytes.toString()).toBe(201);
      made.push(res.json());
    }
    const third = await client.admin('POST', '/api/settings/api-keys', { name: 'three' });
    expect(third.status).toBe(403);
    expect(third.json()).toEqual({
      error: {
        code: 'forbidden',
        message: `Your organisation's policy (${policy}) allows at most 2 API keys; revoke one before creating another.`,
      },
    });
    expect((await client.admin('GET', '/api/settings')).json().api_keys).toEqual({ allowed: false, max: 2, active: 2 });

    // The CLI through the running server: the same refusals, exit 1.
    const [setPlan, createKey] = await Promise.all([
      runCli(['config', 'set', 'plan', 'solo'], { env }),
      runCli(['keys', 'create', 'three'], { env }),
    ]);
    expect(setPlan).toEqual({ code: 1, stdout: '', stderr: `docwright: ${locked}\n` });
    expect(createKey.code).toBe(1);
    expect(createKey.stderr).toContain('allows at most 2 API keys');

    expect((await client.admin('DELETE', `/api/settings/api-keys/${String(made[1]?.id)}`)).status).toBe(200);
    expect((await client.admin('POST', '/api/settings/api-keys', { name: 'three' })).status).toBe(201);

    // The unlocked quota (2) is in force until the user chooses another.
    const key = made[0]?.key ?? '';
    for (let i = 0; i < 2; i++)
      expect((await client.api(key, 'POST', '/api/v1/convert', { markdown: `# ${i}`, ...builtin })).status).toBe(200);
    const spent = await client.api(key, 'POST', '/api/v1/convert', { markdown: '# 3', ...builtin });
    expect(spent.status).toBe(429);
    expect(spent.json().error.message).toContain('quota of 2 conversions');
    const chosen = await client.admin('PATCH', '/api/settings', { monthly_quota: 5 });
    expect(chosen.status).toBe(200);
    expect(chosen.json().settings.monthly_quota).toBe(5);
    expect(chosen.json().managed.monthly_quota.in_force).toBe(false);
    expect((await client.api(key, 'POST', '/api/v1/convert', { markdown: '# 4', ...builtin })).status).toBe(200);

    serve.child.kill('SIGTERM');
    await serve.exited;

    // Without a server the CLI opens the data directory itself: the same policy, the same refusal.
    const offline = await runCli(['config', 'set', 'plan', 'solo'], { env });
    expect(offline).toEqual({ code: 1, stdout: '', stderr: `docwright: ${locked}\n` });
    // The user's own choice is kept, only not in force.
    const db = JSON.parse(readFileSync(join(home, 'db.json'), 'utf8'));
    expect(db.settings).toMatchObject({ plan: 'solo', retention_days: 40, monthly_quota: 5 });
    expect([...db.chosen_settings].sort()).toEqual(['monthly_quota', 'plan', 'retention_days']);
  });
});

/** A port free at the moment. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

describe('startServer under a policy', () => {
  const saved = process.env.DOCWRIGHT_POLICY;
  afterAll(() => {
    if (saved === undefined) delete process.env.DOCWRIGHT_POLICY;
    else process.env.DOCWRIGHT_POLICY = saved;
  });

  it('a locked port, host and HTTP switch decide where it listens; an option that contradicts them is refused', async () => {
    const home = tempDir();
    const port = await freePort();
    const policy = writePolicy({
      settings: {
        port: { value: port, locked: true },
        http: { value: true, locked: true },
        host: { value: '127.0.0.1', locked: true },
      },
    });
    process.env.DOCWRIGHT_POLICY = policy;
    const refusal = (e: unknown) => e;
    const wrongPort = await startServer({ dataDir: home, port: 0 }).catch(refusal);
    expect(wrongPort).toBeInstanceOf(PolicyError);
    expect((wrongPort as Error).message).toBe(
      `port is managed by your organisation's policy (${policy}): it is ${port}, so --port 0 cannot be used.`,
    );
    const wrongHost = await startServer({ dataDir: home, host: '::1' }).catch(refusal);
    expect((wrongHost as Error).message).toBe(
      `host is managed by your organisation's policy (${policy}): it is "127.0.0.1", so --host ::1 cannot be used.`,
    );

    const server = await startServer({ dataDir: home, port });
    running.push(server);
    expect(server.discovery.url).toBe(`http://127.0.0.1:${port}`);
    expect((await call(undefined, `${server.discovery.url}/api/health`)).json()).toMatchObject({ status: 'ok' });
    const view = (await clientOf(home).admin('GET', '/api/settings')).json();
    expect(view.settings.port).toBe(port);
    expect(view.managed.port).toEqual({ value: port, locked: true, in_force: true, source: policy });
    await server.close();
  });

  it("a locked retention purges at start what the user's longer retention kept; allow_api_keys false refuses new keys", async () => {
    const home = tempDir();
    const store = await Store.open(home);
    const day = 86_400_000;
    const record = (id: string, age: number) => ({
      conversion_id: id,
      status: 'completed' as const,
      filename: 'old.docx',
      warnings: [],
      stats: { headings: 0, paragraphs: 1, lists: 0, tables: 0, code_blocks: 0, images: 0 },
      created_at: new Date(Date.now() - age * day).toISOString(),
      template_id: BUILTIN_TEMPLATE_ID,
      mapping_id: BUILTIN_MAPPING_ID,
      channel: 'cli' as const,
    });
    await store.addConversion(record('8a4f2d10-0000-4000-8000-000000000010', 10), new Uint8Array([1, 2, 3]));
    await store.addConversion(record('8a4f2d10-0000-4000-8000-000000000003', 3), new Uint8Array([1, 2, 3]));
    expect(store.settings().retention_days).toBe(30);
    store.close();
    const policy = writePolicy({
      settings: { retention_days: { value: 5, locked: true }, allow_api_keys: { value: false, locked: true } },
    });
    process.env.DOCWRIGHT_POLICY = policy;
    const server = await startServer({ dataDir: home, port: 0 });
    running.push(server);
    expect(server.store.listConversions(0, 10).items.map((c) => c.conversion_id)).toEqual([
      '8a4f2d10-0000-4000-8000-000000000003',
    ]);
    const client = clientOf(home);
    const refused = await client.admin('POST', '/api/settings/api-keys', { name: 'ci' });
    expect(refused.status).toBe(403);
    expect(refused.json()).toEqual({
      error: {
        code: 'forbidden',
        message: `Creating API keys is turned off by your organisation's policy (${policy}).`,
      },
    });
    expect((await client.admin('GET', '/api/settings')).json().api_keys).toEqual({
      allowed: false,
      max: null,
      active: 0,
    });
    await server.close();
  });
});
