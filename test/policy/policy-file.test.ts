// The policy file: where it is looked for, what it may hold (a TypeBox schema), and that an invalid one stops the
// start of the server (startServer and a real `docwright serve` process) and of CLI commands that read settings,
// with one message naming the file and the setting; never a silent fallback.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadPolicy, policyPath, PolicyError } from '../../server/policy/index.ts';
import { startServer } from '../../server/serve.ts';
import { killAllChildren, runCli } from '../helpers/docwright-process.ts';
import { envFor, removeTempDirs, tempDir, writePolicy } from './support.ts';

afterAll(async () => {
  await killAllChildren();
  removeTempDirs();
});

const explicit = (path: string) => ({ path, fromEnv: true });

describe('where the policy is looked for', () => {
  it('per OS, or DOCWRIGHT_POLICY', () => {
    expect(policyPath({}, 'linux')).toEqual({ path: '/etc/docwright/policy.json', fromEnv: false });
    expect(policyPath({}, 'darwin')).toEqual({
      path: '/Library/Application Support/Docwright/policy.json',
      fromEnv: false,
    });
    expect(policyPath({ ProgramData: 'D:\\ProgramData' }, 'win32')).toEqual({
      path: 'D:\\ProgramData\\Docwright\\policy.json',
      fromEnv: false,
    });
    expect(policyPath({}, 'win32').path).toBe('C:\\ProgramData\\Docwright\\policy.json');
    expect(policyPath({ DOCWRIGHT_POLICY: '/srv/dw/policy.json' }, 'linux')).toEqual({
      path: '/srv/dw/policy.json',
      fromEnv: true,
    });
  });

  it('no file at the machine-wide place is no policy; a missing file named by DOCWRIGHT_POLICY is an error', () => {
    const missing = join(tempDir(), 'policy.json');
    expect(loadPolicy({ path: missing, fromEnv: false })).toBeNull();
    expect(() => loadPolicy(explicit(missing))).toThrow(
      `Policy ${missing}: the file does not exist (DOCWRIGHT_POLICY names it).`,
    );
    const folder = tempDir();
    expect(() => loadPolicy(explicit(folder))).toThrow(`Policy ${folder}: the file is a folder, not a file.`);
  });

  it('a valid policy: every setting, seed_dir relative to the policy file', () => {
    const dir = tempDir();
    const path = writePolicy(
      {
        $schema: 'https://example.org/docwright-policy.json',
        settings: {
          plan: { value: 'enterprise', locked: true },
          monthly_quota: { value: null, locked: false },
          retention_days: { value: 90, locked: false },
          port: { value: 48000, locked: true },
          host: { value: '127.0.0.1', locked: true },
          http: { value: false, locked: true },
          allow_remote: { value: false, locked: true },
          allow_api_keys: { value: true, locked: true },
          max_api_keys: { value: 3, locked: true },
        },
        seed_dir: 'seed',
      },
      dir,
    );
    const policy = loadPolicy(explicit(path));
    expect(policy?.path).toBe(path);
    expect(policy?.seedDir).toBe(join(dir, 'seed'));
    expect(policy?.settings.plan).toEqual({ value: 'enterprise', locked: true });
    expect(policy?.settings.max_api_keys).toEqual({ value: 3, locked: true });
    expect(loadPolicy(explicit(writePolicy({ seed_dir: '/srv/seed' })))?.seedDir).toBe('/srv/seed');
    expect(loadPolicy(explicit(writePolicy({})))).toEqual({ path: expect.any(String), settings: {}, seedDir: null });
  });
});

