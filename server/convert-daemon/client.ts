// `docwright convert`'s side of the conversion daemon (docs/cli.md, "The conversion daemon"): hands a conversion to
// the warm daemon of this build when it runs, else starts one for the next conversions and lets the caller convert
// in its own process. Loads no engine: a conversion through the daemon costs this process its start and the I/O.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STAT_KEYS, type ConversionStats } from '../convert/parse/stats.ts';
import { daemonPaths, daemonRunning, isOwnEntry, type DaemonPaths } from './paths.ts';
import { encodeFrame, readFrame, type Frame } from './protocol.ts';
import { ANSWER_LIMITS, ANSWER_WAIT_MS, ASK_WAIT_MS, MAX_MARKDOWN_BYTES, PROTOCOL_VERSION } from './limits.ts';

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

/** The daemon stopped the conversion at a limit (the same as the command line's own): the caller reports it. */
export interface DaemonRefusal {
  limit: 'time' | 'memory' | 'engine';
  message: string;
}

const LIMITS = new Set<unknown>(['time', 'memory', 'engine']);

/**
 * The launcher that runs the daemon: the bin/docwright.js of the package this module belongs to. The package is the
 * nearest folder above this module that holds it in its dist/ (the bundle: dist/cli.js or dist/chunks/) or server/
 * (the sources), and whose package.json is Docwright's: never a folder further up, where someone else may have put a
 * package.json and a bin/ of their own (a tarball unpacked in /tmp).
 */
export function launcher(): string | undefined {
  const self = fileURLToPath(import.meta.url);
  for (const up of ['..', '../..']) {
    const root = fileURLToPath(new URL(`${up}/`, import.meta.url));
    if (![join(root, 'dist'), join(root, 'server')].some((dir) => self.startsWith(`${dir}${sep}`))) continue;
    try {
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: unknown };
      const bin = join(root, 'bin', 'docwright.js');
      return manifest.name === 'docwright' && existsSync(bin) ? bin : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Starts the daemon in the background unless one holds the lock (starting or running). */
export function startDaemon(paths: DaemonPaths): boolean {
  try {
    const pid = Number(readFileSync(paths.lock, 'utf8'));
    if (daemonRunning(pid)) return false;
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
 * Converts through the daemon of this build: the answer; a refusal when the conversion ran into a time or memory
 * limit (the command line's own are the same: converting again would only fail again, later); or undefined when
 * the caller should convert in its own process (no daemon yet: one is started for the next conversions; markdown
 * past the daemon's size; any other failure, the conversion's own errors included, which the caller then reports
 * as it always did).
 */
export async function convertWithDaemon(
  request: DaemonRequest,
  env: NodeJS.ProcessEnv = process.env,
): Promise<DaemonAnswer | DaemonRefusal | undefined> {
  const paths = daemonPaths(env);
  if (!paths) return undefined;
  const markdown = Buffer.from(request.markdown, 'utf8');
  if (markdown.byteLength > MAX_MARKDOWN_BYTES) return undefined;
  const token = readToken(paths);
  if (token === undefined) {
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
  let frame: Frame | undefined;
  try {
    frame = await exchange(paths, encodeFrame(header, payloads), { waitMs: ANSWER_WAIT_MS });
  } catch {
    // e.g. a mapping too deeply nested to be written as JSON: the command line reports it itself
    return undefined;
  }
  return frame ? answerOf(frame) : undefined;
}

/** The daemon's answer when it is a whole, well-formed one: a zip package, the counts, the warnings as text. */
function answerOf(frame: Frame): DaemonAnswer | DaemonRefusal | undefined {
  const { header, payloads } = frame;
  if (header.ok === false && header.code === 'ConvertLimitError' && LIMITS.has(header.limit))
    return typeof header.message === 'string'
      ? { limit: header.limit as DaemonRefusal['limit'], message: header.message }
      : undefined;
  const docx = payloads[0];
  if (header.ok !== true || payloads.length !== 1 || !docx || docx.byteLength < 22) return undefined;
  if (docx.readUInt32LE(0) !== 0x04034b50) return undefined;
  const { warnings, stats } = header;
  if (!Array.isArray(warnings) || !warnings.every((w): w is string => typeof w === 'string')) return undefined;
  if (typeof stats !== 'object' || stats === null) return undefined;
  const counts = stats as Record<string, unknown>;
  if (!STAT_KEYS.every((key) => Number.isSafeInteger(counts[key]) && (counts[key] as number) >= 0)) return undefined;
  return {
    docx: new Uint8Array(docx.buffer, docx.byteOffset, docx.byteLength),
    warnings,
    stats: stats as ConversionStats,
  };
}

/** The token the daemon wrote, from a regular file of this user's; undefined when there is none. */
function readToken(paths: DaemonPaths): string | undefined {
  if (!isOwnEntry(paths.token, 'file')) return undefined;
  try {
    const token = readFileSync(paths.token, 'utf8').trim();
    return /^[0-9a-f]{64}$/.test(token) ? token : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends one request frame and reads the answer within WAIT_MS; undefined when there is no daemon (one is started
 * unless START is false), its socket is not what the daemon makes, or it fails or does not answer in time.
 */
export function exchange(
  paths: DaemonPaths,
  request: Buffer[],
  { start = true, waitMs = ASK_WAIT_MS }: { start?: boolean; waitMs?: number } = {},
): Promise<Frame | undefined> {
  if (!isOwnEntry(paths.socket, 'socket')) {
    if (start) startDaemon(paths);
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    const socket = connect(paths.socket);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, waitMs);
    let connected = false;
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (start && !connected && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')) startDaemon(paths);
      resolve(undefined);
    });
    socket.once('connect', () => {
      connected = true;
      readFrame(socket, ANSWER_LIMITS).then(
        (frame) => {
          clearTimeout(timer);
          socket.destroy();
          resolve(frame);
        },
        () => {
          clearTimeout(timer);
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
  const token = readToken(paths);
  if (token === undefined) return undefined;
  const answer = await exchange(paths, encodeFrame({ v: PROTOCOL_VERSION, op, token }), { start: false });
  return answer?.header.ok === true ? answer.header : undefined;
}

/** The daemon of this build: its pid, the conversions it has served and its time up; undefined when none runs. */
export function daemonStatus(env: NodeJS.ProcessEnv = process.env): Promise<Record<string, unknown> | undefined> {
  const paths = daemonPaths(env, true);
  return paths ? ask('status', paths) : Promise.resolve(undefined);
}

/** Stops every daemon in the folder (this build's and those of earlier builds still running); their pids. */
export async function stopDaemons(env: NodeJS.ProcessEnv = process.env): Promise<number[]> {
  const paths = daemonPaths(env, true);
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
