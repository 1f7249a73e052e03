/**
 * Load test of the real HTTPS server on loopback (part of `npm run bench`; alone: `tsx bench/load.ts`).
 *
 *   tsx bench/load.ts [--connections 1,8,32] [--duration S] [--format json|binary] [--size KB] [--no-isolation]
 *                     [--node-flags "--flag ..."]   (the server process's; default: the product's, bin/server-flags.mjs)
 *
 * The server runs in a child process (bench/load-server.ts: startServer in a fresh data directory, the file secret,
 * an API key made through Services, its conversion workers started). autocannon, in a worker thread of this
 * process, POSTs the same generated document to /api/v1/convert with the key, for each number of concurrent
 * connections: requests per second, latency p50/p99, errors and non-2xx answers, and the server process's peak
 * resident memory (workers included) while it ran. During the 8-connection run (or the first one of at least 2), a
 * probe here GETs /api/v1/conversions?limit=1 one request at a time, to show what a GET waits while conversions run.
 * Last, the p99 of two clients' conversions alone and while one client per worker sends 1.2 MB conversions (issue
 * 17: at most 2×).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { SERVER_NODE_FLAGS } from '../bin/server-flags.mjs';
import { generateMarkdown } from './generate.ts';
import { median } from './measure.ts';
import { fixed, formatTable } from './table.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUILTIN_TEMPLATE_ID = '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000001';
const BUILTIN_MAPPING_ID = '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000002';

/** The part of autocannon's result this bench reads (the package has no types). */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadOptions {
  connections: number[];
  /** Seconds per connection count. */
  duration: number;
  format: 'json' | 'binary';
  sizeKB: number;
  /** Also measure the small conversions' p99 while a 1.2 MB conversion runs (default true). */
  isolation?: boolean;
  /** The server process's Node flags (default: the product's, bin/server-flags.mjs). */
  nodeFlags?: readonly string[];
}

export interface LoadRow {
  connections: number;
  requestsPerSec: number;
  total: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
  peakRssMB: number;
  /** CPU time of the server process (every thread: event loop, workers, V8's) per answered request, in ms. */
  cpuMsPerRequest: number;
  /**
   * Cores other programs kept busy meanwhile (the machine's busy time from /proc/stat, less the server's and this
   * process's, over the run's time): a run beside other work measures the machine, not the server. NaN: unknown.
   */
  otherCores: number;
}

export interface ProbeResult {
  whileConnections: number | null;
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** The p99 of small conversions by `clients` clients, alone and while 1.2 MB conversions run one after another. */
export interface IsolationResult {
  clients: number;
  largeKB: number;
  /** Clients sending large conversions at once (one per worker). */
  largeClients: number;
  idleP99: number;
  busyP99: number;
  /** Requests answered 2xx. */
  idleRequests: number;
  busyRequests: number;
  /** Large conversions finished during the busy run, and whether one was running for all of it. */
  largeDone: number;
  largeRunning: boolean;
  errors: number;
}

export interface LoadResult {
  workers: number;
  sizeBytes: number;
  format: 'json' | 'binary';
  rows: LoadRow[];
  idleGet: ProbeResult;
  busyGet: ProbeResult;
  isolation: IsolationResult | null;
  nodeFlags: readonly string[];
}

interface ServerInfo {
  url: string;
  key: string;
  cert: string;
  pid: number;
  workers: number;
}

/**
 * The Node that runs `docwright serve` here: this one, or on a Node older than 22 the one npm installed with
 * Docwright (bin/docwright.js runs itself again on it), so the bench measures the runtime the product uses.
 */
function productNode(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  try {
    const path = join(dirname(createRequire(import.meta.url).resolve('node/package.json')), 'bin', 'node');
    return existsSync(path) ? path : process.execPath;
  } catch {
    return process.execPath;
  }
}

async function startChild(
  dataDir: string,
  nodeFlags: readonly string[],
): Promise<{ child: ChildProcess; info: ServerInfo }> {
  // The flags the product's launchers give a server process (bin/docwright.js, scripts/start.mjs).
  const args = [...nodeFlags, '--import', 'tsx', join(repoRoot, 'bench/load-server.ts'), dataDir];
  const child = spawn(productNode(), args, {
    cwd: repoRoot,
    // A 1.2 MB conversion on a loaded machine may take longer than the default 30 s limit: it is measured, not cut.
    env: { ...process.env, DOCWRIGHT_KEYCHAIN: 'off', DOCWRIGHT_CONVERT_TIMEOUT_MS: '600000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const info = await new Promise<ServerInfo>((done, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) done(JSON.parse(line) as ServerInfo);
    });
    child.on('exit', (code) => fail(new Error(`the load server exited (${String(code)}) before it was ready: ${out}`)));
  });
  return { child, info };
}

