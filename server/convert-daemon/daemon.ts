// The conversion daemon (`docwright daemon run`, started in the background by `docwright convert`; docs/cli.md, "The
// conversion daemon"). A one-shot command line spends most of a conversion warming up V8 (its first conversion of a
// 120 KB document takes about twice as long as its fifth), so the daemon keeps warm conversion workers for the
// command lines of this user and this build, on a Unix socket in a private folder, answering only clients that send
// the token it wrote there. It ends after a quarter of an hour without a request (DOCWRIGHT_DAEMON_IDLE_MS), on
// `docwright daemon stop` or a signal, taking its socket, token and lock with it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { isAbsolute } from 'node:path';
import { defaultTemplate, mappingRules } from '../convert/index.ts';
import { ConvertPool } from '../convert-pool/pool.ts';
import { daemonPaths, type DaemonPaths } from './paths.ts';
import { readFrame, writeFrame, type Frame } from './protocol.ts';
import { PROTOCOL_VERSION, REQUEST_LIMITS } from './limits.ts';

export class DaemonError extends Error {
  override name = 'DaemonError';
}

/** A request refused from its header: answered with CODE, its payload never read. */
class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Quarter of an hour without a request: the daemon ends. */
const IDLE_MS = 15 * 60 * 1000;
/** The longest conversion, in ms of its thread's CPU: the command line converts what the daemon gives up on. */
const TIMEOUT_MS = 120_000;
/** Connections at once (one converts; the others are refused busy, or wait to be read). */
const MAX_CONNECTIONS = 8;
/** Warm-up conversions per worker when the daemon starts. */
const WARM_UP_ROUNDS = 4;
/** Young generation of a daemon worker's heap, in MB. */
const YOUNG_MB = 128;

function idleMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.DOCWRIGHT_DAEMON_IDLE_MS);
  return Number.isInteger(value) && value > 0 ? value : IDLE_MS;
}

function remove(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the build's lock: false when another daemon of this build holds it. */
function lock(paths: DaemonPaths): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(paths.lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(paths.lock, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) return false;
      remove(paths.lock);
    }
  }
  return false;
}

/** The same digest length whatever was sent, so the comparison takes the same time. */
const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** A document touching what conversions use (lists, a table, code, notes, links), to warm the workers up on. */
export function warmUpMarkdown(): string {
  const section = (n: number) =>
    [
      `## Section ${n}`,
      '',
      `Some *emphasis*, **strong**, \`code\`, a [link](https://example.com/${n}) and a note.[^n${n}]`,
      '',
      `- item one with _text_\n- item two\n  1. nested\n  2. nested [ref][r${n}]\n- [ ] a task`,
      '',
      '| a | b | c |\n|---|:-:|--:|\n| 1 | two | 3 |\n| ~~x~~ | y | z |',
      '',
      '```js\nconst x = 1;\n```',
      '',
      `> A quote\n> over two lines.`,
      '',
      `[^n${n}]: The note.`,
      `[r${n}]: https://example.org/${n}`,
      '',
    ].join('\n');
  return `---\ntitle: Warm-up\n---\n\n# Warm-up\n\n${Array.from({ length: 240 }, (_, i) => section(i)).join('\n')}`;
}

export interface RunningDaemon {
  server: Server;
  pool: ConvertPool;
  /** Stops it: no new connection, its files removed, the worker ended once the conversion it runs is answered. */
  stop: () => Promise<void>;
  /** Settles once it has stopped (idle, `docwright daemon stop`, a signal). */
  closed: Promise<void>;
}

