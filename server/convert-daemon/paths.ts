// Where the conversion daemon of this user and this build listens (docs/cli.md, "The conversion daemon").
//
// A private folder on a safe path, never the shared temp folder: the folder owned by this user with no permission
// for anyone else, and every folder above it owned by root or this user and writable by no one else (a sticky
// folder of root's, like /tmp, excepted: nobody can rename what is ours in it), as OpenSSH checks its key files. In
// it, per build, a socket, the token a client must send, and the lock the daemon holds. A build is this module's
// file (its path, size and time: every `npm run build` or install is another one), the Node that runs it, and who
// runs it (user, groups, mount namespace: the daemon reads the images beside a document with its own rights), so a
// client never talks to a daemon of other code or other rights.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { daemonSwitchedOff } from '../../bin/convert-flags.mjs';

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
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return false;
  return !daemonSwitchedOff(env);
}

function baseDir(env: NodeJS.ProcessEnv): string {
  if (env.DOCWRIGHT_DAEMON_DIR) return resolve(env.DOCWRIGHT_DAEMON_DIR);
  // The per-user runtime folder where there is one (Linux: tmpfs, private, emptied at logout), else the cache folder.
  if (env.XDG_RUNTIME_DIR) return join(resolve(env.XDG_RUNTIME_DIR), 'docwright');
  const home = homedir();
  const cache =
    process.platform === 'darwin' ? join(home, 'Library', 'Caches') : (env.XDG_CACHE_HOME ?? join(home, '.cache'));
  return join(resolve(cache), 'docwright', 'daemon');
}

/** Who this process is, as far as what it may read goes. */
function identity(): string {
  const parts = [String(process.getuid?.()), String(process.getgid?.()), (process.getgroups?.() ?? []).join(',')];
  for (const ns of ['mnt', 'user']) {
    try {
      parts.push(readlinkSync(`/proc/self/ns/${ns}`));
    } catch {
      // not Linux
    }
  }
  return parts.join(';');
}

/** The newest time a file under DIR was changed. */
function newest(dir: string): number {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    time = Math.max(time, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return time;
}

/**
 * The build's name: a hash of this module's file, the Node running it and who runs it. Run from the sources (a
 * checkout whose build is older than them), the newest change under server/ too: an edit means another daemon.
 */
export function buildId(): string {
  const file = realpathSync(fileURLToPath(import.meta.url));
  const { size, mtimeMs } = statSync(file);
  const sources = file.endsWith('.ts') ? newest(dirname(dirname(file))) : 0;
  const parts = [file, size, mtimeMs, sources, process.execPath, process.version, process.arch, identity()];
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 16);
}

/** Whether DIR is a folder owned by this user that only this user may enter (not a link to one). */
export function isPrivateDir(dir: string): boolean {
  try {
    const stat = lstatSync(dir);
    return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/**
 * Whether nobody but this user (and root) can change what DIR names: it is private, it is its real path (no link on
 * the way), and every folder above it belongs to root or this user and only they may write it, unless it is a
 * sticky folder of root's.
 */
export function isSafeDir(dir: string): boolean {
  if (!isPrivateDir(dir)) return false;
  try {
    if (realpathSync(dir) !== dir) return false;
    const uid = process.getuid?.();
    for (let parent = dirname(dir); ; parent = dirname(parent)) {
      const stat = lstatSync(parent);
      if (!stat.isDirectory()) return false;
      const sticky = (stat.mode & 0o1000) !== 0 && stat.uid === 0;
      if (stat.uid !== 0 && stat.uid !== uid) return false;
      if ((stat.mode & 0o022) !== 0 && !sticky) return false;
      if (dirname(parent) === parent) return true;
    }
  } catch {
    return false;
  }
}

/** Whether PATH is what the daemon made: a socket or a regular file of this user's, not a link. */
export function isOwnEntry(path: string, kind: 'socket' | 'file'): boolean {
  try {
    const stat = lstatSync(path);
    return (kind === 'socket' ? stat.isSocket() : stat.isFile()) && stat.uid === process.getuid?.();
  } catch {
    return false;
  }
}

/** Whether PID is a running conversion daemon (on Linux by its command line: a reused pid is not one). */
export function daemonRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const args = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').split('\0');
    const at = args.indexOf('daemon');
    return at >= 0 && args[at + 1] === 'run';
  } catch {
    return false;
  }
}

/**
 * The daemon's files for this build, the folder created if need be; undefined where none may be used safely, or when
 * DOCWRIGHT_DAEMON turns it off (unless ANYWAY: `daemon status` and `daemon stop` still see a daemon that runs).
 */
export function daemonPaths(env: NodeJS.ProcessEnv = process.env, anyway = false): DaemonPaths | undefined {
  if (anyway ? process.platform === 'win32' : !daemonAllowed(env)) return undefined;
  try {
    const dir = baseDir(env);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isSafeDir(dir)) return undefined;
    const id = buildId();
    const socket = join(dir, `${id}.sock`);
    if (Buffer.byteLength(socket) > SOCKET_PATH_MAX) return undefined;
    return { dir, socket, token: join(dir, `${id}.token`), lock: join(dir, `${id}.lock`) };
  } catch {
    return undefined;
  }
}
