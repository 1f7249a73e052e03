import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { processInfo } from './process-identity.ts';

/** Thrown when another live process owns the data directory. */
export class DataDirLockedError extends Error {
  constructor(
    readonly lockFile: string,
    readonly pid: number,
    readonly command = '',
  ) {
    super(`The data directory is in use by process ${pid}${command ? ` (${command})` : ''} (lock file ${lockFile}).`);
    this.name = 'DataDirLockedError';
  }
}

/** What a lock file says: the owner's pid, its identity beyond the pid (process-identity.ts), its command. */
export interface LockRecord {
  pid: number;
  /** Empty in a lock written by a version that recorded only the pid. */
  identity: string;
  command: string;
}

/**
 * Whether the process a lock names still owns it. Not when no process has its pid, when that process is a zombie
 * (killed, not yet reaped by its parent), or when it is another process that got the pid later: its identity
 * (start time, and boot on Linux) differs, or, for a lock that recorded only a pid, it started after the lock was
 * written. Where the OS cannot say (Windows), a live pid is taken as the owner.
 */
function owns(lock: LockRecord, lockFile: string): boolean {
  let othersProcess = false;
  try {
    process.kill(lock.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
    othersProcess = true;
  }
  const info = processInfo(lock.pid);
  // Gone since, or (another user's, under /proc's hidepid) hidden from us: then it is taken as the owner.
  if (info === null) return othersProcess;
  if (info === undefined) return true;
  if (info.zombie) return false;
  if (lock.identity) return info.identity === lock.identity;
  const written = statSync(lockFile, { throwIfNoEntry: false })?.mtimeMs;
  return written === undefined || info.startedAt <= written + 2_000;
}

/** Lock files this process holds: its own pid in a lock file is stale only when it is not one of these. */
const held = new Set<string>();

/** This process as a lock records it. */
function self(): string {
  const identity = processInfo(process.pid)?.identity ?? '';
  const command = [process.argv0, ...process.argv.slice(2)]
    .join(' ')
    .replace(/[\r\n]/g, ' ')
    .slice(0, 200);
  return `${process.pid}\n${identity}\n${command}\n`;
}

/**
 * Takes the data directory's lock: a file created exclusively, naming its owner (pid, identity, command). A lock
 * whose owner no longer runs (kill -9, power loss, a pid reused since, a zombie) is taken over. Returns the
 * function that releases it.
 */
export function acquireLock(lockFile: string): () => void {
  const key = resolve(lockFile);
  if (held.has(key)) throw new DataDirLockedError(lockFile, process.pid);
  const content = self();
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(lockFile, content, { flag: 'wx', mode: 0o600 });
      held.add(key);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        held.delete(key);
        process.removeListener('exit', release);
        try {
          if (readFileSync(lockFile, 'utf8') === content) rmSync(lockFile, { force: true });
        } catch {
          // Already gone.
        }
      };
      process.once('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const stale = readText(lockFile);
    const lock = parseLock(stale);
    if (lock && lock.pid !== process.pid && owns(lock, lockFile))
      throw new DataDirLockedError(lockFile, lock.pid, lock.command);
    // Removed only if still the stale one: another process taking it over at the same moment keeps its new lock.
    if (readText(lockFile) === stale) rmSync(lockFile, { force: true });
  }
  throw new Error(`Could not take the lock ${lockFile}.`);
}

function readText(lockFile: string): string | undefined {
  try {
    return readFileSync(lockFile, 'utf8');
  } catch {
    return undefined;
  }
}

function parseLock(text: string | undefined): LockRecord | undefined {
  const [first = '', identity = '', command = ''] = (text ?? '').split('\n');
  const pid = Number.parseInt(first.trim(), 10);
  return Number.isSafeInteger(pid) && pid > 0 ? { pid, identity: identity.trim(), command: command.trim() } : undefined;
}

/** A lock file's record, if it names a pid. */
export function readLock(lockFile: string): LockRecord | undefined {
  return parseLock(readText(lockFile));
}

/**
 * The pid of the process that owns a lock file, if one does: not a pid written by a process that is gone, whose pid
 * another process may have now (the discovery file it left must not lead a client to that process).
 */
export function lockOwner(lockFile: string): number | undefined {
  const lock = readLock(lockFile);
  return lock && (lock.pid === process.pid || owns(lock, lockFile)) ? lock.pid : undefined;
}
