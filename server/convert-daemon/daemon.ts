// The conversion daemon (`docwright daemon run`, started in the background by `docwright convert`; docs/cli.md, "The
// conversion daemon"). A one-shot command line spends most of a conversion warming up V8 (its first conversion of a
// 120 KB document takes about twice as long as its fifth), so the daemon keeps warm conversion workers for the
// command lines of this user and this build, on a Unix socket in a private folder, answering only clients that send
// the token it wrote there. It ends after a quarter of an hour without a request (DOCWRIGHT_DAEMON_IDLE_MS), on
// `docwright daemon stop` or a signal, taking its socket, token and lock with it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, linkSync, lstatSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { isAbsolute } from 'node:path';
import { defaultTemplate, mappingRules } from '../convert/index.ts';
import { ConvertLimitError, ConvertPool } from '../convert-pool/pool.ts';
import { daemonPaths, daemonRunning, isSafeDir, type DaemonPaths } from './paths.ts';
import { readFrame, writeFrame, type Frame } from './protocol.ts';
import { PROTOCOL_VERSION, REQUEST_DEADLINE_MS, REQUEST_LIMITS } from './limits.ts';

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
/** How long an answered connection may stay open before it is closed from this side. */
const LINGER_MS = 5_000;
/** Connections at once (one converts; the others are refused busy, or wait to be read). */
const MAX_CONNECTIONS = 8;
/** Warm-up conversions per worker when the daemon starts. */
const WARM_UP_ROUNDS = 4;
/** Young generation of a daemon worker's heap, in MB. */
const YOUNG_MB = 128;

function idleMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.DOCWRIGHT_DAEMON_IDLE_MS);
  // A timer's longest delay is 2^31 - 1 ms (about 24 days).
  return Number.isInteger(value) && value > 0 ? Math.min(value, 2 ** 31 - 1) : IDLE_MS;
}

