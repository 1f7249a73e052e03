import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IMAGE_LIMITS } from '../convert/images/limits.ts';
import {
  renderHere,
  renderOptions,
  type RenderFailure,
  type RenderRequest,
  type RenderResult,
} from '../convert/images/render.ts';

// The SVG renderer's child processes (render-child.mjs): the engine (server/convert/) starts no process and reads no
// environment, so the command, its limits and its environment are made here, where processes are managed. A
// conversion worker renders through its pool (pool.ts, worker.ts); renderInChild is the one-off child's way.

/** How a render child ended: its standard output (or nothing), whether it was killed, and the time it took. */
export interface ChildOutcome {
  stdout: Uint8Array | null;
  /** Killed: by the render's time limit, its memory limit (a signal, or an allocation failure), or its owner. */
  killed: boolean;
  status: number | null;
}

/** A render child's command: `prlimit --as` around Node where it exists (Linux), else Node alone. */
export interface RenderCommand {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * Where render-child.mjs is: next to this file in the sources, `render-child.js` in dist/ (beside the chunk this
 * module was bundled into, or one folder up), or next to the desktop app's main.js, from the asar's unpacked copy.
 */
export function renderChildEntry(): string {
  const here = import.meta.url;
  if (/\.[cm]?ts$/.test(new URL(here).pathname)) return fileURLToPath(new URL('./render-child.mjs', here));
  for (const candidate of ['./render-child.js', '../render-child.js']) {
    const path = fileURLToPath(new URL(candidate, here).href.replace(/\.asar\//, '.asar.unpacked/'));
    if (existsSync(path)) return path;
  }
  throw new Error(`render-child.js not found next to ${here}; rebuild with npm run build`);
}

/** util-linux's prlimit, which sets the child's address-space limit and then runs it (same process id). */
const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => process.platform === 'linux' && existsSync(path));

/**
 * Whether a child can run on this process's executable as Node: plain Node, or Electron started from a checkout.
 * The installed app's Electron has its "run as Node" switch fused off (electron-builder.yml): there the child would
 * start a second app, so its pool starts render children as utility processes instead (main/render-launcher.ts), and
 * only a worker with no pool renders in its own thread (docs/security.md, "Native code").
 */
function childPossible(): boolean {
  const electron = (process.versions as Partial<Record<string, string>>).electron;
  return electron === undefined || process.defaultApp;
}

let entry: string | undefined;

/** The child's address-space limit in bytes (what Node and the renderer take before rendering, plus the allowance);
 * null where none can be set; undefined until probed. */
let addressSpace: number | null | undefined;

/** The probe's command: a child that loads the renderer and prints its address space (kB). */
function probeCommand(): [string, string[]] {
  entry ??= renderChildEntry();
  return [process.execPath, [entry, '--probe']];
}

function limitFrom(probed: string): number | null {
  const kb = Number(probed.trim());
  // Twice the memory a render may have resident: resvg reserves far more address space than it touches (a 60
  // megapixel image inside an SVG: 1.2 GB reserved, 0.35 GB resident); the pool watches the resident memory itself.
  return Number.isInteger(kb) && kb > 0 ? kb * 1024 + 2 * IMAGE_LIMITS.svgRenderMemoryMb * 1024 * 1024 : null;
}

/** Measures the address-space limit once, without blocking (the pool, before its first render). */
export async function probeRenderLimit(): Promise<void> {
  if (addressSpace !== undefined) return;
  if (!PRLIMIT || !childPossible()) {
    addressSpace = null;
    return;
  }
  const [command, args] = probeCommand();
  const probed = await new Promise<string>((done) => {
    execFile(command, args, { env: childEnv(), timeout: 30_000 }, (error, stdout) => done(error ? '' : stdout));
  });
  addressSpace ??= limitFrom(probed);
}

function renderLimit(): number | null {
  if (addressSpace === undefined) {
    if (!PRLIMIT) addressSpace = null;
    else {
      const [command, args] = probeCommand();
      const probed = spawnSync(command, args, { env: childEnv(), timeout: 30_000, encoding: 'utf8' });
      addressSpace = limitFrom(probed.stdout);
    }
  }
  return addressSpace;
}

/**
 * The child's environment, the whole of it: run as Node under Electron, few malloc arenas (each reserves address
 * space). Nothing of the parent's (a loader or --inspect in NODE_OPTIONS, a user's variables): the renderer needs none,
 * and the engine reads no environment (issue 31).
 */
function childEnv(): NodeJS.ProcessEnv {
  return { ELECTRON_RUN_AS_NODE: '1', MALLOC_ARENA_MAX: '2' };
}

/** A command on Node with the render's limits: `cpuMs` the CPU time of the child's whole life, and the address space. */
function limited(node: string[], cpuMs: number): RenderCommand {
  const env = childEnv();
  const limit = renderLimit();
  if (!PRLIMIT) return { command: process.execPath, args: node.slice(1), env };
  // CPU seconds: SIGXCPU at the limit, SIGKILL a second later (the kernel's own count, however busy the cores are).
  const seconds = Math.ceil(cpuMs / 1000);
  const limits = [
    `--cpu=${String(seconds)}:${String(seconds + 1)}`,
    ...(limit === null ? [] : [`--as=${String(limit)}`]),
  ];
  return { command: PRLIMIT, args: [...limits, '--', ...node], env };
}

/**
 * Bounds the CPU time of a running render child's whole life to `cpuMs` (`prlimit --pid`, Linux), for a child no
 * command can wrap (Electron's utility process: main/render-launcher.ts). Resolves whether the limit was set.
 */
export function limitRunningChild(pid: number, cpuMs: number): Promise<boolean> {
  const prlimit = PRLIMIT;
  if (!prlimit) return Promise.resolve(false);
  const seconds = Math.ceil(cpuMs / 1000);
  const args = ['--pid', String(pid), `--cpu=${String(seconds)}:${String(seconds + 1)}`];
  return new Promise((done) => {
    execFile(prlimit, args, { env: {}, timeout: 10_000 }, (error) => done(error === null));
  });
}

/** The command that renders one SVG in a child process within IMAGE_LIMITS' time and memory bounds. */
export function renderCommand(request: RenderRequest): RenderCommand {
  entry ??= renderChildEntry();
  return limited([process.execPath, entry, JSON.stringify(renderOptions(request))], IMAGE_LIMITS.svgRenderMs);
}

/** CPU time a warm render child may use in its whole life (ms): the pool replaces it past half of this, so the
 * limit only ends one orphaned mid-render (the server killed), which would otherwise finish its SVG first. */
export const WARM_CHILD_CPU_MS = 24 * IMAGE_LIMITS.svgRenderMs;

/**
 * The command of a warm render child (the pool's: one per worker, rendering one SVG after another), its address
 * space bounded; each render's CPU time and resident memory are the pool's to watch, the child's whole life's CPU
 * time is bounded by WARM_CHILD_CPU_MS.
 */
export function serveCommand(): RenderCommand {
  entry ??= renderChildEntry();
  return limited([process.execPath, entry, '--serve'], WARM_CHILD_CPU_MS);
}

/**
 * How long a render child may run by the clock before it is killed (ms): where prlimit bounds its CPU time, 10 times
 * the render limit (a child kept from busy cores is not stopped for that); elsewhere the render limit itself.
 */
export function renderWallMs(): number {
  return PRLIMIT ? IMAGE_LIMITS.svgRenderMs * 10 : IMAGE_LIMITS.svgRenderMs;
}

/** The result a render child's output stands for. */
export function renderResult(outcome: ChildOutcome): RenderResult & { cpuMs?: number } {
  const fail = (reason: RenderFailure) => ({ ok: false as const, reason });
  // Killed (time or memory), or Node's own "out of memory" exit: the SVG costs more than a render may.
  if (outcome.killed || !outcome.stdout || outcome.status !== 0) return fail('too complex');
  const end = outcome.stdout.indexOf(10);
  if (end < 0) return fail('an SVG that cannot be rendered');
  let header: { ok?: unknown; width?: unknown; height?: unknown; reason?: unknown; cpuMs?: unknown };
  try {
    header = JSON.parse(new TextDecoder().decode(outcome.stdout.subarray(0, end))) as typeof header;
  } catch {
    return fail('an SVG that cannot be rendered');
  }
  const cpuMs = typeof header.cpuMs === 'number' ? { cpuMs: header.cpuMs } : {};
  if (header.ok !== true || typeof header.width !== 'number' || typeof header.height !== 'number')
    return { ...fail(header.reason === 'too complex' ? 'too complex' : 'an SVG that cannot be rendered'), ...cpuMs };
  return { ok: true, width: header.width, height: header.height, png: outcome.stdout.slice(end + 1), ...cpuMs };
}

/**
 * Renders in a child process and waits for it: killed past IMAGE_LIMITS.svgRenderMs of CPU time (where prlimit
 * exists; elsewhere of the clock) and its address space bounded (prlimit): a conversion worker's renderer when it has
 * no pool to render through; the pool's workers hand the child to the pool instead, which kills it with the job
 * (worker.ts).
 */
export function renderInChild(request: RenderRequest): RenderResult {
  if (!childPossible()) return renderHere(request);
  const { command, args, env } = renderCommand(request);
  const child = spawnSync(command, args, {
    input: request.svg,
    env,
    timeout: renderWallMs(),
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const result = renderResult({
    stdout: child.error ? null : child.stdout,
    killed: child.signal !== null,
    status: child.status,
  });
  if (result.ok) return result;
  return { ok: false, reason: result.reason };
}

/** Whether renders here can go to a child process (false only in the installed desktop app). */
export function rendersInChild(): boolean {
  return childPossible();
}
