// The conversion daemon (server/convert-daemon, docs/cli.md "The conversion daemon"): `docwright convert` starts it
// and hands it later conversions, which must give the documents, messages and exit codes of a conversion in the
// command line's own process; only a client holding the token in its private folder is served; it ends when told,
// on a signal or when idle, taking its files with it.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { generateMarkdown } from '../bench/generate.ts';
import { DAEMON_NODE_FLAGS } from '../bin/server-flags.mjs';
import { defaultTemplate } from '../server/convert/index.ts';
import { BIN, runCli, type CliResult } from './helpers/docwright-process.ts';
import { hostileTemplate } from './helpers/hostile-template.ts';

const temp = mkdtempSync(join(tmpdir(), 'dw-daemon-'));
const CORPUS = join(import.meta.dirname, '../../shared/corpus');
if (!existsSync(CORPUS)) throw new Error(`test/cli-daemon.test.ts needs the corpus at ${CORPUS} (../shared/corpus)`);
const FIXTURES = join(import.meta.dirname, 'fixtures');

let folders = 0;
/** A daemon folder of its own for a test, and the environment that points `docwright` at it. */
function daemonEnv(extra: NodeJS.ProcessEnv = {}): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = join(temp, `d${String((folders += 1))}`);
  return { dir, env: { ...process.env, DOCWRIGHT_DAEMON: '1', DOCWRIGHT_DAEMON_DIR: dir, ...extra } };
}

const started: NodeJS.ProcessEnv[] = [];

