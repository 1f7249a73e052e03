// `docwright convert`'s side of the conversion daemon (docs/cli.md, "The conversion daemon"): hands a conversion to
// the warm daemon of this build when it runs, else starts one for the next conversions and lets the caller convert
// in its own process. Loads no engine: a conversion through the daemon costs this process its start and the I/O.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConversionStats } from '../convert/compile/stats.ts';
import { daemonPaths, type DaemonPaths } from './paths.ts';
import { encodeFrame, readFrame } from './protocol.ts';
import { ANSWER_LIMITS, MAX_MARKDOWN_BYTES, PROTOCOL_VERSION } from './limits.ts';

export interface DaemonRequest {
  markdown: string;
  /** The template's bytes; the built-in template when absent. */
  template?: Uint8Array;
  /** The mapping as read from its file (rules, or a mapping holding rules); the built-in mapping when absent. */
  mapping?: unknown;
  /** The folder images are read from (docs/images.md); absent: placeholders. */
  folder?: string;
  /** The creation time written into the document, ms since the epoch. */
  created: number;
}

export interface DaemonAnswer {
  docx: Uint8Array;
  warnings: string[];
  stats: ConversionStats;
}

/** How long to wait for the daemon to accept a connection before converting here. */
const CONNECT_MS = 1_000;

/** The launcher that runs the daemon: bin/docwright.js, two folders up from the sources or the bundle's chunk. */
function launcher(): string | undefined {
  for (const candidate of ['../../bin/docwright.js', '../bin/docwright.js']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** Whether a process of PID runs (the daemon's lock names it). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Starts the daemon in the background unless one holds the lock (starting or running). */
export function startDaemon(paths: DaemonPaths): boolean {
  try {
    const pid = Number(readFileSync(paths.lock, 'utf8'));
    if (Number.isInteger(pid) && pid > 0 && running(pid)) return false;
  } catch {
    // no lock: nobody runs
  }
  const bin = launcher();
  if (!bin) return false;
  try {
    const child = spawn(process.execPath, [bin, 'daemon', 'run'], {
      detached: true,
      stdio: 'ignore',
      // Not the caller's folder: the daemon outlives it and should not keep it busy.
      cwd: paths.dir,
      env: { ...process.env },
    });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/**
 * Converts through the daemon of this build: the answer, or undefined when the caller should convert in its own
 * process (no daemon yet: one is started for the next conversions; a document past the daemon's limits; any
 * failure, the conversion's own errors included, which the caller then reports as it always did).
 */
export async function convertWithDaemon(
  request: DaemonRequest,
  env: NodeJS.ProcessEnv = process.env,
): Promise<DaemonAnswer | undefined> {
  const paths = daemonPaths(env);
  if (!paths) return undefined;
  const markdown = Buffer.from(request.markdown, 'utf8');
  if (markdown.byteLength > MAX_MARKDOWN_BYTES) return undefined;
  let token: string;
  try {
    token = readFileSync(paths.token, 'utf8').trim();
  } catch {
    startDaemon(paths);
    return undefined;
  }
  const header = {
    v: PROTOCOL_VERSION,
    op: 'convert',
    token,
    created: request.created,
    hasTemplate: request.template !== undefined,
    mapping: request.mapping === undefined ? null : request.mapping,
    folder: request.folder ?? null,
  };
  const payloads = request.template ? [markdown, request.template] : [markdown];
  const frame = await exchange(paths, encodeFrame(header, payloads));
  if (!frame) return undefined;
  const answer = frame.header;
  if (answer.ok !== true || frame.payloads.length !== 1 || !frame.payloads[0]) return undefined;
  if (!Array.isArray(answer.warnings) || typeof answer.stats !== 'object' || answer.stats === null) return undefined;
  return {
    docx: new Uint8Array(frame.payloads[0].buffer, frame.payloads[0].byteOffset, frame.payloads[0].byteLength),
    warnings: answer.warnings.map(String),
    stats: answer.stats as ConversionStats,
  };
}

/** Sends one request frame and reads the answer; undefined when there is no daemon (one is started) or it fails. */
export function exchange(
  paths: DaemonPaths,
  request: Buffer[],
  { start = true }: { start?: boolean } = {},
): Promise<{ header: Record<string, unknown>; payloads: Buffer[] } | undefined> {
  return new Promise((resolve) => {
    const socket = connect(paths.socket);
    const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), CONNECT_MS);
    let connected = false;
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (start && !connected && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')) startDaemon(paths);
      resolve(undefined);
    });
    socket.once('connect', () => {
      connected = true;
      clearTimeout(timer);
      readFrame(socket, ANSWER_LIMITS).then(
        (frame) => {
          socket.destroy();
          resolve(frame);
        },
        () => {
          socket.destroy();
          resolve(undefined);
        },
      );
      socket.cork();
      for (const part of request) socket.write(part);
      socket.uncork();
    });
  });
}

/** Sends OP to the daemon whose files PATHS name; its answer, or undefined when none answers. */
async function ask(op: 'status' | 'stop', paths: DaemonPaths): Promise<Record<string, unknown> | undefined> {
  let token: string;
  try {
    token = readFileSync(paths.token, 'utf8').trim();
  } catch {
    return undefined;
  }
  const answer = await exchange(paths, encodeFrame({ v: PROTOCOL_VERSION, op, token }), { start: false });
  return answer?.header.ok === true ? answer.header : undefined;
}

/** The daemon of this build: its pid, the conversions it has served and its time up; undefined when none runs. */
export function daemonStatus(env: NodeJS.ProcessEnv = process.env): Promise<Record<string, unknown> | undefined> {
  const paths = daemonPaths(env);
  return paths ? ask('status', paths) : Promise.resolve(undefined);
}

/** Stops every daemon of this user (this build's and those of earlier builds still running); their pids. */
export async function stopDaemons(env: NodeJS.ProcessEnv = process.env): Promise<number[]> {
  const paths = daemonPaths(env);
  if (!paths) return [];
  let names: string[];
  try {
    names = readdirSync(paths.dir).filter((name) => /^[0-9a-f]{16}\.token$/.test(name));
  } catch {
    return [];
  }
  const stopped: number[] = [];
  for (const name of names) {
    const base = join(paths.dir, name.slice(0, -'.token'.length));
    const answer = await ask('stop', {
      dir: paths.dir,
      socket: `${base}.sock`,
      token: `${base}.token`,
      lock: `${base}.lock`,
    });
    if (answer) stopped.push(Number(answer.pid));
  }
  return stopped;
}
