import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Entry } from '@napi-rs/keyring';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KEYCHAIN_SERVICE, keychainAccount, loadSecret } from '../../server/auth/secret.ts';
import { dataPaths } from '../../server/store/paths.ts';

// The keychain tests use the real Secret Service: run them through scripts/with-keyring.sh.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const childScript = fileURLToPath(new URL('./load-secret-child.ts', import.meta.url));
const onLinux = process.platform === 'linux';
const dataDirs: string[] = [];
/** The secret's file and the keychain marker, as the store names them in a data directory. */
const SECRET_FILE_NAME = basename(dataPaths('').secret);
const KEYCHAIN_MARKER_NAME = basename(dataPaths('').keychainMarker);

function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'docwright-secret-'));
  dataDirs.push(dir);
  return dir;
}

function keychainEntry(dataDir: string): Entry {
  return new Entry(KEYCHAIN_SERVICE, keychainAccount(dataDir), { linux: { store: 'secret-service' } });
}

function requireSecretService(): void {
  if (onLinux && !process.env.DBUS_SESSION_BUS_ADDRESS) {
    throw new Error('run the suite through scripts/with-keyring.sh (npm test does)');
  }
}

function hasSecretTool(): boolean {
  return onLinux && spawnSync('secret-tool', ['--version']).error === undefined;
}

function fileMode(path: string): number {
  return statSync(path).mode & 0o777;
}

beforeEach(() => {
  vi.stubEnv('DOCWRIGHT_KEYCHAIN', undefined);
});

afterEach(() => {
  vi.unstubAllEnvs();
});