/** Runs the daemon of this build; undefined when another one already does. */
export async function runDaemon(env: NodeJS.ProcessEnv = process.env): Promise<RunningDaemon | undefined> {
  const paths = daemonPaths(env);
  if (!paths) throw new DaemonError('no private folder for the conversion daemon (or DOCWRIGHT_DAEMON is off)');
  if (!lock(paths)) return undefined;
  const token = randomBytes(32).toString('hex');
  const expected = digest(token);
  const builtIn = { key: 'builtin', bytes: defaultTemplate() };
  const pool = new ConvertPool({
    // One worker (about 330 MB with its young generation, below) converting one document at a time; a command line
    // that finds it busy converts in its own process, as it would without a daemon (maxQueue 0: refused at once).
    size: 1,
    maxQueue: 0,
    timeoutMs: TIMEOUT_MS,
    // A command line's document of any length runs on that warm worker, and none is moved off it.
    largeJobChars: Number.MAX_SAFE_INTEGER,
    smallBudgetMs: TIMEOUT_MS,
    // A large young generation: a 120 KB conversion's objects die in it instead of being copied and promoted (with
    // the process's --no-allocation-site-pretenuring, bin/server-flags.mjs): 120 KB through the daemon 373-375 ms
    // with 64 or 96 MB (the pool's default), 262-267 ms with 128 MB, 242-258 ms with 256 MB for 100 MB more
    // (docs/performance.md, "The conversion daemon").
    youngMb: YOUNG_MB,
  });
  const started = Date.now();
  let served = 0;
  let active = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;
  let markClosed = (): void => undefined;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      clearTimeout(idleTimer);
      remove(paths.token);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      remove(paths.socket);
      try {
        if (Number(readFileSync(paths.lock, 'utf8')) === process.pid) remove(paths.lock);
      } catch {
        // gone
      }
      await pool.close();
      markClosed();
    })();
    return stopping;
  };
  const idle = (): void => {
    clearTimeout(idleTimer);
    if (active === 0) idleTimer = setTimeout(() => void stop(), idleMs(env)).unref();
  };

  const convert = async (socket: Socket, frame: Frame): Promise<void> => {
    const { header, payloads } = frame;
    const markdown = payloads[0];
    const hasTemplate = header.hasTemplate === true;
    const created = header.created;
    const folder = header.folder;
    if (
      !markdown ||
      payloads.length !== (hasTemplate ? 2 : 1) ||
      typeof created !== 'number' ||
      !Number.isFinite(created) ||
      !(folder === null || (typeof folder === 'string' && isAbsolute(folder) && !folder.includes('\0')))
    ) {
      writeFrame(socket, { ok: false, code: 'bad_request', message: 'malformed conversion request' });
      return;
    }
    const templateBytes = hasTemplate ? payloads[1] : undefined;
    const template = templateBytes
      ? { key: createHash('sha256').update(templateBytes).digest('hex'), bytes: new Uint8Array(templateBytes) }
      : builtIn;
    const cancel = new AbortController();
    const onClose = (): void => cancel.abort();
    socket.once('close', onClose);
    try {
      const rules = mappingRules(header.mapping === null ? undefined : header.mapping);
      const result = await pool.run({
        markdown: markdown.toString('utf8'),
        mapping: rules,
        created: new Date(created),
        template,
        ...(typeof folder === 'string' ? { images: { folder } } : {}),
        signal: cancel.signal,
      });
      served += 1;
      writeFrame(socket, { ok: true, warnings: result.warnings, stats: result.stats }, [result.docx]);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      writeFrame(socket, { ok: false, code: e.name, message: e.message });
    } finally {
      socket.off('close', onClose);
    }
  };

  const handle = async (socket: Socket): Promise<void> => {
    socket.on('error', () => undefined);
    active += 1;
    clearTimeout(idleTimer);
    try {
      // The token and the version are checked from the header, before any payload is read.
      const frame = await readFrame(socket, REQUEST_LIMITS, (header) => {
        const sent = typeof header.token === 'string' ? header.token : '';
        if (!timingSafeEqual(digest(sent), expected)) return new Refusal('unauthorized', 'wrong token');
        if (header.v !== PROTOCOL_VERSION) return new Refusal('bad_request', 'unknown protocol version');
        return undefined;
      }).catch((error: unknown) => {
        if (error instanceof Refusal) writeFrame(socket, { ok: false, code: error.code, message: error.message });
        else socket.destroy();
        return undefined;
      });
      if (!frame) return;
      if (frame.header.op === 'status') {
        writeFrame(socket, { ok: true, pid: process.pid, served, uptime_ms: Date.now() - started });
        return;
      }
      if (frame.header.op === 'stop') {
        writeFrame(socket, { ok: true, pid: process.pid });
        void stop();
        return;
      }
      if (frame.header.op === 'convert') {
        await convert(socket, frame);
        return;
      }
      writeFrame(socket, { ok: false, code: 'bad_request', message: 'unknown operation' });
    } catch {
      socket.destroy();
    } finally {
      active -= 1;
      idle();
    }
  };

  const server = createServer((socket) => void handle(socket));
  // Each connection may hold a request of up to REQUEST_LIMITS while it is read.
  server.maxConnections = MAX_CONNECTIONS;
  remove(paths.socket);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(paths.socket, () => resolve());
    });
    chmodSync(paths.socket, 0o600);
    pool.warm();
    // Warm-up conversions before the token is written: the first clients find a warm daemon (or none yet). The
    // worker's code reaches its fast tiers only after many calls: four conversions of 85 KB (about 2 s of CPU, once)
    // take a 120 KB conversion from ~480 ms on a fresh daemon to ~300 ms.
    const warmUp = warmUpMarkdown();
    const rules = mappingRules(undefined);
    for (let round = 0; round < WARM_UP_ROUNDS; round++)
      await pool
        .run({ markdown: warmUp, mapping: rules, created: new Date(0), template: builtIn })
        .catch(() => undefined);
    const temporary = `${paths.token}.${process.pid}`;
    writeFileSync(temporary, `${token}\n`, { mode: 0o600 });
    renameSync(temporary, paths.token);
  } catch (error) {
    await stop();
    throw error;
  }
  idle();
  return { server, pool, stop, closed };
}
