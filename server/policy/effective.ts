import type { Settings } from '../store/database.ts';
import type { Store } from '../store/store.ts';
import { PolicyError, type Policy } from './load.ts';
import { POLICY_SETTING_KEYS, type PolicySettingKey, type PolicySettings } from './schema.ts';

/** The settings in force: the user's settings with the policy applied, plus those only a policy sets. */
export interface EffectiveSettings extends Settings {
  /** Address `serve` binds (the command line's --host when the policy does not lock it). */
  host: string;
  /** Plain HTTP instead of HTTPS (the command line's --http when the policy does not lock it). */
  http: boolean;
  /** Whether serve may listen beyond loopback (with HTTPS): the command line's --allow-remote when not locked. */
  allow_remote: boolean;
  /** Whether users may create API keys. */
  allow_api_keys: boolean;
  /** Most API keys not revoked at once; null: no limit. */
  max_api_keys: number | null;
}

const BUILT_IN = { host: '127.0.0.1', http: false, allow_remote: false, allow_api_keys: true, max_api_keys: null };

/** A managed setting as GET /api/settings shows it, for the UI to mark it. */
export type ManagedSetting<K extends PolicySettingKey = PolicySettingKey> = NonNullable<PolicySettings[K]> & {
  /** Whether the policy's value is the one in force (locked, or a default the user has not overridden). */
  in_force: boolean;
  /** The policy file that manages it. */
  source: string;
};
export type ManagedSettings = { [K in PolicySettingKey]?: ManagedSetting<K> };

function entries(policy: Policy | null): [PolicySettingKey, { value: unknown; locked: boolean }][] {
  if (!policy) return [];
  return POLICY_SETTING_KEYS.flatMap((key) => {
    const entry = policy.settings[key];
    return entry ? [[key, entry] as [PolicySettingKey, { value: unknown; locked: boolean }]] : [];
  });
}

/**
 * The user's stored settings with the policy applied: a locked value always; an unlocked one while the user has not
 * chosen that setting (`chosen`). The stored values themselves are kept.
 */
export function settingsInForce(stored: Settings, chosen: ReadonlySet<string>, policy: Policy | null): Settings {
  const out: Record<string, unknown> = { ...stored };
  for (const [key, entry] of entries(policy)) {
    if (!(key in stored)) continue;
    if (entry.locked || !chosen.has(key)) out[key] = entry.value;
  }
  return out as unknown as Settings;
}

/**
 * Every setting in force: `settings` (the store's, to which applyPolicy already applied the policy) plus host,
 * http and the API-key rules, from the policy or their built-in defaults. What the server uses everywhere.
 */
export function effectiveSettings(settings: Settings, policy: Policy | null): EffectiveSettings {
  const out: Record<string, unknown> = { ...BUILT_IN, ...settings };
  for (const [key, entry] of entries(policy)) if (entry.locked || !(key in settings)) out[key] = entry.value;
  return out as unknown as EffectiveSettings;
}

/** Makes every read of the store's settings (quota, plan, retention, port) apply the policy. */
export function applyPolicy(store: Store, policy: Policy | null): void {
  store.useSettingsRule(policy ? (stored, chosen) => settingsInForce(stored, chosen, policy) : null);
}

/** The sentence for a locked setting someone tries to change. */
export function lockedMessage(key: string, policy: Policy): string {
  return `${key} is managed by your organisation's policy (${policy.path})`;
}

/** The first key of `keys` that the policy locks, with the message to refuse it; undefined when all may change. */
export function lockedAmong(
  keys: Iterable<string>,
  policy: Policy | null,
): { key: string; message: string } | undefined {
  if (!policy) return undefined;
  for (const key of keys) {
    if (policy.settings[key as PolicySettingKey]?.locked) return { key, message: lockedMessage(key, policy) };
  }
  return undefined;
}