/** Samples a process's resident memory (VmRSS) every 100 ms; `stop` returns the highest, in MB. */
function rssSampler(pid: number): { stop: () => number } {
  let peak = 0;
  const sample = () => {
    try {
      const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m?.[1]) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch {
      // not Linux, or the process is gone
    }
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** The machine's busy CPU time, every core, in ms (Linux /proc/stat: all but idle and iowait); NaN elsewhere. */
function machineBusyMs(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return fields.length >= 8 ? (user + nice + system + irq + softirq + steal) * 10 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** This process's CPU time (every thread: the load generator's too), in ms. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU time (user + system, every thread) a process has used, in ms; NaN where /proc is not there. */
function cpuMs(pid: number): number {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th (clock ticks, 100 Hz).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** GETs one conversion record at a time until `until` resolves (at least `min` requests); latencies in ms. */
async function probe(info: ServerInfo, agent: Agent, until: Promise<unknown>, min = 0): Promise<number[]> {
  let done = false as boolean; // set when `until` resolves, which TypeScript does not follow
  void until.then(() => (done = true));
  const latencies: number[] = [];
  while (!done || latencies.length < min) {
    const start = performance.now();
    const res = await request(`${info.url}/api/v1/conversions?limit=1`, {
      headers: { authorization: `Bearer ${info.key}` },
      dispatcher: agent,
    });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`GET answered ${res.statusCode}`);
    latencies.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, 20));
  }
  return latencies;
}

const ISOLATION_CLIENTS = 2;
const LARGE_KB = 1200;

/**
 * Issue 17's responsiveness measure: the p99 of 9 KB conversions by two clients for 10 s, alone, then while one
 * client per worker converts 1.2 MB documents one after another (started first, so they are under way).
 */