function remove(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * Takes the build's lock: the pid written to a file of its own, then linked to the lock's name (a link is made
 * whole or not at all: nobody reads a half-written lock). A lock whose daemon is gone is taken over by renaming it to
 * a name of this process's first (only one process can), then checking it was the dead one's. False when another
 * daemon of this build holds it.
 */
function lock(paths: DaemonPaths): boolean {
  const mine = `${paths.lock}.${String(process.pid)}`;
  remove(mine);
  writeFileSync(mine, String(process.pid), { flag: 'wx', mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(mine, paths.lock);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number(readFileSync(paths.lock, 'utf8'));
      if (daemonRunning(holder)) return false;
      const stale = `${paths.lock}.stale.${String(process.pid)}`;
      try {
        renameSync(paths.lock, stale);
      } catch {
        continue;
      }
      // Another starter may have put its own lock there between the read and the rename: give it back.
      if (Number(readFileSync(stale, 'utf8')) !== holder) {
        try {
          linkSync(stale, paths.lock);
        } catch {
          // a third took it meanwhile
        }
        remove(stale);
        return false;
      }
      remove(stale);
    }
    return false;
  } finally {
    remove(mine);
  }
}

/** Whether the lock still names this process. */
function holdsLock(paths: DaemonPaths): boolean {
  try {
    return Number(readFileSync(paths.lock, 'utf8')) === process.pid;
  } catch {
    return false;
  }
}

/** The inode of PATH, or undefined. */
function inode(path: string): number | undefined {
  try {
    return lstatSync(path).ino;
  } catch {
    return undefined;
  }
}

/** Removes PATH only while it is still the entry of inode INO (what this daemon made, not another's). */
function removeOwn(path: string, ino: number | undefined): void {
  if (ino !== undefined && inode(path) === ino) remove(path);
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
  let pool: ConvertPool;
  try {
    pool = new ConvertPool({
      // One worker (the daemon holds about 380 MB with its young generation, below) converting one document at a time; a command line
      // that finds it busy converts in its own process, as it would without a daemon (maxQueue 0: refused at once).
      size: 1,
      maxQueue: 0,
      // The server's time and memory limits (its environment's, else 30 s and 1024 MB), as the command line's own:
      // a document either converts the same in both or is refused the same (server/cli/convert-bounded.ts).
      // A command line's document of any length runs on that warm worker, and none is moved off it.
      largeJobChars: Number.MAX_SAFE_INTEGER,
      smallBudgetMs: Number.MAX_SAFE_INTEGER,
      // A large young generation: a 120 KB conversion's objects die in it instead of being copied and promoted (with
      // the process's --no-allocation-site-pretenuring, bin/server-flags.mjs): 120 KB through the daemon 373-375 ms
      // with 64 or 96 MB (the pool's default), 262-267 ms with 128 MB, 242-258 ms with 256 MB for 100 MB more
      // (docs/performance.md, "The conversion daemon").
      youngMb: YOUNG_MB,
    });
  } catch (error) {
    // e.g. a DOCWRIGHT_CONVERT_* setting that is not a number: no daemon, and no lock left behind
    remove(paths.lock);
    throw error;
  }
  const started = Date.now();
  let served = 0;
  let warming = true;
  let active = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;
  let markClosed = (): void => undefined;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));

  let socketIno: number | undefined;
  let tokenIno: number | undefined;
  const sockets = new Set<Socket>();
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      clearTimeout(idleTimer);
      removeOwn(paths.token, tokenIno);
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      // What is being converted is cancelled (its client converts in its own process); nothing else is waited for.
      for (const socket of sockets) socket.destroy();
      await closing;
      removeOwn(paths.socket, socketIno);
      if (holdsLock(paths)) remove(paths.lock);
      await pool.close();
      markClosed();
    })();
    return stopping;
  };
  const idle = (): void => {
    clearTimeout(idleTimer);
    if (active === 0) idleTimer = setTimeout(() => void stop(), idleMs(env)).unref();
  };

  /** Answers and closes: the client has LINGER_MS to read it all before the connection is closed from here. */
  const answer = (socket: Socket, header: Record<string, unknown>, payloads: readonly Uint8Array[] = []): void => {
    writeFrame(socket, header, payloads);
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };

  const convert = async (socket: Socket, frame: Frame): Promise<void> => {
    // Only conversions keep the daemon from ending when idle (not `daemon status`).
    active += 1;
    clearTimeout(idleTimer);
    try {
      await convertOne(socket, frame);
    } finally {
      active -= 1;
      idle();
    }
  };

  const convertOne = async (socket: Socket, frame: Frame): Promise<void> => {
    const { header, payloads } = frame;
    const markdown = payloads[0];
    const hasTemplate = header.hasTemplate === true;
    const created = header.created;
    const folder = header.folder;
    if (
      !markdown ||
      payloads.length !== (hasTemplate ? 2 : 1) ||
      typeof created !== 'number' ||
      !Number.isFinite(new Date(created).getTime()) ||
      !(folder === null || (typeof folder === 'string' && isAbsolute(folder) && !folder.includes('\0')))
    ) {
      answer(socket, { ok: false, code: 'bad_request', message: 'malformed conversion request' });
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
      answer(socket, { ok: true, warnings: result.warnings, stats: result.stats }, [result.docx]);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      // Its first line: a worker's failure carries its stack, which the client has no use for.
      // A limit's kind too: the command line reports it with the flag that raises it (client.ts).
      const limit = error instanceof ConvertLimitError ? { limit: error.limit } : {};
      answer(socket, { ok: false, code: e.name, message: e.message.split('\n')[0] ?? '', ...limit });
    } finally {
      socket.off('close', onClose);
    }
  };

  const handle = async (socket: Socket): Promise<void> => {
    socket.on('error', () => undefined);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // The whole request must arrive in time, however slowly its bytes come.
    const deadline = setTimeout(() => socket.destroy(), REQUEST_DEADLINE_MS);
    try {
      // The token and the version are checked from the header, before any payload is read.
      const frame = await readFrame(socket, REQUEST_LIMITS, (header) => {
        const sent = typeof header.token === 'string' ? header.token : '';
        if (!timingSafeEqual(digest(sent), expected)) return new Refusal('unauthorized', 'wrong token');
        if (header.v !== PROTOCOL_VERSION) return new Refusal('bad_request', 'unknown protocol version');
        return undefined;
      }).catch((error: unknown) => {
        if (error instanceof Refusal) answer(socket, { ok: false, code: error.code, message: error.message });
        else socket.destroy();
        return undefined;
      });
      clearTimeout(deadline);
      if (!frame) return;
      if (frame.header.op === 'status') {
        answer(socket, { ok: true, pid: process.pid, served, uptime_ms: Date.now() - started, warming });
        return;
      }
      if (frame.header.op === 'stop') {
        answer(socket, { ok: true, pid: process.pid });
        void stop();
        return;
      }
      if (frame.header.op === 'convert') {
        await convert(socket, frame);
        return;
      }
      answer(socket, { ok: false, code: 'bad_request', message: 'unknown operation' });
    } catch {
      socket.destroy();
    } finally {
      clearTimeout(deadline);
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
    socketIno = inode(paths.socket);
    chmodSync(paths.socket, 0o600);
    // Only while the folder is still safe and the lock still this daemon's (a starter that lost a race ends here).
    if (!isSafeDir(paths.dir) || !holdsLock(paths) || inode(paths.socket) !== socketIno)
      throw new DaemonError('the daemon folder changed, or another daemon took the lock');
    // A new file of a random name (never through a link someone planted), then renamed into place.
    const temporary = `${paths.token}.${randomBytes(8).toString('hex')}`;
    writeFileSync(temporary, `${token}\n`, { flag: 'wx', mode: 0o600 });
    tokenIno = inode(temporary);
    renameSync(temporary, paths.token);
  } catch (error) {
    await stop();
    throw error;
  }
  // Warm-up conversions, with the token written: `daemon status` and `daemon stop` answer meanwhile, and a
  // conversion sent meanwhile finds the worker busy and is converted in its command line. The worker's code reaches
  // its fast tiers only after many calls: four conversions of 85 KB (about 2 s of CPU, once) take a 120 KB
  // conversion from ~480 ms on a fresh daemon to ~300 ms.
  pool.warm();
  const warmUp = warmUpMarkdown();
  const rules = mappingRules(undefined);
  for (let round = 0; round < WARM_UP_ROUNDS && !stopping; round++)
    await pool
      .run({ markdown: warmUp, mapping: rules, created: new Date(0), template: builtIn })
      .catch(() => undefined);
  warming = false;
  if (!stopping) idle();
  return { server, pool, stop, closed };
}
