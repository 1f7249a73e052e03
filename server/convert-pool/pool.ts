import { existsSync, readFileSync } from 'node:fs';
import { removeQuietly, tempPathFor } from '../store/files.ts';
import { availableParallelism, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { ConvertInputError } from '../convert/errors.ts';
import { IMAGE_LIMITS } from '../convert/images/limits.ts';
import { renderResult, rendersInChild, WARM_CHILD_CPU_MS } from './render-child.ts';
import {
  MAX_ANSWER_BYTES,
  nodeRenderLauncher,
  renderChildRequest,
  type RenderChildLauncher,
  type RenderChildProcess,
} from './render-launcher.ts';
import type {
  ConversionStats,
  Dialect,
  ImageInput,
  MappingRules,
  RenderRequest,
  RenderResult,
  TemplateStyle,
  WarningDetail,
} from '../convert/index.ts';
import type {
  CitationJobInput,
  ForgetMessage,
  InspectMessage,
  InspectResultMessage,
  JobMessage,
  ReadyMessage,
  ResultMessage,
} from './protocol.ts';

/** Sizes and limits of the pool; each defaults to its environment variable, else to the value given here. */
export interface PoolOptions {
  /** Worker threads (DOCWRIGHT_WORKERS; default: the cores available, at least 1). */
  size?: number;
  /** Longest a conversion may run, in ms (DOCWRIGHT_CONVERT_TIMEOUT_MS; default 30,000): of its own thread's CPU
   * time on Linux (V8's helper threads are not counted), elsewhere or where that cannot be read by the clock. A
   * conversion still running after 10 times it by the clock with CPU time to spare is stopped as ConvertBusyError. */
  timeoutMs?: number;
  /** Heap of a worker, in MB (DOCWRIGHT_CONVERT_MEMORY_MB; default 1024). */
  memoryMb?: number;
  /** Templates each worker keeps read (default 8; the least recently used goes first). */
  templatesPerWorker?: number;
  /** Conversions that may wait for a worker (DOCWRIGHT_CONVERT_QUEUE; default 64), and large ones besides, a quarter
   * of that (at least 1); more are refused at once. */
  maxQueue?: number;
  /** A conversion of at least this many characters of markdown is large (default 100,000, about 100 KB): large
   * conversions run on workers of their own, at a lower CPU priority, at most `size - 1` at once (at least 1), so
   * small ones keep every worker and the cores. */
  largeJobChars?: number;
  /** How long a worker stays when it has had nothing to do, in ms (DOCWRIGHT_WORKER_IDLE_MS; default 30,000): then
   * it ends, with its render child, and a server at rest holds no worker; the next job starts one (docs/performance.md,
   * "Workers start when work comes"). */
  idleMs?: number;
  /** Young generation of a worker's heap, in MB (default 96): the parser allocates much short-lived memory, and a
   * larger young generation makes a 10 KB conversion about 30 % faster than the default (measured: 108 → 73 ms). */
  youngMb?: number;
  /** How long a cancelled conversion that is not large may still run before its worker is ended (default 1,000 ms).
   * Ending a worker costs more than most small conversions: its replacement loads and warms up, about a second of
   * CPU, and conversions queued meanwhile wait for it. */
  cancelGraceMs?: number;
  /** CPU time a conversion that is not large may use on the small conversions' workers, in ms (default 2,000):
   * one still running then (a short document that is slow to parse, e.g. thousands of emphasis markers in one
   * paragraph) is moved to the large conversions' workers and starts again there, within what is left of its time
   * limit, so it never holds the workers the short ones need. A template's inspection (an upload) moves the same
   * way. Not below the time limit's reach: with a limit of at most this, nothing moves. */
  smallBudgetMs?: number;
  /** Whether a worker converts a small document before it says it is ready (default true: a server's first user gets
   * compiled code; a one-shot command line, whose one conversion compiles it anyway, says false). */
  warmUp?: boolean;
  /** How the workers' SVG render children start (default: a Node child process, where this process's executable can
   * run as Node; the installed desktop app gives Electron's utility processes: main/render-launcher.ts). null: no
   * render children; a worker renders through renderInChild (in its own thread where no child can run). */
  renderLauncher?: RenderChildLauncher | null;
}

export interface PoolJob {
  markdown: string;
  /** The rules, or a mapping holding them as read from a file (checked in the worker: ConvertInputError); absent:
   * the built-in mapping. */
  mapping?: MappingRules | { rules: MappingRules };
  created: Date;
  /** The template: a key naming its exact bytes (id, version, hash) and the bytes, sent to a worker only once;
   * without bytes only under BUILTIN_TEMPLATE_KEY (the worker's own prepared built-in template). */
  template: { key: string; bytes?: Uint8Array };
  /** Where the document's images come from (docs/images.md); absent: placeholders (SPEC.md). */
  images?: ImageInput;
  /** Number the headings (the convert option `number_sections`; docs/api-extensions.md). */
  numberSections?: boolean;
  /** The markdown dialect asked for (docs/api-extensions.md); absent: the front matter's, else GFM. */
  dialect?: Dialect;
  /** The bibliography and style sent with the markdown (docs/captions-references.md); absent: the front matter's. */
  citations?: CitationJobInput;
  /** Aborting it cancels the conversion (ConvertCancelledError at once): taken off the queue; a running large one's
   * worker ended; a running small one's result dropped, its worker ended only if it runs past `cancelGraceMs`. */
  signal?: AbortSignal;
  /** Where the worker stores the document before it answers (the server's outputs: a conversion's file), atomically
   * and flushed to disk. The caller owns the file once `run` resolves; when it rejects, the file is not left there
   * (removed once the worker that was writing it has stopped; a start's orphan sweep takes what a crash leaves). */
  output?: string;
}

export interface PoolResult {
  docx: Uint8Array;
  warnings: string[];
  /** The warnings with their first source line and count. */
  warningDetails: WarningDetail[];
  stats: ConversionStats;
  /** With a template given without a mapping: how many elements its styles matched by name (suggestRules). */
  matched?: { matched: number; of: number };
}

/** A template read, checked and sanitised in a worker. */
export interface TemplateInspection {
  /** The bytes to store: the upload itself when nothing was removed, else the sanitised package. */
  bytes: Uint8Array;
  /** What the sanitiser removed or renamed. */
  warnings: string[];
  styles: TemplateStyle[];
}

/** A conversion stopped for exceeding the pool's time or memory limit, or a limit of the engine (its stack). */
export class ConvertLimitError extends Error {
  override name = 'ConvertLimitError';
  constructor(
    readonly limit: 'time' | 'memory' | 'engine',
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a user is told of a conversion stopped by a limit: the API's document_too_complex message (about `markdown`),
 * and the command line's (about its input, LABEL, and with how to raise the limit, HINT).
 */
export function limitMessage(error: ConvertLimitError, hint?: string, label = 'markdown'): string {
  return `${label}: ${error.message}; split the document or simplify its nesting${hint ? `, or ${hint}` : ''}.`;
}

/** Every worker is busy and the queue is full: the conversion was not started. */
export class ConvertBusyError extends Error {
  override name = 'ConvertBusyError';
}

/** The conversion was cancelled by its caller (the client went away, or asked to stop). */
export class ConvertCancelledError extends Error {
  override name = 'ConvertCancelledError';
}

/**
 * The CPU priority (Linux nice value, per thread) of the workers: above the event loop's 0, so it stays responsive;
 * large conversions' workers lower still, so a 1.2 MB conversion takes the cores only when the small ones leave them.
 * (A thread may lower its priority but not raise it back: the two kinds are separate workers.)
 */
const SMALL_NICE = 5;
const LARGE_NICE = 10;

/** A conversion's time limit counts its thread's CPU time (Linux); by the clock it may run at most this many times it. */
const WALL_FACTOR = 10;
/** The shortest wait before the CPU time is read again (/proc counts it in 10 ms ticks). */
const RECHECK_MS = 20;
/** The clock's cap is at least this much past the limit: a limit of a few ms is below what the 10 ms ticks tell. */
const WALL_SLACK_MS = 1_000;

/**
 * The longest a conversion with the time limit TIMEOUTMS runs by the clock (its CPU time not yet at the limit, it
 * was kept from the cores): then it is stopped as ConvertBusyError.
 */
export function wallCapMs(timeoutMs: number): number {
  return Math.max(timeoutMs * WALL_FACTOR, timeoutMs + WALL_SLACK_MS);
}

/** A thread's CPU time (user + system) in ms, from /proc/self/task/TID/stat; undefined where it cannot be read. */
function threadCpuMs(tid: number | undefined): number | undefined {
  return tid === undefined ? undefined : cpuMsOf(`/proc/self/task/${String(tid)}/stat`);
}

/** A render that did not finish within its limits. */
const RENDER_FAILED: RenderResult = { ok: false, reason: 'too complex' };

/** How often a render child's CPU time and resident memory are read (ms). */
const RSS_WATCH_MS = 50;

/** A process's resident memory in MB (Linux: /proc/PID/status); undefined where it cannot be read. */
function residentMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${String(pid)}/status`, 'latin1'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) in ms from a /proc stat file; undefined where it cannot be read. */
function cpuMsOf(path: string): number | undefined {
  try {
    const stat = readFileSync(path, 'latin1');
    // After "pid (comm) ": field 3 is the state; utime and stime are fields 14 and 15, in USER_HZ (100 a second).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** "all 2 conversion workers are busy", "the 1 conversion worker is busy". */
const busy = (count: number, one: string, many: string): string =>
  count === 1 ? `the 1 ${one} is busy` : `all ${String(count)} ${many} are busy`;

const cancelledError = (): ConvertCancelledError => new ConvertCancelledError('The conversion was cancelled.');

/** The worker running a conversion died (or the pool closed) before answering. */
export class ConvertWorkerError extends Error {
  override name = 'ConvertWorkerError';
}

/** The document was made but could not be stored at the job's `output`: `code` is the system's (ENOSPC, EACCES…). */
export class ConvertStorageError extends Error {
  override name = 'ConvertStorageError';
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** A conversion, or a template to inspect (which never touches the workers' template caches). */
type Task =
  | {
      kind: 'convert';
      job: PoolJob;
      /** At least largeJobChars of markdown, or moved to the large conversions' workers (smallBudgetMs). */
      large: boolean;
      /** CPU time (or time by the clock) it used on a small conversions' worker before it was moved, in ms. */
      spentMs?: number;
      /** The exit of the worker it ran on before it was moved (that worker may have written its output). */
      movedFrom?: Promise<unknown>;
      resolve: (result: PoolResult) => void;
      reject: (error: Error) => void;
    }
  | {
      kind: 'inspect';
      bytes: Uint8Array;
      /** Moved to the large conversions' workers (smallBudgetMs), as a conversion is. */
      large?: boolean;
      spentMs?: number;
      resolve: (result: TemplateInspection) => void;
      reject: (error: Error) => void;
    };

/** A render running in a warm child: when it started, the child's CPU time then (Linux), how it ends. */
interface Render {
  startedAt: number;
  cpuAtStart: number | undefined;
  finish: (result: RenderResult & { cpuMs?: number }) => void;
}

/** A worker's warm render child (render-child.mjs, started by the pool's launcher) and the render it is doing. */
interface RenderChild {
  child: RenderChildProcess;
  current?: Render;
}

interface Slot {
  worker: Worker;
  /** A worker for large conversions (lower priority; large ones run only on these, small ones never). */
  large: boolean;
  /** Ends the worker once it has had nothing to do for idleMs. */
  idle?: NodeJS.Timeout;
  /** Whether the worker has loaded its code (its first conversion's time limit starts then). */
  ready: boolean;
  task:
    | (Task & {
        id: number;
        timer: NodeJS.Timeout | undefined;
        /** When the worker started running it (performance.now() ms: a steady clock), and its thread's CPU time then (ms). */
        startedAt?: number;
        cpuAtStart?: number;
        cancelled?: boolean;
        /** Its time limit on this worker: timeoutMs, less what it used before it was moved (spentMs). */
        limitMs: number;
        /** CPU time its ended render children used (ms; by the clock where they did not say): part of its time. */
        renderMs: number;
        /** The task as queued (what a cancel looks for; what goes back in the queue when it is moved). */
        origin: Task;
      })
    | null;
  /** Its thread id (Linux), for its CPU time. */
  tid?: number;
  /** The template keys the worker holds, least recently used first (a mirror of its cache). */
  templates: string[];
  /** The last 'error' the worker emitted (its exit follows). */
  error: (Error & { code?: string }) | null;
  /** The temporary file of the output the worker is writing, until it answers (removed if it exits first). */
  writing?: string;
  /** Resolves when the worker's thread has exited. */
  exited: Promise<void>;
  /** Where the worker asks for SVG renders and waits for them (worker.ts): the pool runs each in a child process;
   * absent when the pool has no render launcher. */
  renders?: { port: MessagePort; flag: Int32Array };
  /** The worker's warm render child, once it has rendered: killed with the task it renders for, or the worker. */
  renderer?: RenderChild;
}

function fromEnv(name: string, min: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be an integer of at least ${min} (got "${raw}")`);
  return value;
}

/**
 * Where the worker's code is: next to this file in the sources (through tsx-worker.mjs, which loads TypeScript in
 * the thread), or `convert-worker.js` in dist/ in the build, whichever chunk of dist/ this module was bundled into,
 * or next to the desktop app's main.js (there from the asar's unpacked copy, which a thread can load).
 */
export function workerEntry(): URL {
  const here = import.meta.url;
  if (/\.[cm]?ts$/.test(new URL(here).pathname)) return new URL('./tsx-worker.mjs', here);
  for (const candidate of ['./convert-worker.js', '../convert-worker.js']) {
    const url = new URL(candidate, here);
    const unpacked = new URL(url.href.replace(/\.asar\//, '.asar.unpacked/'));
    for (const option of unpacked.href === url.href ? [url] : [unpacked, url])
      if (existsSync(fileURLToPath(option))) return option;
  }
  throw new Error(`convert-worker.js not found next to ${here}; rebuild with npm run build`);
}

/**
 * Runs conversions in worker threads, so the event loop (the HTTP server) never waits for one. A conversion past
 * the time limit, or a worker past its heap limit, is stopped by ending its worker, which is replaced; a worker
 * that dies for any other reason fails only the conversion it ran. Jobs wait in order when every worker is busy.
 */
export class ConvertPool {
  readonly size: number;
  readonly timeoutMs: number;
  readonly memoryMb: number;
  private readonly templatesPerWorker: number;
  private readonly youngMb: number;
  private readonly maxQueue: number;
  /** Large conversions that may wait: a quarter of maxQueue (at least 1), so the two queues hold at most 1.25 times it. */
  private readonly maxLargeQueue: number;
  private readonly largeJobChars: number;
  private readonly cancelGraceMs: number;
  private readonly idleMs: number;
  private readonly smallBudgetMs: number;
  private readonly warmUp: boolean;
  /** Large conversions running at once, each on a worker of its own besides the `size` for the others. */
  private readonly largeSlots: number;
  private readonly entry: URL;
  private readonly renderLauncher: RenderChildLauncher | null;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers started, workers ended by a limit or a crash, and templates sent to a worker, since the pool was made. */
  readonly counters = { started: 0, replaced: 0, templatesSent: 0, moved: 0 };

  constructor(options: PoolOptions = {}) {
    this.size = Math.max(1, options.size ?? fromEnv('DOCWRIGHT_WORKERS', 1) ?? availableParallelism());
    this.timeoutMs = options.timeoutMs ?? fromEnv('DOCWRIGHT_CONVERT_TIMEOUT_MS', 1) ?? 30_000;
    this.memoryMb = options.memoryMb ?? fromEnv('DOCWRIGHT_CONVERT_MEMORY_MB', 16) ?? 1024;
    this.templatesPerWorker = Math.max(1, options.templatesPerWorker ?? 8);
    this.youngMb = options.youngMb ?? 96;
    this.maxQueue = options.maxQueue ?? fromEnv('DOCWRIGHT_CONVERT_QUEUE', 0) ?? 64;
    this.maxLargeQueue = Math.max(1, Math.floor(this.maxQueue / 4));
    this.largeJobChars = options.largeJobChars ?? 100_000;
    this.cancelGraceMs = options.cancelGraceMs ?? 1_000;
    this.idleMs = options.idleMs ?? fromEnv('DOCWRIGHT_WORKER_IDLE_MS', 1) ?? 30_000;
    this.smallBudgetMs = options.smallBudgetMs ?? 2_000;
    this.warmUp = options.warmUp ?? true;
    this.largeSlots = Math.max(1, this.size - 1);
    this.entry = workerEntry();
    this.renderLauncher =
      options.renderLauncher === undefined ? (rendersInChild() ? nodeRenderLauncher : null) : options.renderLauncher;
  }

  /**
   * Converts in a worker. Rejects with ConvertInputError, ConvertLimitError, ConvertBusyError, ConvertCancelledError,
   * ConvertStorageError (with `output`) or ConvertWorkerError.
   */
  run(job: PoolJob): Promise<PoolResult> {
    if (this.closed) return Promise.reject(new ConvertWorkerError('The conversion pool is closed.'));
    // The job is copied to its worker, which a mapping (a caller's JSON) nested thousands deep overflows: refused here,
    // as the worker's check refuses any other mapping that is no mapping.
    if (nestsDeeper(job.mapping, MAX_MAPPING_DEPTH))
      return Promise.reject(
        new ConvertInputError(
          'mapping_invalid',
          `Invalid mapping: it nests more than ${String(MAX_MAPPING_DEPTH)} levels deep (a mapping is a few)`,
        ),
      );
    const large = job.markdown.length >= this.largeJobChars;
    const full = this.full(large, large ? 'large conversions' : 'conversions');
    if (full) return Promise.reject(full);
    const signal = job.signal;
    if (signal?.aborted) return Promise.reject(cancelledError());
    return new Promise((resolve, reject) => {
      const task: Task = { kind: 'convert', job, large, resolve, reject };
      const cancel = (): void => this.cancel(task);
      signal?.addEventListener('abort', cancel, { once: true });
      const settle = (): void => signal?.removeEventListener('abort', cancel);
      task.resolve = (result) => {
        settle();
        resolve(result);
      };
      task.reject = (error) => {
        settle();
        reject(error);
      };
      this.queue.push(task);
      this.dispatch();
    });
  }

  /**
   * Cancels a conversion; its caller is answered at once. A waiting one leaves the queue. A running large one's worker
   * is ended (and replaced when needed). A running small one is left to finish within `cancelGraceMs` and its result
   * dropped: ending its worker would cost the next conversions a cold replacement (loading and warming up a worker
   * is about a second of CPU, a 9 KB conversion 20 ms); past the grace its worker is ended after all.
   */
  private cancel(task: Task): void {
    const error = cancelledError();
    const queued = this.queue.indexOf(task);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      task.reject(error);
      this.discard(task);
      return;
    }
    const slot = this.slots.find((s) => s.task?.origin === task);
    if (!slot?.task) return;
    if (this.isLarge(task) || this.cancelGraceMs <= 0) {
      this.stop(slot, error);
      return;
    }
    const running = slot.task;
    running.cancelled = true;
    task.reject(error);
    // Its render, if any, stops now: the worker then finishes (or is ended after the grace) with nothing to wait for.
    this.killRenderer(slot);
    // A worker still loading gets its grace from when it is ready (onReady).
    if (slot.ready) {
      clearTimeout(running.timer);
      running.timer = this.grace(slot);
    }
  }

  /** The time a cancelled conversion may still take before its worker is ended: never past its time limit. */
  private grace(slot: Slot): NodeJS.Timeout {
    // Its time limit can end it no earlier than timeoutMs after it started (CPU time never runs ahead of the clock).
    const startedAt = slot.task?.startedAt;
    const left =
      startedAt === undefined
        ? this.cancelGraceMs
        : Math.min(this.cancelGraceMs, startedAt + (slot.task?.limitMs ?? this.timeoutMs) - performance.now());
    return setTimeout(() => this.stop(slot, cancelledError()), Math.max(0, left));
  }

  /**
   * Reads, checks and sanitises a template in a worker, under the same time and memory limits as a conversion, so a
   * hostile template (hundreds of thousands of styles) never holds the event loop. Rejects like `run`.
   */
  inspect(bytes: Uint8Array): Promise<TemplateInspection> {
    if (this.closed) return Promise.reject(new ConvertWorkerError('The conversion pool is closed.'));
    const full = this.full(false, 'jobs');
    if (full) return Promise.reject(full);
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'inspect', bytes, resolve, reject });
      this.dispatch();
    });
  }

  /** Starts every worker now instead of at the first conversions (the first ones then do not wait for a start). */
  warm(): void {
    while (!this.closed && this.count(false) < this.size) this.spawn(false);
  }

  /** Every worker forgets the versions of a template (replaced or deleted); their next job sends the bytes again. */
  forgetTemplate(id: string): void {
    for (const slot of this.slots) {
      const keys = slot.templates.filter((key) => key.startsWith(`${id}:`));
      if (keys.length === 0) continue;
      for (const key of keys) this.forget(slot, key);
      try {
        slot.worker.postMessage({ kind: 'forget', keys } satisfies ForgetMessage);
      } catch {
        // A worker that cannot be told is ending: its cache goes with it.
      }
    }
  }

  /** Template keys each worker holds, least recently used first (diagnostics and tests). */
  get templatesHeld(): string[][] {
    return this.slots.map((slot) => [...slot.templates]);
  }

  /** The worker threads running now (for diagnostics and tests). */
  get workers(): readonly Worker[] {
    return this.slots.map((slot) => slot.worker);
  }

  /** The worker threads running a conversion or an inspection now (for diagnostics and tests). */
  get busyWorkers(): readonly Worker[] {
    return this.slots.filter((slot) => slot.task).map((slot) => slot.worker);
  }

  /** Conversions running and waiting. */
  get load(): { running: number; queued: number } {
    return { running: this.busyWorkers.length, queued: this.queue.length };
  }

  /** Ends every worker; running and waiting conversions fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = new ConvertWorkerError('The server is shutting down.');
    for (const task of this.queue.splice(0)) {
      task.reject(error);
      this.discard(task);
    }
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      this.killRenderer(slot);
      this.finish(slot, error);
      clearTimeout(slot.idle);
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  /**
   * Starts waiting tasks in order on free workers of their kind: small conversions and template inspections on the
   * `size` workers, large conversions on up to `largeSlots` workers of their own (started when needed, at a lower CPU
   * priority). Each kind keeps its order; neither waits for the other.
   */
  private dispatch(): void {
    const blocked = { large: false, small: false };
    let index = 0;
    while (index < this.queue.length && !this.closed && !(blocked.large && blocked.small)) {
      const task = this.queue[index];
      if (!task) return;
      const large = this.isLarge(task);
      const slot = blocked[large ? 'large' : 'small'] ? undefined : this.freeSlot(large);
      if (!slot) {
        blocked[large ? 'large' : 'small'] = true;
        index += 1;
        continue;
      }
      this.queue.splice(index, 1);
      this.start(slot, task);
    }
  }

  /** A free worker for a task of this kind, started if there is room for one; else undefined. */
  private freeSlot(large: boolean): Slot | undefined {
    return this.idleSlot(large) ?? (this.canSpawn(large) ? this.spawn(large) : undefined);
  }

  /** Whether a task of this kind would start now. */
  private hasRoom(large: boolean): boolean {
    return this.idleSlot(large) !== undefined || this.canSpawn(large);
  }

  private idleSlot(large: boolean): Slot | undefined {
    return this.slots.find((s) => s.task === null && s.large === large);
  }

  /** Whether another worker of this kind may start: `size` for small conversions, `largeSlots` for large ones. */
  private canSpawn(large: boolean): boolean {
    return this.count(large) < (large ? this.largeSlots : this.size);
  }

  /**
   * The refusal of a task of this kind when it could not start now and its queue is full, else null. Each kind has
   * a queue of its own (small conversions and inspections `maxQueue`, large ones `maxLargeQueue`), so neither fills
   * the other's.
   */
  private full(large: boolean, what: string): ConvertBusyError | null {
    const waiting = this.queue.filter((task) => this.isLarge(task) === large).length;
    if (this.hasRoom(large) || waiting < (large ? this.maxLargeQueue : this.maxQueue)) return null;
    const workers = large
      ? busy(this.largeSlots, 'worker for large conversions', 'workers for large conversions')
      : busy(this.size, 'conversion worker', 'conversion workers');
    return new ConvertBusyError(`${workers} and ${String(waiting)} ${what} wait`);
  }

  private count(large: boolean): number {
    return this.slots.filter((s) => s.large === large).length;
  }

  private isLarge(task: Task): boolean {
    return task.large === true;
  }

  private spawn(large: boolean): Slot {
    const { port1, port2 } = new MessageChannel();
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const renders = this.renderLauncher ? { port: port2, flag: flag.buffer } : undefined;
    const worker = new Worker(this.entry, {
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb, maxYoungGenerationSizeMb: this.youngMb },
      name: large ? 'docwright-convert-large' : 'docwright-convert',
      // Large conversions' workers yield the cores to the others' (worker.ts); SVGs render through the pool.
      workerData: {
        nice: large ? LARGE_NICE : SMALL_NICE,
        warmUp: this.warmUp,
        ...(renders ? { renders } : {}),
      },
      transferList: renders ? [port2] : [],
    });
    worker.unref();
    port1.unref();
    let exited = (): void => undefined;
    const slot: Slot = {
      worker,
      large,
      ready: false,
      task: null,
      templates: [],
      error: null,
      exited: new Promise((resolve) => (exited = resolve)),
      ...(renders ? { renders: { port: port1, flag } } : {}),
    };
    port1.on('message', (request: RenderRequest) => this.onRender(slot, request));
    worker.on('message', (message: ResultMessage | InspectResultMessage | ReadyMessage) => {
      if ('ready' in message) this.onReady(slot, message.tid);
      else this.onMessage(slot, message);
    });
    worker.on('error', (error: Error) => {
      slot.error = error;
    });
    worker.on('exit', () => {
      exited();
      this.killRenderer(slot);
      port1.close();
      // Ended in the middle of storing an output (a limit, a cancel, a move): its temporary file goes.
      if (slot.writing !== undefined) removeQuietly(slot.writing);
      this.onExit(slot);
    });
    this.slots.push(slot);
    this.counters.started += 1;
    // A worker started by warm() with nothing to do goes like any other; a job given to it now stops the timer.
    this.idleTimer(slot);
    return slot;
  }

  /** Gives SLOT the task as running job ID, with what is left of its time limit. */
  private assign(slot: Slot, task: Task, id: number): void {
    const limitMs = Math.max(1, this.timeoutMs - (task.spentMs ?? 0));
    slot.task = {
      ...task,
      id,
      limitMs,
      renderMs: 0,
      origin: task,
      ...this.timing(slot, this.firstCheck(task, limitMs)),
    };
  }

  private start(slot: Slot, task: Task): void {
    const id = this.nextId++;
    clearTimeout(slot.idle);
    if (task.kind === 'inspect') {
      this.assign(slot, task, id);
      slot.worker.ref();
      try {
        slot.worker.postMessage({ kind: 'inspect', id, bytes: task.bytes } satisfies InspectMessage);
      } catch (error) {
        this.finish(slot, error instanceof Error ? error : new Error(String(error)));
        this.dispatch();
      }
      return;
    }
    const { key, bytes } = task.job.template;
    const known = slot.templates.indexOf(key);
    if (known >= 0) slot.templates.splice(known, 1);
    slot.templates.push(key);
    const evict =
      slot.templates.length > this.templatesPerWorker
        ? slot.templates.splice(0, slot.templates.length - this.templatesPerWorker)
        : [];
    const message: JobMessage = {
      kind: 'convert',
      id,
      markdown: task.job.markdown,
      mapping: task.job.mapping,
      created: task.job.created,
      templateKey: key,
      evict,
      ...(known >= 0 || bytes === undefined ? {} : { templateBytes: bytes }),
      ...(task.job.images ? { images: task.job.images } : {}),
      ...(task.job.numberSections ? { numberSections: true } : {}),
      ...(task.job.dialect ? { dialect: task.job.dialect } : {}),
      ...(task.job.citations ? { citations: task.job.citations } : {}),
      ...(task.job.output !== undefined ? { output: task.job.output, outputTemp: tempPathFor(task.job.output) } : {}),
    };
    slot.writing = message.outputTemp;
    this.assign(slot, task, id);
    if (known < 0) this.counters.templatesSent += 1;
    slot.worker.ref();
    try {
      slot.worker.postMessage(message);
    } catch (error) {
      this.finish(slot, error instanceof Error ? error : new Error(String(error)));
      this.forget(slot, key);
      this.dispatch();
    }
  }

  /** A task's timer when it starts: its first check (`after`) from now on a ready worker, else the boot limit. */
  private timing(slot: Slot, after: number): { timer: NodeJS.Timeout; startedAt?: number; cpuAtStart?: number } {
    return slot.ready ? { timer: this.limit(slot, after), ...this.clockStart(slot) } : { timer: this.bootLimit(slot) };
  }

  /** When a task's time is first checked: at its limit, or for a small conversion that may move, at the budget. */
  private firstCheck(task: Task, limitMs: number): number {
    return this.mayMove(task, limitMs) ? this.smallBudgetMs : limitMs;
  }

  /** Whether a conversion or a template inspection on a small conversions' worker moves to a large one after smallBudgetMs. */
  private mayMove(task: Task, limitMs: number): boolean {
    return !task.large && limitMs > this.smallBudgetMs;
  }

  /** Where a task's time limit counts from: now, by the clock and by its worker's CPU time (where readable). */
  private clockStart(slot: Slot): { startedAt: number; cpuAtStart?: number } {
    const cpu = threadCpuMs(slot.tid);
    return { startedAt: performance.now(), ...(cpu === undefined ? {} : { cpuAtStart: cpu }) };
  }

  /**
   * The conversion's time limit: `timeoutMs` of its thread's CPU time where that can be read (Linux), so a
   * conversion slowed down by others on the cores (a large one's lower priority, other programs) is not stopped for
   * that; and never more than WALL_FACTOR times it by the clock. Where the CPU time cannot be read, by the clock.
   */
  private limit(slot: Slot, after: number): NodeJS.Timeout {
    return setTimeout(() => this.checkLimit(slot), after);
  }

  private checkLimit(slot: Slot): void {
    const task = slot.task;
    if (!task) return;
    const now = threadCpuMs(slot.tid);
    // The thread waits while its render child works: the child's CPU time is the conversion's too.
    const used =
      now === undefined || task.cpuAtStart === undefined
        ? undefined
        : now - task.cpuAtStart + task.renderMs + this.renderRunningMs(slot);
    const ran = performance.now() - (task.startedAt ?? 0);
    if (this.mayMove(task.origin, task.limitMs)) {
      // A small conversion past its budget (of CPU time; by the clock where that cannot be read) moves.
      const spent = used ?? ran;
      if (spent >= this.smallBudgetMs) {
        this.move(slot, spent);
        return;
      }
      if (ran < wallCapMs(this.smallBudgetMs)) {
        task.timer = this.limit(slot, Math.max(RECHECK_MS, this.smallBudgetMs - spent));
        return;
      }
      // Kept from the cores: its own limit decides, below.
    }
    const limitMs = task.limitMs;
    const wallCap = wallCapMs(limitMs);
    const left = used === undefined ? limitMs - ran : Math.min(limitMs - used, wallCap - ran);
    if (left > 0) {
      task.timer = this.limit(slot, Math.max(RECHECK_MS, left));
      return;
    }
    // Stopped by the clock with CPU time to spare: the cores were busy, not the document too complex.
    if (used !== undefined && used < limitMs) {
      this.stop(
        slot,
        new ConvertBusyError(`the cores were too busy to finish the conversion within ${wallCap / 1000} s`),
      );
      return;
    }
    this.stop(slot, new ConvertLimitError('time', `the conversion took longer than ${this.timeoutMs / 1000} s`));
  }

  /**
   * Moves a small conversion that has used its budget to the large conversions' workers: its worker is ended (and
   * replaced when needed), the conversion waits in the large ones' queue and starts again there with what is left of
   * its time limit. Refused as busy when that queue is full.
   */
  private move(slot: Slot, spent: number): void {
    const origin = slot.task?.origin;
    if (!origin) return;
    clearTimeout(slot.task?.timer);
    slot.task = null;
    this.end(slot);
    // The worker may have stored the output just before it was ended: the next run writes it again, and a conversion
    // that never gets that far removes it once this worker has exited.
    if (origin.kind === 'convert') origin.movedFrom = slot.exited;
    this.counters.moved += 1;
    const full = this.full(true, origin.kind === 'convert' ? 'large conversions' : 'large jobs');
    if (full) {
      origin.reject(full);
      this.discard(origin);
    } else {
      origin.large = true;
      origin.spentMs = spent;
      this.queue.push(origin);
    }
    this.dispatch();
  }

  /** A worker that does not load its code within a minute is broken: its conversion fails, the worker ends. */
  private bootLimit(slot: Slot): NodeJS.Timeout {
    return setTimeout(
      () => this.stop(slot, new ConvertWorkerError('a conversion worker did not start within 60 s')),
      60_000,
    );
  }

  private onReady(slot: Slot, tid: number | undefined): void {
    slot.ready = true;
    if (tid !== undefined) slot.tid = tid;
    const task = slot.task;
    if (!task) return;
    // The conversion sent before the worker was ready starts now: so does its time limit.
    clearTimeout(task.timer);
    Object.assign(task, this.clockStart(slot));
    task.timer = task.cancelled ? this.grace(slot) : this.limit(slot, this.firstCheck(task.origin, task.limitMs));
  }

  private onMessage(slot: Slot, message: ResultMessage | InspectResultMessage): void {
    // It answered: its temporary file is renamed or removed.
    slot.writing = undefined;
    const task = slot.task;
    if (!task || task.id !== message.id) return;
    if (message.ok) {
      if (task.kind === 'inspect' && 'inspected' in message) {
        this.finish(slot, null, {
          bytes: message.clean ?? task.bytes,
          warnings: message.warnings,
          styles: message.styles,
        });
      } else if (task.kind === 'convert' && !('inspected' in message)) {
        this.finish(slot, null, {
          docx: message.docx,
          warnings: message.warnings,
          warningDetails: message.warningDetails,
          stats: message.stats,
          ...(message.matched ? { matched: message.matched } : {}),
        });
      } else {
        this.finish(slot, new ConvertWorkerError('the worker answered a job of another kind'));
      }
    } else {
      // The worker forgot the template of a failed job (it may not have read); so does the mirror. A document it made
      // but could not store leaves the template read.
      if (task.kind === 'convert' && message.kind !== 'storage') this.forget(slot, task.job.template.key);
      if (message.kind === 'storage')
        this.finish(
          slot,
          new ConvertStorageError(`the document could not be stored: ${message.message}`, message.code),
        );
      else if (message.kind === 'input')
        this.finish(
          slot,
          new ConvertInputError((message.code ?? 'markdown_invalid') as ConvertInputError['code'], message.message),
        );
      else if (message.kind === 'too_complex')
        this.finish(
          slot,
          new ConvertLimitError(
            'engine',
            `the document is nested too deeply or is too large for the converter (${message.message})`,
          ),
        );
      else this.finish(slot, new ConvertWorkerError(`conversion failed in the worker: ${message.message}`));
    }
    this.dispatch();
  }

  /** The worker ended: by our terminate (already handled), by its heap limit, or by a crash. */
  private onExit(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    if (slot.task) {
      this.counters.replaced += 1;
      const error = slot.error;
      if (error?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        this.finish(
          slot,
          new ConvertLimitError('memory', `the conversion needed more than ${this.memoryMb} MB of memory`),
        );
      } else {
        this.finish(slot, new ConvertWorkerError(`the conversion worker stopped${error ? `: ${error.message}` : ''}`));
      }
    }
    this.dispatch();
  }

  /** Ends a worker whose conversion ran past a limit; its replacement starts when a job needs it. */
  private stop(slot: Slot, error: Error): void {
    this.end(slot);
    this.finish(slot, error);
    this.dispatch();
  }

  /** Ends a worker that was running something (a limit, a cancel, a move); another starts when a job needs one. */
  private end(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    this.counters.replaced += 1;
    // Its render child first: ending the thread cannot stop a child, nor a thread waiting for one.
    this.killRenderer(slot);
    void slot.worker.terminate();
  }

  /**
   * Runs a worker's SVG render in its warm child process (the native renderer's work has no bound a thread could
   * stop): killed past IMAGE_LIMITS.svgRenderMs of CPU time (by the clock where that cannot be read) or
   * svgRenderMemoryMb resident, or with its task (a time limit, a cancel, a move, the pool closing), its address
   * space bounded where the launcher can (prlimit). The answer wakes the worker (worker.ts).
   */
  private onRender(slot: Slot, request: RenderRequest): void {
    const renders = slot.renders;
    const launcher = this.renderLauncher;
    if (!renders || !launcher) return;
    const { port, flag } = renders;
    const taskId = slot.task?.id;
    let answered = false;
    const reply = (result: RenderResult): void => {
      if (answered) return;
      answered = true;
      try {
        port.postMessage(
          result.ok ? { ok: true, width: result.width, height: result.height, png: result.png } : result,
        );
      } catch {
        // The worker is gone.
      }
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
    };
    /** Whether the render's task still runs on this worker (nothing ended it while a child was prepared or started). */
    const wanted = (): boolean => {
      const task = slot.task;
      return task !== null && task.id === taskId && task.cancelled !== true && this.slots.includes(slot);
    };
    const run = async (): Promise<void> => {
      await launcher.prepare();
      if (!wanted()) {
        reply(RENDER_FAILED);
        return;
      }
      let renderer = slot.renderer;
      if (!renderer) {
        const started = await this.startRenderer(slot, launcher);
        // Ended while it started (a cancel, a limit, the worker or the pool): the new child goes too.
        if (!started || !wanted() || slot.renderer !== started) {
          if (started && slot.renderer === started) this.killRenderer(slot);
          else started?.child.kill();
          reply(RENDER_FAILED);
          return;
        }
        renderer = started;
      }
      this.render(slot, renderer, taskId, renderChildRequest(request), reply);
    };
    run().catch(() => reply(RENDER_FAILED));
  }

  /** Sends one render to the worker's child and watches it until it answers or is killed. */
  private render(
    slot: Slot,
    renderer: RenderChild,
    taskId: number | undefined,
    request: ReturnType<typeof renderChildRequest>,
    reply: (result: RenderResult) => void,
  ): void {
    const pid = renderer.child.pid;
    const cpuAtStart = pid === undefined ? undefined : cpuMsOf(`/proc/${String(pid)}/stat`);
    const render: Render = { startedAt: performance.now(), cpuAtStart, finish: () => undefined };
    // By the clock: 10 times the CPU limit where the CPU time is read, else the limit itself.
    const timer = setTimeout(
      () => this.killRenderer(slot),
      cpuAtStart === undefined ? IMAGE_LIMITS.svgRenderMs : IMAGE_LIMITS.svgRenderMs * 10,
    );
    const watch = setInterval(() => {
      const over =
        (cpuAtStart !== undefined && this.renderMs(render, pid) > IMAGE_LIMITS.svgRenderMs) ||
        (residentMb(pid) ?? 0) > IMAGE_LIMITS.svgRenderMemoryMb;
      if (over) this.killRenderer(slot);
    }, RSS_WATCH_MS).unref();
    render.finish = (result) => {
      clearTimeout(timer);
      clearInterval(watch);
      if (renderer.current === render) renderer.current = undefined;
      const task = slot.task;
      if (task && task.id === taskId) task.renderMs += result.cpuMs ?? this.renderMs(render, pid);
      // A child that kept much memory after its render, or used half its life's CPU time, is replaced.
      const used = pid === undefined ? undefined : cpuMsOf(`/proc/${String(pid)}/stat`);
      const spent = (residentMb(pid) ?? 0) > IMAGE_LIMITS.svgRenderMemoryMb / 4 || (used ?? 0) > WARM_CHILD_CPU_MS / 2;
      if (slot.renderer === renderer && spent) this.killRenderer(slot);
      reply(result);
    };
    renderer.current = render;
    renderer.child.send(request);
  }

  /**
   * Starts a worker's warm render child through the launcher, at the worker's CPU priority; undefined when it could
   * not start (the render fails as too complex, the next one tries again).
   */
  private async startRenderer(slot: Slot, launcher: RenderChildLauncher): Promise<RenderChild | undefined> {
    let child: RenderChildProcess;
    try {
      child = await launcher.start();
    } catch {
      return undefined;
    }
    const renderer: RenderChild = { child };
    slot.renderer = renderer;
    if (process.platform === 'linux' && child.pid !== undefined) {
      try {
        // The worker's priority (a thread's nice value is its own; the child would get the event loop's).
        setPriority(child.pid, slot.large ? LARGE_NICE : SMALL_NICE);
      } catch {
        // Not permitted: the child runs at the server's priority.
      }
    }
    child.onMessage((answer) => {
      // A fallback is at most 2.5 megapixels: more than an uncompressed one is not an answer of ours.
      if (answer.byteLength > MAX_ANSWER_BYTES) {
        if (slot.renderer === renderer) this.killRenderer(slot);
        else child.kill();
        return;
      }
      renderer.current?.finish(renderResult({ stdout: answer, killed: false, status: 0 }));
    });
    child.onExit(() => {
      if (slot.renderer === renderer) slot.renderer = undefined;
      renderer.current?.finish(RENDER_FAILED);
    });
    return renderer;
  }

  /** CPU time a render has used so far (ms): its child's own on Linux, elsewhere the time since it started. */
  private renderMs(render: Render, pid: number | undefined): number {
    const cpu = pid === undefined ? undefined : cpuMsOf(`/proc/${String(pid)}/stat`);
    return cpu !== undefined && render.cpuAtStart !== undefined
      ? cpu - render.cpuAtStart
      : performance.now() - render.startedAt;
  }

  /** CPU time the worker's running render has used (ms), for its conversion's time limit. */
  private renderRunningMs(slot: Slot): number {
    const current = slot.renderer?.current;
    return current ? this.renderMs(current, slot.renderer?.child.pid) : 0;
  }

  /** Kills the worker's render child, if any, and wakes the worker with a failed render. */
  private killRenderer(slot: Slot): void {
    const renderer = slot.renderer;
    if (!renderer) return;
    slot.renderer = undefined;
    renderer.child.kill();
    renderer.current?.finish(RENDER_FAILED);
  }

  /**
   * Removes the output of a conversion that does not reach its caller, once no worker may still be writing it: `after`
   * (the exit of the worker being ended that ran it) and, when it was moved, the exit of its first worker.
   */
  private discard(task: Task, after?: Promise<unknown>): void {
    if (task.kind !== 'convert' || task.job.output === undefined) return;
    const output = task.job.output;
    const writers = [after, task.movedFrom].filter((exit) => exit !== undefined);
    if (writers.length > 0) void Promise.all(writers).then(() => removeQuietly(output));
    else removeQuietly(output);
  }

  /** Settles the slot's task, if any, and marks the slot free. */
  private finish(slot: Slot, error: Error | null, result?: PoolResult | TemplateInspection): void {
    const task = slot.task;
    if (!task) return;
    slot.task = null;
    clearTimeout(task.timer);
    slot.worker.unref();
    // A worker still in the pool (not ended by a limit) goes when it has had nothing to do for idleMs.
    if (this.slots.includes(slot)) this.idleTimer(slot);
    // A conversion that does not reach its caller leaves no file: removed now when its worker answered, else once the
    // worker being ended has stopped (it may be in the middle of writing it).
    if (error || task.cancelled) this.discard(task.origin, this.slots.includes(slot) ? undefined : slot.exited);
    // A cancelled conversion's caller has had its answer; what the worker sends after is dropped.
    if (task.cancelled) return;
    if (error) task.reject(error);
    else if (task.kind === 'inspect' && result && 'styles' in result) task.resolve(result);
    else if (task.kind === 'convert' && result && 'docx' in result) task.resolve(result);
  }

  /** Ends SLOT's worker once it has had nothing to do for idleMs (a job given to it before then stops the timer). */
  private idleTimer(slot: Slot): void {
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => this.retire(slot), this.idleMs).unref();
  }

  /** Ends a worker that has had nothing to do, and its render child (another starts when a job comes). */
  private retire(slot: Slot): void {
    if (slot.task || this.closed) return;
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    this.killRenderer(slot);
    void slot.worker.terminate();
  }

  private forget(slot: Slot, key: string): void {
    const index = slot.templates.indexOf(key);
    if (index >= 0) slot.templates.splice(index, 1);
  }
}

/** How deep a caller's mapping may nest (a mapping's rules are objects of strings, 3 or 4 levels deep). */
const MAX_MAPPING_DEPTH = 64;

/** Whether `value` nests objects or arrays more than `limit` levels deep, walked without recursion. */
export function nestsDeeper(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [item, depth] = top;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