afterAll(() => {
  for (const dir of dataDirs) {
    try {
      keychainEntry(dir).deleteCredential();
    } catch {
      // no keychain here: nothing was stored in it
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('loadSecret with the OS keychain', () => {
  it('creates the secret in the keychain, returns it again, and writes no file', async () => {
    requireSecretService();
    const dir = tempDataDir();

    const first = await loadSecret(dir);
    expect(first.store).toBe('keychain');
    expect(first.warning).toBeUndefined();
    expect(first.secret).toHaveLength(32);
    expect(existsSync(join(dir, SECRET_FILE_NAME))).toBe(false);

    const encoded = first.secret.toString('base64');
    expect(keychainEntry(dir).getPassword()).toBe(encoded);
    if (hasSecretTool()) {
      // @napi-rs/keyring stores the account under the Secret Service attribute `username`.
      const lookup = execFileSync(
        'secret-tool',
        ['lookup', 'service', KEYCHAIN_SERVICE, 'username', keychainAccount(dir)],
        { encoding: 'utf8' },
      );
      expect(lookup).toBe(encoded);
    }

    const second = await loadSecret(dir);
    expect(second.store).toBe('keychain');
    expect(second.secret.equals(first.secret)).toBe(true);
    expect(readdirSync(dir)).toEqual([KEYCHAIN_MARKER_NAME]);
  });

  it('keeps one secret per data directory', async () => {
    requireSecretService();
    const a = tempDataDir();
    const b = tempDataDir();
    expect(keychainAccount(a)).toMatch(/^hmac-secret:[0-9a-f]{16}$/);
    expect(keychainAccount(a)).not.toBe(keychainAccount(b));
    expect(keychainAccount(`${a}/./`)).toBe(keychainAccount(a));

    const secretA = await loadSecret(a);
    const secretB = await loadSecret(b);
    expect([secretA.store, secretB.store]).toEqual(['keychain', 'keychain']);
    expect(secretA.secret.equals(secretB.secret)).toBe(false);
  });

  it('keeps using a secret.key from an earlier run without keychain, and says so', async () => {
    requireSecretService();
    const dir = tempDataDir();
    const earlier = await loadSecret(dir, { keychain: 'off' });
    expect(earlier.store).toBe('file');

    const now = await loadSecret(dir);
    expect(now.store).toBe('file');
    expect(now.secret.equals(earlier.secret)).toBe(true);
    expect(now.warning).toContain(join(dir, SECRET_FILE_NAME));
    expect(now.warning).toContain('existing API keys keep working');
    expect(keychainEntry(dir).getPassword()).toBeNull();
  });

  it('refuses a malformed keychain entry and leaves it as it is', async () => {
    requireSecretService();
    const dir = tempDataDir();
    keychainEntry(dir).setPassword('not a secret');

    await expect(loadSecret(dir)).rejects.toThrow(`keychain entry "${KEYCHAIN_SERVICE}" / "${keychainAccount(dir)}"`);
    expect(keychainEntry(dir).getPassword()).toBe('not a secret');
    expect(existsSync(join(dir, SECRET_FILE_NAME))).toBe(false);
  });

  it('refuses a malformed secret.key rather than creating a keychain secret', async () => {
    requireSecretService();
    const dir = tempDataDir();
    const file = join(dir, SECRET_FILE_NAME);
    writeFileSync(file, 'garbage\n', { mode: 0o600 });

    await expect(loadSecret(dir)).rejects.toThrow(file);
    expect(readFileSync(file, 'utf8')).toBe('garbage\n');
    expect(keychainEntry(dir).getPassword()).toBeNull();
  });
});

describe('loadSecret with the file fallback', () => {
  it("uses a 0600 secret.key with keychain: 'off' and names it in the warning", async () => {
    const dir = tempDataDir();
    const file = join(dir, SECRET_FILE_NAME);

    const first = await loadSecret(dir, { keychain: 'off' });
    expect(first.store).toBe('file');
    expect(first.secret).toHaveLength(32);
    expect(first.warning).toContain(file);
    expect(first.warning).toContain("keychain: 'off'");
    expect(first.warning).not.toContain(first.secret.toString('base64'));
    if (process.platform !== 'win32') expect(fileMode(file)).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secret.toString('base64'));
    expect(readdirSync(dir)).toEqual([SECRET_FILE_NAME]);

    const second = await loadSecret(dir, { keychain: 'off' });
    expect(second.secret.equals(first.secret)).toBe(true);
  });

  it('uses the file when DOCWRIGHT_KEYCHAIN=off', async () => {
    vi.stubEnv('DOCWRIGHT_KEYCHAIN', 'off');
    const dir = tempDataDir();
    const loaded = await loadSecret(dir);
    expect(loaded.store).toBe('file');
    expect(loaded.warning).toContain('DOCWRIGHT_KEYCHAIN=off');
    expect(loaded.warning).toContain(join(dir, SECRET_FILE_NAME));
  });

  it('creates a missing data directory', async () => {
    const dir = join(tempDataDir(), 'nested', 'data');
    const loaded = await loadSecret(dir, { keychain: 'off' });
    expect(loaded.store).toBe('file');
    expect(existsSync(join(dir, SECRET_FILE_NAME))).toBe(true);
  });

  it.runIf(onLinux)('falls back to the file when D-Bus is unreachable', () => {
    const dir = tempDataDir();
    const file = join(dir, SECRET_FILE_NAME);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/docwright-test-bus',
    };
    delete env.DOCWRIGHT_KEYCHAIN;
    const run = (): { store: string; warning?: string; fingerprint: string } =>
      JSON.parse(
        execFileSync(process.execPath, ['--import', 'tsx', childScript, dir], { cwd: repoRoot, env, encoding: 'utf8' }),
      );

    const first = run();
    expect(first.store).toBe('file');
    // In words: what happened, that nothing is broken, what to do; the keychain's own (D-Bus) words apart.
    expect(first.warning).toMatch(
      /^The OS keychain could not be reached, so the API key secret is kept in .+; API keys work as usual\. To use the keychain, unlock it and restart Docwright\.$/,
    );
    expect(first.warning).not.toMatch(/dbus/i);
    expect(first.warning).toContain(file);
    expect(first.warning).toContain('0600');
    expect(fileMode(file)).toBe(0o600);
    const onDisk = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    expect(first.fingerprint).toBe(createHash('sha256').update(onDisk).digest('hex'));

    expect(run().fingerprint).toBe(first.fingerprint);
  });

  it.runIf(onLinux)(
    'refuses, rather than make a second secret, when the keychain that holds it is unreachable',
    async () => {
      requireSecretService();
      const dir = tempDataDir();
      const first = await loadSecret(dir);
      expect(first.store).toBe('keychain');
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/docwright-test-bus',
      };
      delete env.DOCWRIGHT_KEYCHAIN;
      let message = '';
      try {
        execFileSync(process.execPath, ['--import', 'tsx', childScript, dir], {
          cwd: repoRoot,
          env,
          encoding: 'utf8',
          stdio: 'pipe',
        });
      } catch (error) {
        message = String((error as { stderr?: string }).stderr);
      }
      expect(message).toContain('kept in the OS keychain, which cannot be reached now');
      expect(existsSync(join(dir, SECRET_FILE_NAME))).toBe(false);
    },
  );

  it.each([
    ['not base64', 'hello, world\n'],
    ['empty', ''],
    ['31 bytes', `${Buffer.alloc(31, 7).toString('base64')}\n`],
    ['33 bytes', `${Buffer.alloc(33, 7).toString('base64')}\n`],
  ])('refuses a malformed secret.key (%s), names it, and leaves it untouched', async (_case, content) => {
    const dir = tempDataDir();
    const file = join(dir, SECRET_FILE_NAME);
    writeFileSync(file, content, { mode: 0o600 });
    const before = statSync(file);

    await expect(loadSecret(dir, { keychain: 'off' })).rejects.toThrow(resolve(file));
    expect(readFileSync(file, 'utf8')).toBe(content);
    expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
    expect(readdirSync(dir)).toEqual([SECRET_FILE_NAME]);
  });
});
