// `docwright convert` has no daemon (issue 31): with no server running it converts in its own process and exits,
// leaving no Docwright process behind (no daemon, no image render child), one file or many; when the app or
// `docwright serve` runs for the same data folder, the conversion goes through that server (its count of
// command-line conversions says so), which records nothing in its History; the daemon's flags and commands are
// refused with a sentence saying what replaced them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMarkdown } from '../bench/generate.ts';
import { dataPaths } from '../server/store/paths.ts';
import { validateDocx } from './helpers/docx.ts';
import { call, killAllChildren, runCli, startServe, trustingAgent } from './helpers/docwright-process.ts';

const root = resolve(import.meta.dirname, '..');
const temp = mkdtempSync(join(tmpdir(), 'dw-convert-warm-'));
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#36c"/></svg>';
writeFileSync(join(temp, 'chart.svg'), SVG);
writeFileSync(join(temp, 'one.md'), '# One\n\nText and a chart:\n\n![chart](chart.svg)\n');
writeFileSync(join(temp, 'two.md'), generateMarkdown(20 * 1024));
writeFileSync(join(temp, 'three.md'), '# Three\n\nAs @fig:none shows.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n');

/** Every process's parent, by pid. */
function parents(): Map<number, number> {
  const lines = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' }).split('\n');
  return new Map(
    lines
      .map((line) => line.trim().split(/\s+/).map(Number))
      .filter(([pid, ppid]) => pid !== undefined && ppid !== undefined && pid > 0)
      .map(([pid, ppid]) => [pid as number, ppid as number]),
  );
}

/** This checkout's processes (its launcher, bundle or sources in their command line), by pid. */
function docwrightProcesses(): Map<number, string> {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  const found = new Map<number, string>();
  for (const line of lines) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (!m?.[1] || !m[2]) continue;
    const args = m[2];
    if ([join(root, 'bin'), join(root, 'dist'), join(root, 'server')].some((dir) => args.includes(`${dir}/`)))
      found.set(Number(m[1]), args);
  }
  return found;
}

/** The processes of this checkout that were not there before, but for the running server's own (SERVER, its pid). */
function newProcesses(before: Map<number, string>, server?: number): string[] {
  const parent = parents();
  const ofServer = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) if (p === server) return true;
    return false;
  };
  return [...docwrightProcesses()]
    .filter(([pid]) => !before.has(pid) && !ofServer(pid))
    .map(([pid, args]) => `${pid} ${args}`);
}

const leftovers: number[] = [];
afterAll(async () => {
  // Before the fix a daemon outlived the test: it is ended here (only the pids this file saw appear).
  for (const pid of leftovers)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  await killAllChildren();
  rmSync(temp, { recursive: true, force: true });
});

/** No daemon switch in the environment: what a user has (the test setup's DOCWRIGHT_DAEMON=0 removed). */
function userEnv(data: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DOCWRIGHT_HOME: data,
    DOCWRIGHT_KEYCHAIN: 'off',
    // Where the old daemon would have lived: inside this test's folder, never the user's.
    DOCWRIGHT_DAEMON_DIR: join(temp, 'daemon'),
  };
  delete env.DOCWRIGHT_DAEMON;
  return env;
}

async function expectNothingLeft(before: Map<number, string>, server?: number): Promise<void> {
  // A detached process needs a moment to show; the old daemon appeared within milliseconds of the command's exit.
  await new Promise((done) => setTimeout(done, 1500));
  const left = newProcesses(before, server);
  for (const line of left) leftovers.push(Number(line.split(' ')[0]));
  expect(left).toEqual([]);
}

