// A discovery file left by a server that is gone (killed, power lost) whose pid another process has since: the lock
// names that pid, but not that process (its identity, start time and boot, differs), so the command line must not
// take it for a running server and send it the admin token; it converts in its own process instead.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRunningServer } from '../../server/cli/running-server.ts';
import { lockOwner } from '../../server/store/lock.ts';
import { processInfo } from '../../server/store/process-identity.ts';

describe('a stale discovery file whose pid another process has now', () => {
  let dir: string;
  let other: ChildProcess;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dw-stale-'));
    // The process that got the pid: alive, ours, not a Docwright server.
    other = spawn('sleep', ['60'], { stdio: 'ignore' });
  });
  afterAll(() => {
    other.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const writeLeftovers = (identity: string) => {
    const pid = other.pid ?? 0;
    writeFileSync(join(dir, 'docwright.lock'), `${String(pid)}\n${identity}\ndocwright serve\n`, { mode: 0o600 });
    writeFileSync(join(dir, 'server.json'), JSON.stringify({ pid, url: 'https://127.0.0.1:9/', fingerprint: 'x' }));
    writeFileSync(join(dir, 'admin.token'), 'a'.repeat(64), { mode: 0o600 });
  };

  it('the lock has no owner, and no running server is found', () => {
    // The lock was written by the server that died: another process's identity than the one that has the pid now.
    writeLeftovers('linux:00000000-0000-0000-0000-000000000000:1');
    expect(lockOwner(join(dir, 'docwright.lock'))).toBeUndefined();
    expect(findRunningServer(dir)).toBeUndefined();
  });

  it('a lock naming the live process itself still has that owner (the check is not blind)', () => {
    writeLeftovers(processInfo(other.pid ?? 0)?.identity ?? '');
    expect(lockOwner(join(dir, 'docwright.lock'))).toBe(other.pid);
  });
});
