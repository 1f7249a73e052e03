// Issue 12: the data-directory lock identifies its owner beyond the pid. A lock left by a crash whose pid now
// belongs to an unrelated live process, and a killed server its parent has not reaped (a zombie), no longer make
// `serve` and every CLI command refuse; a live server's lock is still honoured; a kill -9 is followed by a restart.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirLockedError } from '../../server/store/lock.ts';
import { Store } from '../../server/store/store.ts';
import { killAllChildren, runCli, startServe } from '../helpers/docwright-process.ts';

process.env.DOCWRIGHT_KEYCHAIN = 'off';
const root = mkdtempSync(join(tmpdir(), 'dw-security-lock-'));
const others: ChildProcess[] = [];
afterAll(async () => {
  for (const child of others) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await killAllChildren();
  rmSync(root, { recursive: true, force: true });
});

/** The pid a data directory's lock names (its first line). */
function lockPid(dir: string): number {
  return Number.parseInt(readFileSync(join(dir, 'docwright.lock'), 'utf8').split('\n')[0] ?? '', 10);
}

/** A fresh, populated data directory (no lock). */
async function dataDir(name: string): Promise<string> {
  const dir = join(root, name);
  (await Store.open(dir)).close();
  return dir;
}

/** An unrelated process that lives until the tests end: what a reused pid belongs to. */
async function unrelated(): Promise<number> {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  others.push(child);
  await once(child, 'spawn');
  return child.pid ?? 0;
}

/** A process's state as ps shows it (Z: a zombie). */
function procState(pid: number): string {
  return execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' })
    .trim()
    .slice(0, 1);
}

/** Store.open, a CLI command that opens the store and (with `serve`) a server all start on `dir`. */
async function expectUsable(dir: string, serve = false): Promise<void> {
  const store = await Store.open(dir);
  expect(lockPid(dir)).toBe(process.pid);
  store.close();
  const keys = await runCli(['keys', 'list', '--data-dir', dir]);
  expect(keys.code, keys.stderr).toBe(0);
  if (!serve) return;
  const server = await startServe(['--data-dir', dir]);
  server.child.kill('SIGTERM');
  await server.exited;
}

describe('a lock whose pid now belongs to another process is taken over', () => {
  it('a lock of a crashed server (recorded identity) naming a live unrelated process: Store.open, the CLI and serve start', async () => {
    const dir = await dataDir('reused');
    const pid = await unrelated();
    // As a docwright that crashed would have left it: its pid (since reused), its identity, its command.
    writeFileSync(
      join(dir, 'docwright.lock'),
      `${pid}\nlinux:00000000-0000-0000-0000-000000000000:12345\nnode /usr/bin/docwright serve\n`,
    );
    await expectUsable(dir, true);
  });

  it('a lock of an older version (a bare pid, written before that process started): taken over', async () => {
    const dir = await dataDir('legacy');
    const pid = await unrelated();
    const lock = join(dir, 'docwright.lock');
    writeFileSync(lock, `${pid}\n`);
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(lock, hourAgo, hourAgo);
    await expectUsable(dir);
  });

  it('a live server still owns its lock: Store.open is refused naming its pid, and the lock is left as it was', async () => {
    const dir = await dataDir('live');
    const server = await startServe(['--data-dir', dir]);
    const before = readFileSync(join(dir, 'docwright.lock'), 'utf8');
    await expect(Store.open(dir)).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(Store.open(dir)).rejects.toThrow(`process ${server.pid}`);
    expect(readFileSync(join(dir, 'docwright.lock'), 'utf8')).toBe(before);
    server.child.kill('SIGTERM');
    await server.exited;
  });
});

describe('a killed server', () => {
  it('killed but not reaped by its parent (a zombie): a restart takes its lock', async () => {
    const dir = await dataDir('zombie');
    // The server runs under a shell that then becomes `sleep`, which never waits for it: killed, it stays a zombie.
    const parent = await startServe(['--data-dir', dir], { wrapper: ['sh', '-c', '"$@" & exec sleep 600', 'sh'] });
    const serverPid = lockPid(dir);
    expect(serverPid).not.toBe(parent.pid);
    process.kill(serverPid, 'SIGKILL');
    const deadline = Date.now() + 10_000;
    while (procState(serverPid) !== 'Z' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(procState(serverPid), 'the killed server is a zombie').toBe('Z');
    expect(lockPid(dir)).toBe(serverPid);
    await expectUsable(dir, true);
    parent.child.kill('SIGKILL');
    await parent.exited;
  });

  it('kill -9 (a real crash), then a restart of serve on the same directory', async () => {
    const dir = await dataDir('crash');
    const first = await startServe(['--data-dir', dir]);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(dir, 'docwright.lock')), 'the crash left its lock').toBe(true);
    const second = await startServe(['--data-dir', dir]);
    expect(lockPid(dir)).toBe(second.pid);
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
