// The server process's V8 flags (bin/server-flags.mjs): `docwright serve` and `npm start`'s server run with them,
// since only a command line can set them; other commands start without a second Node.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS, hasServerFlags, serverNodeFlags, startsServer } from '../bin/server-flags.mjs';
import { electronArgs } from '../scripts/start.mjs';
import { killAllChildren, startServe } from './helpers/docwright-process.ts';

const root = resolve(import.meta.dirname, '..');
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'docwright-flags-'));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  await killAllChildren();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The command line of the process serving a data directory (its pid from server.json), as its arguments. */
function serverCommandLine(dataDir: string): string[] {
  const { pid } = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')) as { pid: number };
  return readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8')
    .split('\0')
    .filter(Boolean);
}

describe('the server process flags', () => {
  it('are set only for the commands that may start a server', () => {
    expect(SERVER_NODE_FLAGS).toContain('--single-threaded-gc');
    // A conversion's objects die with it: V8's pretenuring guesses otherwise (docs/performance.md).
    expect(SERVER_NODE_FLAGS).toContain('--no-allocation-site-pretenuring');
    // The conversion workers' hand collection between conversions (server/convert-pool/worker.ts) needs V8's gc, set
    // here on the command line: nothing switches a V8 flag on while the server runs.
    expect(SERVER_NODE_FLAGS).toContain('--expose-gc');
    // A worker that ends gives its memory back (test/server-at-rest.test.ts): V8 14's flags, which an older V8 (Node
    // 22, 24) refuses as bad options, so they are given only to a Node whose V8 knows them.
    const memory = ['--no-memory-pool-share-memory-on-teardown', '--managed-zone-memory'];
    expect(serverNodeFlags('14.6.202.34-node.34')).toEqual(expect.arrayContaining(memory));
    for (const old of ['12.4.254.21-node.33', '13.6.233.10-node.18'])
      for (const flag of memory) expect(serverNodeFlags(old)).not.toContain(flag);
    expect(serverNodeFlags('12.4.254.21-node.33')).toContain('--single-threaded-gc');
    expect(startsServer(['serve', '--port', '0'])).toBe(true);
    expect(startsServer(['--data-dir', 'serve', 'mcp'])).toBe(true);
    expect(startsServer(['--data-dir', '/tmp/d', 'serve'])).toBe(true);
    expect(startsServer(['--data-dir=/tmp/d', 'serve'])).toBe(true);
    // The conversion daemon is no more (issue 31): `daemon run` starts nothing.
    expect(startsServer(['daemon', 'run'])).toBe(false);
    expect(startsServer(['convert', 'serve.md'])).toBe(false);
    expect(startsServer(['status', '--json'])).toBe(false);
    expect(startsServer(['--version'])).toBe(false);
    expect(startsServer([])).toBe(false);
    expect(hasServerFlags(['--inspect', ...SERVER_NODE_FLAGS])).toBe(true);
    expect(hasServerFlags(['--max-old-space-size=100'])).toBe(false);
  });

  it("npm start gives the desktop app's Electron them (its server runs in Electron's main process)", () => {
    expect(electronArgs({ asRoot: false, app: '/app', args: ['--port', '0'] })).toEqual([
      `--js-flags=${serverNodeFlags('14.6').join(' ')}`,
      '/app',
      '--port',
      '0',
    ]);
    expect(electronArgs({ asRoot: true, app: '/app', args: [] })[0]).toBe('--no-sandbox');
  });

  it.runIf(process.platform === 'linux')('docwright serve runs its server with them', async () => {
    const dir = tempDir();
    const server = await startServe(['--data-dir', dir], { env: { ...process.env, DOCWRIGHT_KEYCHAIN: 'off' } });
    const args = serverCommandLine(dir);
    for (const flag of SERVER_NODE_FLAGS) expect(args).toContain(flag);
    expect(args).toEqual(expect.arrayContaining(['--single-threaded-gc', '--no-allocation-site-pretenuring']));
    expect(args).toContain('serve');
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it.runIf(process.platform === 'linux')('npm start without Electron runs its server with them', async () => {
    const home = tempDir();
    const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs'), '--port', '0'], {
      env: { ...process.env, DOCWRIGHT_HOME: home, DOCWRIGHT_KEYCHAIN: 'off', DISPLAY: '', WAYLAND_DISPLAY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    let stdout = '';
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no URL printed: ${stdout}`)), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('Docwright is running at')) {
          clearTimeout(timer);
          done();
        }
      });
    });
    try {
      const args = serverCommandLine(home);
      for (const flag of SERVER_NODE_FLAGS) expect(args).toContain(flag);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
