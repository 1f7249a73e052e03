// Where the conversion daemon of this user and this build listens (docs/cli.md, "The conversion daemon").
//
// A private folder (created 0700, used only when it is a real folder owned by this user that nobody else may
// write), never the shared temp folder; in it, per build, a socket, the token a client must send, and the lock the
// daemon holds. A build is this module's file (its path, size and time: every `npm run build` or install is another
// one), the Node that runs it and its version, so a client never talks to a daemon of other code.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface DaemonPaths {
  dir: string;
  socket: string;
  token: string;
  lock: string;
}

/** A Unix socket's path is at most 107 bytes on Linux and 103 on macOS. */
const SOCKET_PATH_MAX = 100;

/** Whether the daemon may be used at all: not on Windows (no private socket folder there yet), not when turned off. */
export function daemonAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  if (process.platform === 'win32') return false;
  const value = (env.DOCWRIGHT_DAEMON ?? '').trim().toLowerCase();
  return !['0', 'off', 'false', 'no'].includes(value);
}

function baseDir(env: NodeJS.ProcessEnv): string {
  if (env.DOCWRIGHT_DAEMON_DIR) return env.DOCWRIGHT_DAEMON_DIR;
  // The per-user runtime folder where there is one (Linux: tmpfs, private, emptied at logout), else the cache folder.
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'docwright');
  const home = homedir();
  const cache =
    process.platform === 'darwin' ? join(home, 'Library', 'Caches') : (env.XDG_CACHE_HOME ?? join(home, '.cache'));
  return join(cache, 'docwright', 'daemon');
}

/** The build's name: a hash of this module's file and the Node running it. */
export function buildId(): string {
  const file = realpathSync(fileURLToPath(import.meta.url));
  const { size, mtimeMs } = statSync(file);
  const parts = [file, size, mtimeMs, process.execPath, process.version, process.arch];
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 16);
}

/** Whether DIR is a folder owned by this user that only this user may enter. */
export function isPrivateDir(dir: string): boolean {
  try {
    const stat = lstatSync(dir);
    return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The daemon's files for this build, the folder created if need be; undefined where none may be used safely. */
export function daemonPaths(env: NodeJS.ProcessEnv = process.env): DaemonPaths | undefined {
  if (!daemonAllowed(env)) return undefined;
  try {
    const dir = baseDir(env);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivateDir(dir)) return undefined;
    const id = buildId();
    const socket = join(dir, `${id}.sock`);
    if (Buffer.byteLength(socket) > SOCKET_PATH_MAX) return undefined;
    return { dir, socket, token: join(dir, `${id}.token`), lock: join(dir, `${id}.lock`) };
  } catch {
    return undefined;
  }
}
