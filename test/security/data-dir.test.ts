// Issue 12: a data directory that the group or everyone may write to, or that another user owns, is refused at
// start (Store.open: `serve`, every CLI command that opens the store, the desktop app's startServer) with a
// sentence saying how to fix it; a new data directory is created 0700 whatever the umask. (POSIX only: where
// process.getuid is absent, Windows, the check is skipped.)
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/serve.ts';
import { Store } from '../../server/store/store.ts';

const root = mkdtempSync(join(tmpdir(), 'dw-security-datadir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;
const bin = resolve(import.meta.dirname, '../../bin/docwright.js');

function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, DOCWRIGHT_KEYCHAIN: 'off' } },
      (error, _stdout, stderr) => {
        done({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stderr });
      },
    );
  });
}

/** A data directory that a first start already populated, then given `mode`. */
async function populated(name: string, mode: number): Promise<string> {
  const dir = join(root, name);
  (await Store.open(dir)).close();
  chmodSync(dir, mode);
  return dir;
}

describe('an unsafe data directory is refused at start, saying how to fix it', () => {
  for (const [what, mode, who] of [
    ['world-writable (0777)', 0o777, 'every user'],
    ['group-writable (0770)', 0o770, 'its group'],
  ] as const) {
    it(`${what}: Store.open, startServer (the desktop app's start), docwright serve and docwright keys list refuse; nothing is written`, async () => {
      const dir = await populated(what.split(' ')[0] ?? 'dir', mode);
      const before = readdirSync(dir).sort();
      await expect(Store.open(dir)).rejects.toThrow(`can be written by ${who}`);
      await expect(startServer({ dataDir: dir, port: 0 })).rejects.toThrow(`chmod 700 ${dir}`);
      for (const args of [
        ['serve', '--port', '0', '--data-dir', dir],
        ['keys', 'list', '--data-dir', dir],
      ]) {
        const result = await cli(args);
        expect(result.code, result.stderr).toBe(1);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toContain(
          `The data directory ${dir} can be written by ${who} (mode ${mode.toString(8)})`,
        );
        expect(result.stderr).toContain(`chmod 700 ${dir}`);
      }
      expect(readdirSync(dir).sort(), 'no lock, no file left').toEqual(before);
      // Done as told, it starts.
      chmodSync(dir, 0o700);
      (await Store.open(dir)).close();
    });
  }

  it(`owned by another user (${isRoot ? 'a directory given to uid 65534' : '/'}): refused, naming the owner and how to fix it`, async () => {
    const dir = isRoot ? await populated('given-away', 0o700) : '/';
    if (isRoot) chownSync(dir, 65534, 65534);
    await expect(Store.open(dir)).rejects.toThrow(/belongs to another user \(uid \d+, not \d+\).*--data-dir/);
    const result = await cli(['keys', 'list', '--data-dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/belongs to another user .*chown -R \d+ /);
  });

  it('a new data directory is created 0700 even under umask 000; a private one (mkdtemp) opens', async () => {
    const old = process.umask(0);
    try {
      const dir = join(root, 'new', 'nested', 'data');
      (await Store.open(dir)).close();
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      for (const sub of ['templates', 'outputs']) expect(statSync(join(dir, sub)).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(old);
    }
    const temp = mkdtempSync(join(root, 'private-'));
    (await Store.open(temp)).close();
    expect(existsSync(join(temp, 'db.json'))).toBe(true);
    // 0755 (readable, not writable, by others: systemd's default StateDirectoryMode) is not refused.
    const readable = join(root, 'readable');
    mkdirSync(readable, { mode: 0o755 });
    chmodSync(readable, 0o755);
    (await Store.open(readable)).close();
  });
});