async function measureIsolation(
  info: ServerInfo,
  agent: Agent,
  target: Record<string, unknown>,
): Promise<IsolationResult> {
  const duration = 10;
  process.stdout.write(`, ${ISOLATION_CLIENTS} clients alone`);
  const idle = await autocannon({ ...target, connections: ISOLATION_CLIENTS, duration });
  const large = JSON.stringify({
    markdown: generateMarkdown(LARGE_KB * 1024),
    template_id: BUILTIN_TEMPLATE_ID,
    mapping_id: BUILTIN_MAPPING_ID,
    response_format: 'json',
  });
  const largeRuns = { stop: false, done: 0 };
  // One client per worker sends 1.2 MB conversions one after another: enough to hold every worker, were large
  // conversions allowed to.
  const loops = Array.from({ length: info.workers }, async () => {
    while (!largeRuns.stop) {
      const res = await request(`${info.url}/api/v1/convert`, {
        method: 'POST',
        body: large,
        headers: { authorization: `Bearer ${info.key}`, 'content-type': 'application/json' },
        dispatcher: agent,
        headersTimeout: 600_000,
        bodyTimeout: 600_000,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`the 1.2 MB conversion answered ${res.statusCode}: ${text}`);
      largeRuns.done += 1;
    }
  });
  // The large body is sent and its conversion under way before the small ones start.
  await new Promise((r) => setTimeout(r, 1500));
  process.stdout.write(`, with ${info.workers} clients sending ${LARGE_KB / 1000} MB`);
  const startedAt = largeRuns.done;
  const busy = await autocannon({ ...target, connections: ISOLATION_CLIENTS, duration });
  const largeRunning = largeRuns.done === startedAt;
  const largeDone = largeRuns.done;
  largeRuns.stop = true;
  await Promise.all(loops);
  return {
    clients: ISOLATION_CLIENTS,
    largeKB: LARGE_KB,
    largeClients: info.workers,
    // No answer at all within the run is worse than any p99: counted as the whole run.
    idleP99: idle['2xx'] > 0 ? idle.latency.p99 : duration * 1000,
    busyP99: busy['2xx'] > 0 ? busy.latency.p99 : duration * 1000,
    idleRequests: idle['2xx'],
    busyRequests: busy['2xx'],
    largeDone,
    largeRunning,
    errors: idle.errors + idle.timeouts + idle.non2xx + busy.errors + busy.timeouts + busy.non2xx,
  };
}

function summarise(latencies: number[], whileConnections: number | null): ProbeResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN;
  return {
    whileConnections,
    count: sorted.length,
    p50: median(sorted),
    p99,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'docwright-load-'));
  const nodeFlags = options.nodeFlags ?? SERVER_NODE_FLAGS;
  const { child, info } = await startChild(dataDir, nodeFlags);
  const agent = new Agent({ connect: { ca: readFileSync(info.cert, 'utf8') } });
  try {
    const markdown = generateMarkdown(options.sizeKB * 1024);
    const body = JSON.stringify({
      markdown,
      template_id: BUILTIN_TEMPLATE_ID,
      mapping_id: BUILTIN_MAPPING_ID,
      response_format: options.format,
    });
    const target = {
      url: `${info.url}/api/v1/convert`,
      method: 'POST',
      headers: { authorization: `Bearer ${info.key}`, 'content-type': 'application/json' },
      body,
      tlsOptions: { ca: readFileSync(info.cert, 'utf8') },
      // The load runs in a worker thread, so this thread's GET probe is not delayed by it.
      workers: 1,
    };
    process.stdout.write(`load: server pid ${info.pid} with ${info.workers} conversion workers; warm-up`);
    await autocannon({ ...target, connections: 2, duration: 3 });
    const idleGet = summarise(await probe(info, agent, Promise.resolve(), 50), null);
    const probeAt = options.connections.find((c) => c === 8) ?? options.connections.find((c) => c >= 2) ?? null;
    let busyGet: ProbeResult = { whileConnections: null, count: 0, p50: Number.NaN, p99: Number.NaN, max: Number.NaN };
    const rows: LoadRow[] = [];
    for (const connections of options.connections) {
      process.stdout.write(`, ${connections} connection${connections === 1 ? '' : 's'}`);
      const rss = rssSampler(info.pid);
      const cpuBefore = cpuMs(info.pid);
      const machineBefore = machineBusyMs();
      const ownBefore = ownCpuMs();
      const startedAt = performance.now();
      const run = autocannon({ ...target, connections, duration: options.duration });
      const probed = connections === probeAt ? probe(info, agent, run) : null;
      const result = await run;
      const cpuUsed = cpuMs(info.pid) - cpuBefore;
      const others = machineBusyMs() - machineBefore - cpuUsed - (ownCpuMs() - ownBefore);
      const otherCores = Math.max(0, others) / (performance.now() - startedAt);
      if (probed) busyGet = summarise(await probed, connections);
      rows.push({
        connections,
        requestsPerSec: result.requests.total / options.duration,
        total: result.requests.total,
        p50: result.latency.p50,
        p99: result.latency.p99,
        max: result.latency.max,
        errors: result.errors + result.timeouts,
        non2xx: result.non2xx,
        peakRssMB: rss.stop(),
        cpuMsPerRequest: cpuUsed / Math.max(1, result['2xx']),
        otherCores,
      });
    }
    const isolation = options.isolation === false ? null : await measureIsolation(info, agent, target);
    process.stdout.write('\n');
    return {
      workers: info.workers,
      sizeBytes: Buffer.byteLength(markdown),
      format: options.format,
      rows,
      idleGet,
      busyGet,
      isolation,
      nodeFlags,
    };
  } finally {
    await agent.close();
    child.kill('SIGTERM');
    await once(child, 'exit');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function printLoad(result: LoadResult): void {
  console.log(
    `\nServer under load: POST /api/v1/convert, ${fixed(result.sizeBytes / 1024, 1)} KB of markdown, response_format ${result.format}, ` +
      `HTTPS on loopback, ${result.workers} conversion workers, server flags ${result.nodeFlags.join(' ') || '(none)'}; the load generator shares the same cores.`,
  );
  console.log(
    formatTable(
      [
        'connections',
        'requests/s',
        'requests',
        'p50 ms',
        'p99 ms',
        'max ms',
        'errors',
        'non-2xx',
        'peak RSS MB',
        'server CPU ms/conv',
        'other programs, cores',
      ],
      result.rows.map((r) => [
        String(r.connections),
        fixed(r.requestsPerSec, 1),
        String(r.total),
        fixed(r.p50, 0),
        fixed(r.p99, 0),
        fixed(r.max, 0),
        String(r.errors),
        String(r.non2xx),
        fixed(r.peakRssMB, 0),
        fixed(r.cpuMsPerRequest, 1),
        Number.isNaN(r.otherCores) ? '–' : fixed(r.otherCores, 2),
      ]),
      [true, true, true, true, true, true, true, true, true, true, true],
    ),
  );
  const g = (p: ProbeResult) =>
    `p50 ${fixed(p.p50, 1)} ms, p99 ${fixed(p.p99, 1)} ms, max ${fixed(p.max, 1)} ms (${p.count} GETs)`;
  console.log(`GET /api/v1/conversions?limit=1 idle: ${g(result.idleGet)}`);
  if (result.busyGet.whileConnections !== null)
    console.log(`GET while ${result.busyGet.whileConnections} clients convert: ${g(result.busyGet)}`);
  const iso = result.isolation;
  if (iso)
    console.log(
      `${iso.clients} clients' ${fixed(result.sizeBytes / 1024, 0)} KB conversions, p99: ${fixed(iso.idleP99, 0)} ms alone (${iso.idleRequests}), ` +
        `${fixed(iso.busyP99, 0)} ms while ${iso.largeClients} clients send ${fixed(iso.largeKB / 1000, 1)} MB conversions (${iso.busyRequests}; ${iso.largeRunning ? 'none finished meanwhile' : `${iso.largeDone} finished meanwhile`}): ` +
        `${fixed(iso.busyP99 / iso.idleP99, 2)}× (must be ≤ 2×)${iso.errors > 0 ? `, ${iso.errors} errors` : ''}`,
    );
}

function parseArgs(argv: readonly string[]): LoadOptions {
  const options: LoadOptions = { connections: [1, 8, 32], duration: 10, format: 'json', sizeKB: 10 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => argv[++i] ?? '';
    if (arg === '--connections')
      options.connections = value()
        .split(',')
        .map(Number)
        .filter((n) => Number.isInteger(n) && n > 0);
    else if (arg === '--duration') options.duration = Number(value());
    else if (arg === '--format') options.format = value() === 'binary' ? 'binary' : 'json';
    else if (arg === '--size') options.sizeKB = Number(value());
    else if (arg === '--no-isolation') options.isolation = false;
    else if (arg === '--node-flags') options.nodeFlags = value().split(' ').filter(Boolean);
    else if (arg !== '--') throw new Error(`unknown option ${String(arg)}`);
  }
  return options;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  printLoad(await runLoad(parseArgs(process.argv.slice(2))));
}
