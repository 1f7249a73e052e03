// The admin commands as a user runs them: `docwright keys|config|status` child processes with a fresh
// DOCWRIGHT_HOME each, first with no server (they open the data directory themselves), then with `docwright serve`
// running (they go through it, and what they change holds at once for API requests).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  killAllChildren,
  runCli,
  startServe,
  trustingAgent,
  type CliResult,
  type ServeProcess,
} from './helpers/docwright-process.ts';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dw-cli-admin-'));
  dirs.push(d);
  return d;
}

afterAll(async () => {
  await killAllChildren();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Where the key secret is expected: the OS keychain under scripts/with-keyring.sh (or a desktop session). */
const EXPECTED_KEYCHAIN =
  process.env.DOCWRIGHT_KEYCHAIN === 'off' || (process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS)
    ? 'file'
    : 'keychain';

let home: string;
const env = () => ({ ...process.env, DOCWRIGHT_HOME: home });
const docwright = (...args: string[]): Promise<CliResult> => runCli(args, { env: env() });

/** Runs a command that must succeed; returns its standard output. */
async function ok(...args: string[]): Promise<string> {
  const result = await docwright(...args);
  expect(result.code, `docwright ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Runs a command that must fail with one line on standard error; returns that line. */
async function fails(...args: string[]): Promise<string> {
  const result = await docwright(...args);
  expect(result.code, `docwright ${args.join(' ')} should fail`).not.toBe(0);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  return lines[0] ?? '';
}

describe('without a running server (the data directory directly)', () => {
  beforeEach(() => {
    home = tempDir();
  });

  it('keys create prints the key alone on stdout; list --json shows it without secret or hash; revoke revokes', async () => {
    const created = await docwright('keys', 'create', 'CI script');
    expect(created.code, created.stderr).toBe(0);
    const lines = created.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const key = lines[0] ?? '';
    expect(key).toMatch(/^dw_[0-9A-Za-z]+$/);
    expect(created.stderr).toContain('not shown again');

    const listed = await ok('keys', 'list', '--json');
    expect(listed).not.toContain(key);
    const list = JSON.parse(listed) as Record<string, unknown>[];
    expect(list).toHaveLength(1);
    const entry = list[0] ?? {};
    expect(entry).toMatchObject({ name: 'CI script', revoked_at: null, last_used_at: null });
    expect(Object.keys(entry)).not.toContain('key');
    expect(Object.keys(entry)).not.toContain('hash');
    expect(key.startsWith(String(entry.key_prefix))).toBe(true);
    expect(String(entry.key_prefix).length).toBeLessThan(key.length);
    expect(await ok('keys', 'list')).not.toContain(key);

    const id = String(entry.id);
    expect(await ok('keys', 'revoke', id)).toContain(`Revoked ${id}`);
    const after = JSON.parse(await ok('keys', 'list', '--json')) as { id: string; revoked_at: string | null }[];
    expect(after).toHaveLength(1);
    expect(after[0]?.revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(await ok('keys', 'list')).toContain('REVOKED');

    expect(await fails('keys', 'revoke', 'key_nope')).toMatch(/^docwright: .*key_nope/);
  });

  it('config set/get: plan and monthly_quota (unlimited)', async () => {
    expect(await ok('config', 'get', 'plan')).toBe('team\n');
    expect(await ok('config', 'set', 'plan', 'solo')).toBe('plan = solo\n');
    expect(await ok('config', 'get', 'plan')).toBe('solo\n');
    expect(await ok('config', 'set', 'monthly_quota', '100')).toBe('monthly_quota = 100\n');
    expect(await ok('config', 'get', 'monthly_quota')).toBe('100\n');
    expect(await ok('config', 'set', 'monthly_quota', 'unlimited')).toBe('monthly_quota = unlimited\n');
    expect(await ok('config', 'get', 'monthly_quota')).toBe('unlimited\n');
    const all = JSON.parse(await ok('config', 'get', '--json'));
    expect(all).toMatchObject({ plan: 'solo', monthly_quota: null });
  });

  it('refuses bad values with a one-line message naming the setting, and changes nothing', async () => {
    expect(await fails('config', 'set', 'plan', 'gold')).toMatch(/^docwright: .*\bplan\b/);
    expect(await fails('config', 'set', 'port', '99999')).toMatch(/^docwright: .*\bport\b/);
    expect(await fails('config', 'set', 'nope', '1')).toMatch(/^docwright: .*\bnope\b/);
    expect(await fails('config', 'get', 'nope')).toMatch(/^docwright: .*\bnope\b/);
    expect(await ok('config', 'get', 'plan')).toBe('team\n');
    expect(await ok('config', 'get', 'port')).toBe('47823\n');
  });

  it('status --json: not running, the plan, and where the key secret is kept', async () => {
    const status = JSON.parse(await ok('status', '--json'));
    expect(status).toMatchObject({
      running: false,
      url: null,
      pid: null,
      plan: 'team',
      keychain: EXPECTED_KEYCHAIN,
      data_dir: home,
    });
    await ok('config', 'set', 'plan', 'solo');
    expect(JSON.parse(await ok('status', '--json'))).toMatchObject({
      running: false,
      plan: 'solo',
      api_access: false,
      monthly_quota: 20,
    });
  });

  it('--data-dir wins over DOCWRIGHT_HOME', async () => {
    const other = tempDir();
    await ok('keys', 'create', 'elsewhere', '--data-dir', other);
    expect(JSON.parse(await ok('keys', 'list', '--json'))).toEqual([]);
    expect(JSON.parse(await ok('keys', 'list', '--json', '--data-dir', other))).toHaveLength(1);
  });
});

describe('with a running server (docwright serve)', () => {
  let server: ServeProcess;
  let agent: Agent;
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    home = tempDir();
    server = await startServe([], { env: env() });
    agent = trustingAgent(join(home, 'tls', 'localhost-cert.pem'));
  });

  afterAll(async () => {
    await agent?.close();
  });

  const templates = (withKey = key) =>
    call(agent, `${server.url}/api/v1/templates`, { headers: { authorization: `Bearer ${withKey}` } });

  it('status --json: running, with its url and pid', async () => {
    const status = JSON.parse(await ok('status', '--json'));
    expect(status).toMatchObject({
      running: true,
      url: server.url,
      pid: server.pid,
      plan: 'team',
      keychain: EXPECTED_KEYCHAIN,
    });
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('keys create goes through the server: the key works at once over HTTPS', async () => {
    const stdout = await ok('keys', 'create', 'live');
    key = stdout.trim();
    expect(key).toMatch(/^dw_/);
    // The server holds the data directory's lock, so only it can have stored the key; it knows it at once.
    const res = await templates();
    expect(res.status, res.bytes.toString()).toBe(200);
    const list = JSON.parse(await ok('keys', 'list', '--json')) as Record<string, unknown>[];
    expect(list).toHaveLength(1);
    expect(Object.keys(list[0] ?? {})).not.toContain('hash');
    expect(Object.keys(list[0] ?? {})).not.toContain('key');
    keyId = String(list[0]?.id);
    expect(list[0]?.last_used_at).not.toBeNull();
  });

  it('config set plan solo takes effect at once: the key gets 403 api_access_denied', async () => {
    expect(await ok('config', 'set', 'plan', 'solo')).toBe('plan = solo\n');
    const res = await templates();
    expect(res.status).toBe(403);
    expect(res.json().error.code).toBe('api_access_denied');
    expect(await ok('config', 'get', 'plan')).toBe('solo\n');
    expect(await fails('config', 'set', 'plan', 'gold')).toMatch(/\bplan\b/);
    expect(await ok('config', 'set', 'plan', 'team')).toBe('plan = team\n');
    expect((await templates()).status).toBe(200);
  });

  it('keys revoke: the key gets 401 on the next request', async () => {
    expect(await ok('keys', 'revoke', keyId)).toContain(`Revoked ${keyId}`);
    const res = await templates();
    expect(res.status).toBe(401);
    expect(res.json().error.code).toBe('invalid_api_key');
    expect(await fails('keys', 'revoke', 'key_nope')).toMatch(/^docwright: .*key_nope/);
  });

  it('after a kill -9 of the server, status says not running and the commands use the data directory again', async () => {
    server.child.kill('SIGKILL');
    await server.exited;
    const status = JSON.parse(await ok('status', '--json'));
    expect(status).toMatchObject({ running: false, url: null, pid: null });
    const list = JSON.parse(await ok('keys', 'list', '--json')) as { id: string; revoked_at: string | null }[];
    expect(list.map((k) => k.id)).toEqual([keyId]);
    expect(list[0]?.revoked_at).not.toBeNull();
  });
});