/** The policy's settings for the UI: value, locked, whether in force, and the file. */
export function managedSettings(policy: Policy | null, stored: Settings, chosen: ReadonlySet<string>): ManagedSettings {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of entries(policy)) {
    const userSetting = key in stored;
    out[key] = {
      value: entry.value,
      locked: entry.locked,
      in_force: entry.locked || !userSetting || !chosen.has(key),
      source: policy?.path ?? '',
    };
  }
  return out;
}

/** Why a new API key is refused under the policy (creation turned off, or the limit reached), or undefined. */
export function keyCreationRefusal(
  settings: EffectiveSettings,
  activeKeys: number,
  policy: Policy | null,
): string | undefined {
  const source = policy ? ` (${policy.path})` : '';
  if (!settings.allow_api_keys) return `Creating API keys is turned off by your organisation's policy${source}.`;
  if (settings.max_api_keys !== null && activeKeys >= settings.max_api_keys) {
    return `Your organisation's policy${source} allows at most ${settings.max_api_keys} API key${settings.max_api_keys === 1 ? '' : 's'}; revoke one before creating another.`;
  }
  return undefined;
}

/**
 * Where `serve` listens. A locked policy value wins, and an option that contradicts it is refused; otherwise the
 * option given, else the policy's unlocked value (a default), else 127.0.0.1 over HTTPS. `fromPolicy` says which
 * came from the policy (binding beyond loopback may count a policy's host as the explicit choice).
 */
export function listenAddress(
  policy: Policy | null,
  options: { host?: string; http?: boolean; allowRemote?: boolean },
): {
  host: string;
  http: boolean;
  allowRemote: boolean;
  fromPolicy: { host: boolean; http: boolean; allowRemote: boolean };
} {
  // A switch left off (false) is no choice: only `--http` / `--allow-remote` given can contradict a locked value.
  const host = pick(policy, 'host', options.host, '--host', BUILT_IN.host);
  const http = pick(policy, 'http', options.http || undefined, '--http', BUILT_IN.http);
  const allowRemote = pick(
    policy,
    'allow_remote',
    options.allowRemote || undefined,
    '--allow-remote',
    BUILT_IN.allow_remote,
  );
  return {
    host: host.value,
    http: http.value,
    allowRemote: allowRemote.value,
    fromPolicy: { host: host.fromPolicy, http: http.fromPolicy, allowRemote: allowRemote.fromPolicy },
  };
}

/** The port to listen on: a locked policy port (an option that differs is refused), else the option, else the setting in force. */
export function listenPort(policy: Policy | null, option: number | undefined, settingInForce: number): number {
  const entry = policy?.settings.port;
  if (policy && entry?.locked) {
    if (option !== undefined && option !== entry.value) throw conflict(policy, 'port', entry.value, `--port ${option}`);
    return entry.value;
  }
  return option ?? settingInForce;
}

function pick<K extends 'host' | 'http' | 'allow_remote'>(
  policy: Policy | null,
  key: K,
  option: EffectiveSettings[K] | undefined,
  flag: string,
  fallback: EffectiveSettings[K],
): { value: EffectiveSettings[K]; fromPolicy: boolean } {
  const entry = policy?.settings[key] as { value: EffectiveSettings[K]; locked: boolean } | undefined;
  if (policy && entry?.locked) {
    if (option !== undefined && option !== entry.value)
      // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- a string here: the rule does not narrow K
      throw conflict(policy, key, entry.value, typeof option === 'boolean' ? flag : `${flag} ${option}`);
    return { value: entry.value, fromPolicy: true };
  }
  if (option !== undefined) return { value: option, fromPolicy: false };
  if (entry) return { value: entry.value, fromPolicy: true };
  return { value: fallback, fromPolicy: false };
}

function conflict(policy: Policy, key: string, value: unknown, option: string): PolicyError {
  return new PolicyError(
    policy.path,
    `${lockedMessage(key, policy)}: it is ${JSON.stringify(value)}, so ${option} cannot be used.`,
  );
}
