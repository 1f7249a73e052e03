import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve, win32 } from 'node:path';
import { Compile } from 'typebox/compile';
import {
  POLICY_SETTING_KEYS,
  POLICY_SETTINGS,
  PolicyFileSchema,
  type PolicySettingKey,
  type PolicySettings,
} from './schema.ts';

/** The organisation's policy, as read at start. */
export interface Policy {
  /** The policy file (the source shown for every managed setting). */
  path: string;
  settings: PolicySettings;
  /** Absolute path of the folder of seeded templates and mappings; null: none. */
  seedDir: string | null;
}

/** An unusable policy file, or a command that contradicts a locked setting; stops the start or the command. */
export class PolicyError extends Error {
  override name = 'PolicyError';
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Where the machine-wide policy lives: `DOCWRIGHT_POLICY` when set, else `%ProgramData%\Docwright\policy.json`
 * (Windows), `/Library/Application Support/Docwright/policy.json` (macOS), `/etc/docwright/policy.json` (others).
 */
export function policyPath(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): { path: string; fromEnv: boolean } {
  const explicit = env.DOCWRIGHT_POLICY?.trim();
  if (explicit) return { path: resolve(explicit), fromEnv: true };
  if (platform === 'win32')
    return {
      path: win32.join(env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData', 'Docwright', 'policy.json'),
      fromEnv: false,
    };
  if (platform === 'darwin') return { path: '/Library/Application Support/Docwright/policy.json', fromEnv: false };
  return { path: '/etc/docwright/policy.json', fromEnv: false };
}

const validator = Compile(PolicyFileSchema);
const SHAPE = 'a setting is { "value": …, "locked": true|false }';

/** One sentence for the first thing wrong in a policy file, naming the setting (`settings.port.value must be …`). */
function describe(raw: unknown): string {
  const errors = validator.Errors(raw);
  // An unknown key shows up twice (its own `false` schema and the parent's additionalProperties); report it once.
  const error = errors.find((e) => e.keyword !== 'additionalProperties') ?? errors[0];
  if (!error) return 'its content is not a policy';
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const field = path.join('.');
  const [top, key, part, extra] = path;
  const missing = (error.params as { requiredProperties?: string[] }).requiredProperties?.[0];
  if (top === undefined) return 'the file must hold a JSON object, e.g. { "settings": { … }, "seed_dir": "…" }';
  if (top === 'settings') {
    if (key === undefined) return 'settings must be an object of managed settings';
    if (!(POLICY_SETTING_KEYS as string[]).includes(key))
      return `settings.${key} is not a known setting; use ${POLICY_SETTING_KEYS.join(', ')}`;
    const setting = POLICY_SETTINGS[key as PolicySettingKey];
    if (part === undefined)
      return missing
        ? `settings.${key}.${missing} is required; ${SHAPE}`
        : `settings.${key} must be an object; ${SHAPE}`;
    if (part === 'value' && extra === undefined) return `settings.${key}.value must be ${setting.says}`;
    if (part === 'locked' && extra === undefined) return `settings.${key}.locked must be true or false`;
    return `${field} is not allowed; ${SHAPE}`;
  }
  if (top === 'seed_dir') return 'seed_dir must be the path of a folder (a non-empty string)';
  if (top === '$schema') return '$schema must be a string';
  return `${top} is not a known field; a policy holds "settings" and "seed_dir"`;
}

/**
 * Reads the policy file. No file is no policy; a file that cannot be read, is not JSON or breaks the schema
 * throws a PolicyError naming the file and the setting: never a silent fallback. `DOCWRIGHT_POLICY` naming a
 * missing file is an error too (someone meant a policy to apply).
 */
export function loadPolicy(location: { path: string; fromEnv: boolean } = policyPath()): Policy | null {
  const file = location.path;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !location.fromEnv) return null;
    const why =
      code === 'ENOENT'
        ? 'does not exist (DOCWRIGHT_POLICY names it)'
        : code === 'EACCES' || code === 'EPERM'
          ? 'cannot be read (permission denied)'
          : code === 'EISDIR'
            ? 'is a folder, not a file'
            : `cannot be read (${code ?? (error as Error).message})`;
    throw new PolicyError(file, `Policy ${file}: the file ${why}.`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new PolicyError(file, `Policy ${file}: not valid JSON (${(error as Error).message}).`);
  }
  if (!validator.Check(raw)) throw new PolicyError(file, `Policy ${file}: ${describe(raw)}.`);
  const seed = raw.seed_dir;
  return {
    path: file,
    settings: raw.settings ?? {},
    seedDir: seed === undefined ? null : isAbsolute(seed) ? seed : resolve(dirname(file), seed),
  };
}