describe('an invalid policy names the file and the setting', () => {
  const cases: [string, unknown, string][] = [
    [
      'a value out of range',
      { settings: { port: { value: 0, locked: true } } },
      'settings.port.value must be an integer from 1 to 65535',
    ],
    [
      'a value of the wrong type',
      { settings: { retention_days: { value: '30', locked: false } } },
      'settings.retention_days.value must be an integer from 1 to 3650',
    ],
    [
      'an unknown plan',
      { settings: { plan: { value: 'gold', locked: true } } },
      'settings.plan.value must be "solo", "team" or "enterprise"',
    ],
    [
      'a negative key limit',
      { settings: { max_api_keys: { value: -1, locked: true } } },
      'settings.max_api_keys.value must be an integer from 0 to 10000, or null (no limit)',
    ],
    [
      'a host with a path',
      { settings: { host: { value: '127.0.0.1/24', locked: true } } },
      'settings.host.value must be an IP address or host name, e.g. "127.0.0.1"',
    ],
    [
      'an unknown setting',
      { settings: { colour: { value: 'red', locked: true } } },
      'settings.colour is not a known setting; use plan, monthly_quota',
    ],
    [
      'a bare value instead of { value, locked }',
      { settings: { plan: 'team' } },
      'settings.plan must be an object; a setting is { "value": …, "locked": true|false }',
    ],
    [
      'locked missing',
      { settings: { plan: { value: 'team' } } },
      'settings.plan.locked is required; a setting is { "value": …, "locked": true|false }',
    ],
    [
      'locked not a boolean',
      { settings: { plan: { value: 'team', locked: 'yes' } } },
      'settings.plan.locked must be true or false',
    ],
    [
      'an extra field in a setting',
      { settings: { plan: { value: 'team', locked: true, note: 'x' } } },
      'settings.plan.note is not allowed',
    ],
    [
      'an unknown top-level field',
      { seed: '/srv/seed' },
      'seed is not a known field; a policy holds "settings" and "seed_dir"',
    ],
    ['an empty seed_dir', { seed_dir: '' }, 'seed_dir must be the path of a folder (a non-empty string)'],
    ['not an object', [1, 2], 'the file must hold a JSON object'],
    ['settings not an object', { settings: [] }, 'settings must be an object of managed settings'],
  ];
  for (const [what, content, message] of cases) {
    it(what, () => {
      const path = writePolicy(content);
      expect(() => loadPolicy(explicit(path))).toThrow(PolicyError);
      expect(() => loadPolicy(explicit(path))).toThrow(`Policy ${path}: ${message}`);
    });
  }

  it('not JSON', () => {
    const path = writePolicy('{ "settings": { "plan": ');
    expect(() => loadPolicy(explicit(path))).toThrow(
      new RegExp(`^Policy ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid JSON \\(`),
    );
  });
});

describe('an invalid policy stops the start', () => {
  const badPort = { settings: { port: { value: 70000, locked: true } } };
  const saved = process.env.DOCWRIGHT_POLICY;
  afterEach(() => {
    if (saved === undefined) delete process.env.DOCWRIGHT_POLICY;
    else process.env.DOCWRIGHT_POLICY = saved;
  });

  it('startServer (the desktop app and serve) rejects before touching the data directory', async () => {
    const home = tempDir();
    const policy = writePolicy(badPort);
    process.env.DOCWRIGHT_POLICY = policy;
    const error = await startServer({ dataDir: home, port: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PolicyError);
    expect((error as Error).message).toBe(`Policy ${policy}: settings.port.value must be an integer from 1 to 65535.`);
    expect(existsSync(join(home, 'db.json'))).toBe(false);
  });

  it('`docwright serve` and `docwright config get` exit 1 with one line naming the file and the setting', async () => {
    const home = tempDir();
    const policy = writePolicy(badPort);
    const expected = `docwright: Policy ${policy}: settings.port.value must be an integer from 1 to 65535.\n`;
    const results = await Promise.all([
      runCli(['serve'], { env: envFor(home, policy) }),
      runCli(['config', 'get'], { env: envFor(home, policy) }),
    ]);
    for (const result of results) {
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(expected);
      expect(result.stdout).toBe('');
    }
    expect(existsSync(join(home, 'db.json'))).toBe(false);
  });
});
