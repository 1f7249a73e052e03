/**
 * The command line beside a running server (issue 31): `docwright serve` on a scratch data folder, the resident
 * memory of all its processes (the launcher, when one stays as its parent, and render children included), and one
 * `docwright convert` of many files against as many pandoc processes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';

export interface RunningServe {
  /** The process the bench started (the launcher, or the server itself when the launcher replaced itself). */
  child: ChildProcess;
  /** The server's pid (its discovery file's). */
  pid: number;
  dataDir: string;
  stop: () => Promise<void>;
}

/** Starts `docwright --data-dir DATADIR serve --port 0` with NODE and waits (up to a minute) for its discovery file. */
export async function startServe(node: string, cli: string, dataDir: string, cwd: string): Promise<RunningServe> {
  const child = spawn(node, [cli, '--data-dir', dataDir, 'serve', '--port', '0'], {
    cwd,
    env: { ...process.env, DOCWRIGHT_KEYCHAIN: 'off' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 8192) stderr += chunk.toString('utf8');
  });
  const discovery = join(dataDir, 'server.json');
  const end = Date.now() + 60_000;
  while (!existsSync(discovery)) {
    if (child.exitCode !== null || Date.now() > end) {
      child.kill('SIGTERM');
      throw new Error(`docwright serve did not start: ${stderr.trim().split('\n').slice(-3).join(' ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { pid } = JSON.parse(readFileSync(discovery, 'utf8')) as { pid: number };
  return {
    child,
    pid,
    dataDir,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * One conversion of MARKDOWN through the server's API (POST /api/v1/convert as the command line calls it: its admin
 * token, trusting its certificate), so the server has converted whatever the command line does: its time in ms.
 */
export async function convertThroughApi(serve: RunningServe, markdown: string): Promise<number> {
  const discovery = JSON.parse(readFileSync(join(serve.dataDir, 'server.json'), 'utf8')) as {
    url: string;
    cert_path: string | null;
  };
  const token = readFileSync(join(serve.dataDir, 'admin.token'), 'utf8').trim();
  const agent = new Agent({ connect: discovery.cert_path ? { ca: readFileSync(discovery.cert_path, 'utf8') } : {} });
  try {
    const start = performance.now();
    const response = await request(`${discovery.url}/api/v1/convert`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'x-docwright-admin': token, 'content-type': 'application/json' },
      body: JSON.stringify({
        markdown,
        template_id: '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000001',
        mapping_id: '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000002',
        response_format: 'json',
      }),
    });
    await response.body.arrayBuffer();
    if (response.statusCode !== 200) throw new Error(`POST /api/v1/convert answered ${String(response.statusCode)}`);
    return performance.now() - start;
  } finally {
    await agent.close();
  }
}

export interface TreeMemory {
  /** Resident memory of every process of the tree, summed, in MB. */
  totalMB: number;
  /** Each process: pid, name, RSS in MB. */
  processes: { pid: number; name: string; rssMB: number }[];
}

/** The resident memory (VmRSS, Linux) of ROOT and every process below it; null where /proc cannot be read. */
export function treeMemory(root: number): TreeMemory | null {
  if (!existsSync('/proc/self/status')) return null;
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const processes: TreeMemory['processes'] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    try {
      const status = readFileSync(`/proc/${String(pid)}/status`, 'latin1');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      const name = /Name:\s+(.*)/.exec(status)?.[1]?.trim() ?? '?';
      processes.push({ pid, name, rssMB: kb / 1024 });
    } catch {
      continue;
    }
    queue.push(...(children.get(pid) ?? []));
  }
  return { totalMB: processes.reduce((sum, p) => sum + p.rssMB, 0), processes };
}

export type BatchResult =
  { ok: true; ms: number; files: number } | { ok: false; reason: string; detail?: string; unsupported?: boolean };

/**
 * Times one command that converts INPUTS into OUTDIR (one .docx per input, named after it): ok when it exits 0 and
 * every output is there. A command line that refuses several inputs is said as "not supported by this CLI".
 */
export function timeBatch(
  command: string,
  args: readonly string[],
  inputs: readonly string[],
  outDir: string,
  cwd: string,
): BatchResult {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const start = performance.now();
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 16 * 1024 * 1024 });
  const ms = performance.now() - start;
  const stderr = result.stderr.toString('utf8').trim();
  if (result.error) return { ok: false, reason: `error (${result.error.message})` };
  const outputs = inputs.map((input) => join(outDir, `${input.replace(/^.*[\\/]/, '').replace(/\.md$/, '')}.docx`));
  const written = outputs.filter((file) => existsSync(file) && statSync(file).size > 0).length;
  if (
    result.status !== 0 &&
    written === 0 &&
    /too many arguments|unknown option|excess|expects? (one|a single)|takes one file|one file, not/i.test(stderr)
  )
    return { ok: false, reason: 'not supported by this CLI', detail: stderr.split('\n')[0], unsupported: true };
  if (result.status !== 0 || written !== inputs.length)
    return {
      ok: false,
      reason: `exit ${String(result.status ?? 'signal')}, ${String(written)} of ${String(inputs.length)} written`,
      detail: stderr.split('\n').slice(0, 5).join('\n'),
    };
  return { ok: true, ms, files: written };
}

/** Times one pandoc process per input, one after another (as a script would run them): the whole time, in ms. */
export function timePandocEach(
  inputs: readonly string[],
  outDir: string,
  argsFor: (input: string, output: string) => string[],
  cwd: string,
): BatchResult {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const start = performance.now();
  for (const input of inputs) {
    const output = join(outDir, `${input.replace(/^.*[\\/]/, '').replace(/\.md$/, '')}.docx`);
    const result = spawnSync('pandoc', argsFor(input, output), { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    if (result.status !== 0)
      return { ok: false, reason: `pandoc exit ${String(result.status)}`, detail: result.stderr.toString('utf8') };
  }
  return { ok: true, ms: performance.now() - start, files: inputs.length };
}
