import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadSecret } from '../auth/secret.ts';
import { callServer, findRunningServer } from './running-server.ts';
import { Services } from '../services.ts';
import { ApiError } from '../errors.ts';
import { loadPolicy } from '../policy/index.ts';
import { SETTING_KEYS, type ApiKeyRecord, type Settings } from '../store/database.ts';
import { DataDirLockedError } from '../store/lock.ts';
import { Store } from '../store/store.ts';

import { docwrightCommand } from './advice.ts';
import { CliError } from './errors.ts';

/** What the admin commands do, against a running server (over its API) or the data directory itself. */
export interface AdminOps {
  readonly running: boolean;
  createKey(name: string): Promise<{ id: string; name: string; key: string; key_prefix: string; created_at: string }>;
  listKeys(): Promise<Omit<ApiKeyRecord, 'hash'>[]>;
  revokeKey(id: string): Promise<Omit<ApiKeyRecord, 'hash'>>;
  settings(): Promise<Settings>;
  updateSettings(patch: Partial<Settings>): Promise<Settings>;
}

function publicKey(k: ApiKeyRecord): Omit<ApiKeyRecord, 'hash'> {
  const { hash: _hash, ...rest } = k;
  return rest;
}

function failure(body: unknown, fallback: string): CliError {
  const message = (body as { error?: { message?: string } } | null)?.error?.message;
  return new CliError(message ?? fallback);
}

/**
 * Runs admin operations: through the running server when there is one (so only it writes the data directory), else
 * on the data directory directly, holding its lock.
 */
export async function withAdmin<T>(dataDir: string, fn: (ops: AdminOps) => Promise<T>): Promise<T> {
  // An invalid policy file stops every command that reads or writes settings (a PolicyError naming the file).
  const policy = loadPolicy();
  const server = findRunningServer(dataDir);
  if (server) {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await callServer(server, method, path, body);
      if (res.status >= 400) throw failure(res.body, `the server answered ${res.status}`);
      return res.body;
    };
    return fn({
      running: true,
      createKey: async (name) => (await call('POST', '/api/settings/api-keys', { name })) as never,
      listKeys: async () => (await call('GET', '/api/settings/api-keys')) as never,
      revokeKey: async (id) => (await call('DELETE', `/api/settings/api-keys/${encodeURIComponent(id)}`)) as never,
      settings: async () => ((await call('GET', '/api/settings')) as { settings: Settings }).settings,
      updateSettings: async (patch) =>
        ((await call('PATCH', '/api/settings', patch)) as { settings: Settings }).settings,
    });
  }
  let store: Store;
  try {
    store = await Store.open(dataDir);
  } catch (error) {
    if (error instanceof DataDirLockedError) throw new CliError(`${error.message} Wait for it to finish, or stop it.`);
    throw error;
  }
  try {
    // The policy applies here as in the server: settings in force, locked settings and API-key rules refused.
    const services = new Services(store, undefined, undefined, policy);
    return await fn({
      running: false,
      createKey: async (name) => {
        const { secret } = await loadSecret(dataDir);
        const { record, key } = await services.createApiKey(name, secret);
        return { id: record.id, name: record.name, key, key_prefix: record.key_prefix, created_at: record.created_at };
      },
      listKeys: async () => store.listKeys().map(publicKey),
      revokeKey: async (id) => {
        const record = await store.revokeKey(id, new Date());
        if (!record) throw new CliError(`no API key with id ${id} (see ${docwrightCommand('keys list')})`);
        return publicKey(record);
      },
      settings: async () => store.settings(),
      updateSettings: async (patch) => services.updateSettings(patch),
    });
  } catch (error) {
    if (error instanceof ApiError) throw new CliError(error.message);
    throw error;
  } finally {
    store.close();
  }
}

/** Parses `config set KEY VALUE` into a settings patch, with a message naming the key when the value is wrong. */
export function parseSetting(key: string, value: string): Partial<Settings> {
  const int = (min: number, max: number) => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
      throw new CliError(`${key} must be a whole number from ${min} to ${max}`);
    return Number(value);
  };
  switch (key) {
    case 'plan': {
      const plan = value.toLowerCase();
      if (plan !== 'solo' && plan !== 'team' && plan !== 'enterprise')
        throw new CliError('plan must be solo, team or enterprise');
      return { plan: plan };
    }
    case 'monthly_quota':
      return { monthly_quota: value.toLowerCase() === 'unlimited' ? null : int(0, 1_000_000_000) };
    case 'retention_days':
      return { retention_days: int(1, 3650) };
    case 'port':
      return { port: int(1, 65535) };
    case 'mcp_output_dir':
      return { mcp_output_dir: outputDir(value) };
    default:
      throw new CliError(`unknown setting ${key}; use one of ${SETTING_KEYS.join(', ')}`);
  }
}

/** `config set mcp_output_dir FOLDER|none`: an existing folder, stored absolute (relative to the current one). */
function outputDir(value: string): string | null {
  if (['none', 'off', ''].includes(value.trim().toLowerCase())) return null;
  const dir = resolve(value);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new CliError(`mcp_output_dir must be an existing folder; ${dir} is not one`);
  return dir;
}