/** The pid a lock names, or NaN when it is gone (a stopping daemon removes it between the listing and the read). */
function lockPid(path: string): number {
  try {
    return Number(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Number.NaN;
    throw error;
  }
}

/** Every daemon folder's lock names a pid: the daemons still running. */
function daemonPids(dir: string): number[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.lock'))
    .map((name) => lockPid(join(dir, name)))
    .filter((pid) => {
      if (Number.isNaN(pid)) return false;
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
}

async function until(what: string, test: () => Promise<boolean> | boolean, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts the daemon the way `convert` does (a first conversion) and waits until it answers. */
async function startedDaemon(env: NodeJS.ProcessEnv): Promise<number> {
  started.push(env);
  const input = join(temp, 'start.md');
  writeFileSync(input, '# Start\n');
  const first = await runCli(['convert', input, '-o', join(temp, 'start.docx'), '-q'], { env });
  expect(first.code).toBe(0);
  let pid = 0;
  await until('the daemon', async () => {
    const status = await runCli(['daemon', 'status'], { env });
    const match = /running: pid (\d+), \d+ conversions?/.exec(status.stdout);
    pid = match ? Number(match[1]) : 0;
    return pid > 0;
  });
  return pid;
}

async function served(env: NodeJS.ProcessEnv): Promise<number> {
  const status = await runCli(['daemon', 'status'], { env });
  return Number(/(\d+) conversions?,/.exec(status.stdout)?.[1] ?? -1);
}

/** Every part of a .docx but the document properties, which hold the time of the conversion. */
function partsOf(path: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(unzipSync(readFileSync(path)))
      .filter(([name]) => name !== 'docProps/core.xml')
      .map(([name, bytes]) => [name, Buffer.from(bytes).toString('base64')]),
  );
}

afterEach(async () => {
  for (const env of started.splice(0)) await runCli(['daemon', 'stop'], { env });
});

afterAll(async () => {
  // Anything a failed test left running.
  for (let n = 1; n <= folders; n++)
    for (const pid of daemonPids(join(temp, `d${String(n)}`))) process.kill(pid, 'SIGKILL');
  rmSync(temp, { recursive: true, force: true });
});

describe('docwright convert through the conversion daemon', () => {
  it('starts it with a first conversion, then gives through it the documents and messages of --no-daemon', async () => {
    const { dir, env } = daemonEnv();
    const pid = await startedDaemon(env);
    // It converts as a server does, with the server's V8 flags and a larger first old generation (bin/server-flags.mjs).
    if (process.platform === 'linux') {
      const commandLine = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').split('\0');
      for (const flag of DAEMON_NODE_FLAGS) expect(commandLine).toContain(flag);
    }
    const bench = join(temp, 'bench.md');
    writeFileSync(bench, generateMarkdown(130 * 1024));
    const cases: string[][] = [
      [bench],
      [join(FIXTURES, 'elements/footnotes/input.md')],
      // Images read from the document's folder by the daemon's worker.
      [join(FIXTURES, 'images/doc/doc.md')],
      [
        join(CORPUS, 'docs/ripgrep-GUIDE.md'),
        '--template',
        join(CORPUS, 'templates/apaquarto.docx'),
        '--mapping',
        join(CORPUS, 'templates/apaquarto.mapping.json'),
      ],
      [join(CORPUS, 'docs/fpb-courses-ar.md'), '--template', join(CORPUS, 'templates/gongwen-template-lite.dotx')],
    ];
    const before = await served(env);
    for (const [index, args] of cases.entries()) {
      const viaDaemon = join(temp, `daemon-${String(index)}.docx`);
      const inProcess = join(temp, `local-${String(index)}.docx`);
      const a = await runCli(['convert', ...args, '-o', viaDaemon], { env });
      const b = await runCli(['convert', '--no-daemon', ...args, '-o', inProcess], { env });
      expect(a.code).toBe(0);
      expect(b.code).toBe(0);
      expect(a.stderr.replace(viaDaemon, 'OUT')).toBe(b.stderr.replace(inProcess, 'OUT'));
      expect(partsOf(viaDaemon)).toEqual(partsOf(inProcess));
    }
    // Each conversion without --no-daemon went through the daemon.
    expect(await served(env)).toBe(before + cases.length);
    // Its files are private: the folder only the user may enter, the socket and the token only the user may open.
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o077).toBe(0);
  });

  it('leaves errors to the command line: the same message and exit code as --no-daemon', async () => {
    const { env } = daemonEnv();
    await startedDaemon(env);
    const badMapping = join(temp, 'bad-mapping.json');
    writeFileSync(badMapping, JSON.stringify({ rules: { heading1: { style: 'Nope' } } }));
    const badTemplate = join(temp, 'bad.docx');
    writeFileSync(badTemplate, 'not a zip');
    const input = join(FIXTURES, 'elements/footnotes/input.md');
    for (const option of [
      ['--mapping', badMapping],
      ['--template', badTemplate],
    ]) {
      const a = await runCli(['convert', input, ...option, '-o', join(temp, 'e.docx')], { env });
      const b = await runCli(['convert', '--no-daemon', input, ...option, '-o', join(temp, 'e.docx')], { env });
      expect(a.code).toBe(1);
      expect(a).toEqual(b);
    }
    // A template that reading cleans (external links, macros' traces...): its warnings on both paths alike.
    const cleaned = join(temp, 'cleaned.docx');
    writeFileSync(cleaned, hostileTemplate(defaultTemplate()));
    const before = await served(env);
    const a = await runCli(['convert', input, '--template', cleaned, '-o', join(temp, 'c.docx')], { env });
    const b = await runCli(['convert', '--no-daemon', input, '--template', cleaned, '-o', join(temp, 'c.docx')], {
      env,
    });
    expect(await served(env)).toBe(before + 1);
    expect(a.code).toBe(0);
    expect(a.stderr).toMatch(/warning: template_/);
    expect(a).toEqual(b);
  });

  it('serves no client without the token, and reads nothing of its payload', async () => {
    const { dir, env } = daemonEnv();
    await startedDaemon(env);
    const before = await served(env);
    const socket = readdirSync(dir).find((name) => name.endsWith('.sock'));
    expect(socket).toBeDefined();
    const answer = await new Promise<string>((resolve, reject) => {
      const client = connect(join(dir, socket ?? ''));
      let text = '';
      client.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      client.on('close', () => resolve(text));
      client.on('error', reject);
      // A header with a wrong token that announces 100 MB of payload, of which nothing is sent.
      const header = Buffer.from(
        JSON.stringify({ v: 1, op: 'convert', token: 'x'.repeat(64), created: 0, lengths: [100 * 1024 * 1024] }),
      );
      const size = Buffer.alloc(4);
      size.writeUInt32BE(header.byteLength);
      client.write(Buffer.concat([size, header]));
    });
    expect(answer).toContain('"code":"unauthorized"');
    expect(await served(env)).toBe(before);
  });

  it('converts a document sent while it is busy in the command line itself', async () => {
    const { env } = daemonEnv();
    await startedDaemon(env);
    const large = join(temp, 'large.md');
    writeFileSync(large, generateMarkdown(1200 * 1024));
    const small = join(FIXTURES, 'elements/footnotes/input.md');
    const before = await served(env);
    let smallDone = 0;
    const largeRun = runCli(['convert', large, '-o', join(temp, 'large.docx'), '-q'], { env, timeoutMs: 120_000 });
    // Once the large one is in the daemon's worker.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const smallRun = runCli(['convert', small, '-o', join(temp, 'small.docx'), '-q'], { env }).then((r) => {
      smallDone = Date.now();
      return r;
    });
    const [l, s] = await Promise.all([largeRun, smallRun]);
    const largeDone = Date.now();
    expect(l.code).toBe(0);
    expect(s.code).toBe(0);
    expect(smallDone).toBeLessThan(largeDone);
    expect(await served(env)).toBe(before + 1);
  });

  it('starts none with --no-daemon or DOCWRIGHT_DAEMON=0, nor where its folder is open to others', async () => {
    const input = join(FIXTURES, 'elements/footnotes/input.md');
    const off = daemonEnv({ DOCWRIGHT_DAEMON: '0' });
    const flag = daemonEnv();
    const open = daemonEnv();
    mkdirSync(open.dir, { mode: 0o755 });
    chmodSync(open.dir, 0o755);
    const results: CliResult[] = [
      await runCli(['convert', input, '-o', join(temp, 'o1.docx'), '-q'], { env: off.env }),
      await runCli(['convert', '--no-daemon', input, '-o', join(temp, 'o2.docx'), '-q'], { env: flag.env }),
      await runCli(['convert', input, '-o', join(temp, 'o3.docx'), '-q'], { env: open.env }),
    ];
    for (const result of results) expect(result.code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(existsSync(off.dir) ? readdirSync(off.dir) : []).toEqual([]);
    expect(existsSync(flag.dir) ? readdirSync(flag.dir) : []).toEqual([]);
    expect(readdirSync(open.dir)).toEqual([]);
  });

  it('ends on `daemon stop`, on SIGTERM and when idle, and takes its socket, token and lock with it', async () => {
    const stopped = daemonEnv();
    await startedDaemon(stopped.env);
    expect((await runCli(['daemon', 'stop'], { env: stopped.env })).stdout).toMatch(/^stopped \(pid \d+\)/);
    await until('the files to go', () => readdirSync(stopped.dir).length === 0, 10_000);
    expect((await runCli(['daemon', 'status'], { env: stopped.env })).stdout).toBe('not running\n');

    const signalled = daemonEnv();
    const pid = await startedDaemon(signalled.env);
    process.kill(pid, 'SIGTERM');
    await until('the files to go', () => readdirSync(signalled.dir).length === 0, 10_000);
    await until('the process to end', () => daemonPids(signalled.dir).length === 0, 10_000);

    // While it warms up it answers already, and stops when told; DOCWRIGHT_DAEMON=0 does not hide it.
    const warming = daemonEnv();
    const early = spawn(process.execPath, [BIN, 'daemon', 'run'], { env: warming.env, stdio: 'ignore' });
    const earlyExit = new Promise<number | null>((resolve) => early.on('exit', (code) => resolve(code)));
    await until(
      'its token',
      () => existsSync(warming.dir) && readdirSync(warming.dir).some((n) => n.endsWith('.token')),
    );
    const off = { ...warming.env, DOCWRIGHT_DAEMON: '0' };
    expect((await runCli(['daemon', 'status'], { env: off })).stdout).toMatch(/^running: pid \d+/);
    expect((await runCli(['daemon', 'stop'], { env: off })).stdout).toMatch(/^stopped \(pid \d+\)/);
    expect(await earlyExit).toBe(0);
    expect(readdirSync(warming.dir)).toEqual([]);

    const idle = daemonEnv({ DOCWRIGHT_DAEMON_IDLE_MS: '1500' });
    // Started directly here, so the idle time is known; `convert` starts it the same way.
    const child = spawn(process.execPath, [BIN, 'daemon', 'run'], { env: idle.env, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await until('the daemon', () => existsSync(idle.dir) && readdirSync(idle.dir).some((n) => n.endsWith('.token')));
    expect(await exited).toBe(0);
    expect(readdirSync(idle.dir)).toEqual([]);
  });
  it('uses no folder that someone else could change: a parent writable by others, a link on the way', async () => {
    const input = join(FIXTURES, 'elements/footnotes/input.md');
    // A folder under a parent anyone may write (not sticky): another user could swap it for one of theirs.
    const open = join(temp, 'open-parent');
    mkdirSync(open, { mode: 0o777 });
    chmodSync(open, 0o777);
    const underOpen = join(open, 'daemon');
    // A private folder reached through a link: what the link names can change.
    const real = join(temp, 'real-parent');
    mkdirSync(real, { mode: 0o700 });
    const link = join(temp, 'link-parent');
    symlinkSync(real, link);
    for (const dir of [underOpen, join(link, 'daemon')]) {
      const env = { ...process.env, DOCWRIGHT_DAEMON: '1', DOCWRIGHT_DAEMON_DIR: dir };
      started.push(env);
      const result = await runCli(['convert', input, '-o', join(temp, 'u.docx'), '-q'], { env });
      expect(result.code).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    }
  });

  it('runs one daemon when many start at once, and the others leave its files alone', async () => {
    const { dir, env } = daemonEnv();
    started.push(env);
    const children = Array.from({ length: 6 }, () =>
      spawn(process.execPath, [BIN, 'daemon', 'run'], { env, stdio: 'ignore' }),
    );
    const exits = children.map(
      (child) => new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))),
    );
    await until('the daemon', () => existsSync(dir) && readdirSync(dir).some((n) => n.endsWith('.token')));
    // All but one end (they find the lock held); the one left answers, with the token of its own.
    await until('the others to end', () => children.filter((c) => c.exitCode === null).length === 1, 30_000);
    const status = await runCli(['daemon', 'status'], { env });
    expect(status.stdout).toMatch(/^running: pid \d+/);
    // One build's socket, token and lock, and nothing a loser left.
    const names = readdirSync(dir).sort();
    expect(names).toHaveLength(3);
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{16}\.(lock|sock|token)$/);
    await runCli(['daemon', 'stop'], { env });
    await Promise.all(exits);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('closes a connection its client keeps open after the answer, and stops even with one open', async () => {
    const { dir, env } = daemonEnv();
    const pid = await startedDaemon(env);
    const base = join(
      dir,
      readdirSync(dir)
        .find((n) => n.endsWith('.token'))
        ?.slice(0, -'.token'.length) ?? '',
    );
    const token = readFileSync(`${base}.token`, 'utf8').trim();
    const header = Buffer.from(JSON.stringify({ v: 1, op: 'status', token, lengths: [] }));
    const size = Buffer.alloc(4);
    size.writeUInt32BE(header.byteLength);
    // Answered, then kept open from this side: the daemon closes its side for good (a write then fails).
    const failure = await new Promise<string>((resolve) => {
      // allowHalfOpen: this side stays open when the daemon has finished writing.
      const client = connect({ path: `${base}.sock`, allowHalfOpen: true });
      client.resume();
      client.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      client.write(Buffer.concat([size, header]));
      setTimeout(() => {
        client.write('more', () => undefined);
        setTimeout(() => {
          client.destroy();
          resolve('still open');
        }, 2_000);
      }, 7_000);
    });
    expect(failure).toMatch(/EPIPE|ECONNRESET/);
    // An idle connection that never sends a whole request does not keep the daemon from stopping.
    const idle = connect(`${base}.sock`);
    idle.on('error', () => undefined);
    await new Promise((resolve) => idle.once('connect', resolve));
    process.kill(pid, 'SIGTERM');
    await until('the daemon to end', () => daemonPids(dir).length === 0, 10_000);
    expect(readdirSync(dir)).toEqual([]);
    idle.destroy();
  });

  it('converts in its own process when what answers on the socket is not a well-formed answer', async () => {
    const { dir, env } = daemonEnv();
    await startedDaemon(env);
    const base = join(
      dir,
      readdirSync(dir)
        .find((n) => n.endsWith('.token'))
        ?.slice(0, -'.token'.length) ?? '',
    );
    await runCli(['daemon', 'stop'], { env });
    await until('the files to go', () => readdirSync(dir).length === 0, 10_000);
    // A stand-in that answers every request "ok" with bytes that are no .docx.
    writeFileSync(`${base}.token`, `${'a'.repeat(64)}\n`, { mode: 0o600 });
    const fake = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => {
        const junk = Buffer.from('junk');
        const answer = Buffer.from(
          JSON.stringify({ ok: true, warnings: [], stats: { headings: 1 }, lengths: [junk.byteLength] }),
        );
        const size = Buffer.alloc(4);
        size.writeUInt32BE(answer.byteLength);
        socket.end(Buffer.concat([size, answer, junk]));
      });
    });
    await new Promise<void>((resolve) => fake.listen(`${base}.sock`, resolve));
    try {
      const output = join(temp, 'fallback.docx');
      const result = await runCli(['convert', join(FIXTURES, 'elements/footnotes/input.md'), '-o', output], { env });
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/Wrote .* \d+ headings?,/);
      expect(readFileSync(output).readUInt32LE(0)).toBe(0x04034b50);
    } finally {
      await new Promise((resolve) => fake.close(resolve));
    }
  });
  it("starts only its own package's launcher, not one planted in the folder around the package", async () => {
    // An installed package unpacked in a folder others may write (npm's tarballs unpack to package/): its outer
    // folder gets a package.json named docwright and a bin/docwright.js of someone else's.
    const root = resolve(import.meta.dirname, '..');
    const outer = join(temp, 'outer');
    const pkg = join(outer, 'package');
    mkdirSync(pkg, { recursive: true });
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(root, part), join(pkg, part), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'));
    const marker = join(temp, 'planted-ran');
    writeFileSync(join(outer, 'package.json'), JSON.stringify({ name: 'docwright' }));
    mkdirSync(join(outer, 'bin'));
    writeFileSync(
      join(outer, 'bin', 'docwright.js'),
      `require('node:fs').writeFileSync(${JSON.stringify(marker)}, process.argv.slice(2).join(' '));\n`,
    );
    const { dir, env } = daemonEnv();
    started.push(env);
    const input = join(FIXTURES, 'elements/footnotes/input.md');
    const result = await new Promise<CliResult>((done) => {
      const child = spawn(
        process.execPath,
        [join(pkg, 'bin', 'docwright.js'), 'convert', input, '-o', join(temp, 'p.docx'), '-q'],
        { env },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => done({ code: code ?? -1, stdout: '', stderr }));
    });
    expect(result.code).toBe(0);
    // The package's own daemon starts; the planted file never runs.
    await until('the daemon', () => existsSync(dir) && readdirSync(dir).some((n) => n.endsWith('.token')));
    expect(existsSync(marker)).toBe(false);
  });
});