describe('docwright convert with no server running', () => {
  const env = userEnv(join(temp, 'data-alone'));

  it('converts one file (with an SVG image: the render child) and leaves no Docwright process behind', async () => {
    const before = docwrightProcesses();
    const out = join(temp, 'one.docx');
    const result = await runCli(['convert', join(temp, 'one.md'), '-o', out], { env, timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^Wrote .*one\.docx \([\d.]+ KB\): 1 heading, .* 1 image; no warnings\n$/);
    const { ok, report } = await validateDocx(readFileSync(out));
    expect(ok, report).toBe(true);
    await expectNothingLeft(before);
  }, 180_000);

  it('converts a batch and leaves no Docwright process behind', async () => {
    const before = docwrightProcesses();
    const out = join(temp, 'batch-out');
    const inputs = ['one.md', 'two.md', 'three.md'].map((name) => join(temp, name));
    const result = await runCli(['convert', ...inputs, '-o', `${out}/`], { env, timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    // One line per file (and the generated document's warnings, each on a line of its own).
    expect(result.stderr.split('\n').filter((line) => line.startsWith('Wrote '))).toHaveLength(3);
    expect(result.stderr).not.toMatch(/^docwright: /m);
    await expectNothingLeft(before);
  }, 180_000);
});

describe('docwright convert with a server running for the same data folder', () => {
  it('converts through the server (single and batch), which keeps no History of it; nothing else stays', async () => {
    const data = join(temp, 'data-served');
    const env = userEnv(data);
    const server = await startServe([], { env, timeoutMs: 60_000 });
    const before = docwrightProcesses();
    const out = join(temp, 'served');
    mkdirSync(out);
    const single = await runCli(['convert', join(temp, 'one.md'), '-o', join(out, 'one.docx')], {
      env,
      timeoutMs: 120_000,
    });
    expect(single.code, single.stderr).toBe(0);
    // The line says where the conversion ran: the running server, by its process id.
    expect(single.stderr).toMatch(
      new RegExp(
        `^Wrote .*one\\.docx \\([\\d.]+ KB\\): .* 1 image; no warnings; converted by the running server \\(pid ${String(server.pid)}\\)\\n$`,
      ),
    );
    const batch = await runCli(['convert', join(temp, 'two.md'), join(temp, 'three.md'), '-o', out], {
      env,
      timeoutMs: 120_000,
    });
    expect(batch.code, batch.stderr).toBe(0);
    const wrote = batch.stderr.split('\n').filter((line) => line.startsWith('Wrote '));
    expect(wrote).toHaveLength(2);
    for (const line of wrote) expect(line).toContain(`; converted by the running server (pid ${String(server.pid)})`);
    // The server's answer keeps each warning's line, as a conversion here does.
    expect(batch.stderr).toContain('three.md: line 3: broken_reference: fig:none\n');
    for (const name of ['one', 'two', 'three']) {
      const { ok, report } = await validateDocx(readFileSync(join(out, `${name}.docx`)));
      expect(ok, report).toBe(true);
    }
    // The server says so itself: it counted three command-line conversions.
    const status = await runCli(['status', '--json'], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid: server.pid, cli_conversions: 3 });
    // And it keeps none of them: not in its History, not charged to the quota.
    const discovery = JSON.parse(readFileSync(dataPaths(data).discovery, 'utf8')) as { cert_path: string };
    const admin = readFileSync(dataPaths(data).adminToken, 'utf8').trim();
    const agent = trustingAgent(discovery.cert_path);
    const history = await call(agent, new URL('/api/v1/conversions', server.url).href, {
      headers: { 'x-docwright-admin': admin },
    });
    expect(history.status).toBe(200);
    expect(history.json()).toMatchObject({ total: 0 });
    await agent.close();
    // The server's own processes (its workers' SVG renderer) are its own; nothing else stays.
    await expectNothingLeft(before, server.pid);
  }, 240_000);
});

describe("the daemon's flags and commands", () => {
  const env = userEnv(join(temp, 'data-flags'));

  it.each([
    [['convert', join(temp, 'three.md'), '--no-daemon'], '--no-daemon'],
    [['daemon', 'status'], '`docwright daemon`'],
    [['daemon', 'stop'], '`docwright daemon`'],
  ])('%j is refused in one sentence saying what replaced it', async (args, what) => {
    const result = await runCli(args, { env, timeoutMs: 60_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `docwright: ${what} was removed: there is no conversion daemon any more; \`docwright convert\` goes through the running app or \`docwright serve\` of its data folder, else converts in its own process and exits.\n`,
    );
  });
});
