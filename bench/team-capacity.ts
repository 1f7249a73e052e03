/**
 * How far one team server goes: conversions per second of one document through a real `docwright serve` (HTTPS,
 * API key, the built-in template and mapping, each result stored as a conversion record), at several numbers of
 * concurrent clients.
 *
 *   tsx bench/team-capacity.ts [--kb 10] [--clients 1,8,32] [--seconds 15] [--history N]
 *
 * Each client sends POST /api/v1/convert, waits for the whole .docx, then sends the next. Per level: conversions
 * per second, latency p50/p95/p99 and errors, after a 2-second warm-up. `--history N` first fills the history with
 * N conversion records (copies of a real one), as on a server that has been busy for a while. The server is a
 * child process, like a service; it and the clients share the machine, so the numbers are a floor for a dedicated
 * host. On Linux it also reports the CPU time the server used per conversion (/proc/PID/stat, all its threads),
 * which other load on the machine changes little: cores ÷ that time is what the cores give to the server alone.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { availableParallelism, cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../server/store/store.ts';
import { generateMarkdown } from './generate.ts';

const root = resolve(import.meta.dirname, '..');

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const kb = Number(option('kb', '10'));
const levels = option('clients', '1,8,32').split(',').map(Number);
const seconds = Number(option('seconds', '15'));
const history = Number(option('history', '0'));

/** CPU seconds (user + system, every thread) a process has used so far, on Linux; NaN elsewhere. */
function cpuSeconds(pid: number | undefined): number {
  const file = `/proc/${pid ?? 0}/stat`;
  if (pid === undefined || !existsSync(file)) return NaN;
  // Fields after the command name "(…)": utime and stime are the 12th and 13th, in clock ticks (100 per second).
  const fields = readFileSync(file, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN);
}

type Server = { child: ChildProcessByStdio<null, Readable, null>; url: string };

async function startServer(env: NodeJS.ProcessEnv): Promise<Server> {
  const child = spawn(process.execPath, [join(root, 'bin/docwright.js'), 'serve', '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Docwright is running at (\S+)/.exec(out);
      if (m?.[1]) done(m[1]);
    });
    child.once('exit', () => fail(new Error(`the server exited: ${out}`)));
  });
  child.stdout.resume();
  return { child, url };
}

async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((done) => server.child.once('exit', done));
  server.child.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'dw-capacity-'));
  const env = { ...process.env, DOCWRIGHT_HOME: home, DOCWRIGHT_KEYCHAIN: 'off' };
  const markdown = generateMarkdown(kb * 1024);
  const body = JSON.stringify({ markdown, template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID });
  let server = await startServer(env);
  try {
    const trust = () => {
      const discovery = JSON.parse(readFileSync(join(home, 'server.json'), 'utf8')) as { cert_path: string };
      return readFileSync(discovery.cert_path, 'utf8');
    };
    const adminToken = readFileSync(join(home, 'admin.token'), 'utf8').trim();
    const setup = new Agent({ connect: { ca: trust() } });
    const created = await request(`${server.url}/api/settings/api-keys`, {
      method: 'POST',
      dispatcher: setup,
      headers: { 'x-docwright-admin': adminToken, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'capacity' }),
    });
    const { key } = (await created.body.json()) as { key: string };
    const convert = (agent: Agent) =>
      request(`${server.url}/api/v1/convert`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      });
    if (history > 0) {
      // One real conversion, copied N times into the history of the stopped server, which then starts again.
      await (await convert(setup)).body.arrayBuffer();
      await stopServer(server);
      const file = join(home, 'db.json');
      const data = JSON.parse(readFileSync(file, 'utf8')) as { conversions: Record<string, unknown>[] };
      const [model] = data.conversions;
      if (!model) throw new Error('no conversion record to copy');
      for (let i = 0; i < history; i++)
        data.conversions.push({
          ...model,
          conversion_id: randomUUID(),
          created_at: new Date(Date.now() - i * 1000).toISOString(),
        });
      writeFileSync(file, JSON.stringify(data, null, 2));
      server = await startServer(env);
    }
    await setup.close();
    const ca = trust();

    console.log(`# Docwright team-server capacity, ${new Date().toISOString().slice(0, 10)}`);
    console.log(
      `machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ${platform()} ${release()}, Node ${process.version}`,
    );
    console.log(
      `document: ${markdown.length} bytes of markdown (bench/generate.ts); history: ${history} conversion records before the run (db.json ${Math.round(readFileSync(join(home, 'db.json')).length / 1024)} KiB)`,
    );
    console.log(
      `load average before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log('| clients | conversions/s | p50 ms | p95 ms | p99 ms | errors | server CPU ms per conversion |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    for (const clients of levels) {
      const agent = new Agent({ connect: { ca }, connections: clients, pipelining: 1 });
      const latencies: number[] = [];
      let errors = 0;
      let measuring = false;
      let cpuAtStart = NaN;
      const warmupEnd = performance.now() + 2000;
      const end = warmupEnd + seconds * 1000;
      const worker = async () => {
        while (performance.now() < end) {
          const started = performance.now();
          try {
            const res = await convert(agent);
            const bytes = Buffer.from(await res.body.arrayBuffer());
            if (res.statusCode !== 200 || bytes.subarray(0, 2).toString('latin1') !== 'PK') errors += measuring ? 1 : 0;
            else if (measuring) latencies.push(performance.now() - started);
          } catch {
            if (measuring) errors++;
          }
          if (!measuring && performance.now() >= warmupEnd) {
            measuring = true;
            cpuAtStart = cpuSeconds(server.child.pid);
          }
        }
      };
      await Promise.all(Array.from({ length: clients }, worker));
      const cpu = cpuSeconds(server.child.pid) - cpuAtStart;
      await agent.close();
      const sorted = latencies.sort((a, b) => a - b);
      const row = [
        clients,
        (sorted.length / seconds).toFixed(1),
        percentile(sorted, 50).toFixed(0),
        percentile(sorted, 95).toFixed(0),
        percentile(sorted, 99).toFixed(0),
        errors,
        ((cpu * 1000) / sorted.length).toFixed(0),
      ];
      console.log(`| ${row.join(' | ')} |`);
    }
    console.log(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await stopServer(server);
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
