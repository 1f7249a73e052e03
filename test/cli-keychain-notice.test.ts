// The keychain fallback as a user meets it: where no keychain can be reached (no D-Bus session here), the first
// `docwright serve` of a data folder says so once, in words; later starts of that folder say nothing; `--verbose`
// says it again with the keychain library's own (D-Bus) detail. Real `docwright serve` processes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAllChildren, startServe } from './helpers/docwright-process.ts';

const dirs: string[] = [];
afterAll(async () => {
  await killAllChildren();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** An environment whose keychain cannot be reached: its D-Bus session bus is a socket that does not exist. */
function unreachableKeychain(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DOCWRIGHT_HOME: home };
  delete env.DOCWRIGHT_KEYCHAIN;
  env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(home, 'no-bus')}`;
  return env;
}

/** Starts `docwright serve ARGS`, stops it, and returns what it wrote to standard error. */
async function serveOnce(env: NodeJS.ProcessEnv, args: string[] = []): Promise<string> {
  const server = await startServe(['--http', ...args], { env });
  server.child.kill('SIGTERM');
  await server.exited;
  return server.stderr();
}

describe.runIf(process.platform === 'linux')('the keychain fallback notice', () => {
  it('is said once per data folder, in words; --verbose says it again with the D-Bus detail', async () => {
    const home = mkdtempSync(join(tmpdir(), 'dw-keychain-notice-'));
    dirs.push(home);
    const env = unreachableKeychain(home);

    const first = await serveOnce(env);
    const lines = first.split('\n').filter((line) => line.startsWith('warning: '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `warning: The OS keychain could not be reached, so the API key secret is kept in ${join(home, 'secret.key')}, readable only by your user (mode 0600); API keys work as usual. To use the keychain, unlock it and restart Docwright. Said once for this data folder; docwright serve --verbose says why.`,
    );
    expect(first).not.toMatch(/dbus/i);

    expect(await serveOnce(env)).not.toContain('keychain');

    const verbose = await serveOnce(env, ['--verbose']);
    const detail = verbose.split('\n').find((line) => line.startsWith('warning: The OS keychain'));
    expect(detail).toMatch(/^warning: The OS keychain could not be reached, .* The keychain said: .+\.$/);
    expect(verbose).toMatch(/dbus/i);

    // Another data folder is told again.
    const other = mkdtempSync(join(tmpdir(), 'dw-keychain-notice-'));
    dirs.push(other);
    expect(await serveOnce(unreachableKeychain(other))).toContain('warning: The OS keychain could not be reached,');
  }, 120_000);
});
