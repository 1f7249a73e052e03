import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Thrown when another live process owns the data directory. */
export class DataDirLockedError extends Error {
  constructor(
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(`The data directory is in use by process ${pid} (lock file ${lockFile}).`);
    this.name = 'DataDirLockedError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Lock files this process holds: its own pid in a lock file is stale only when it is not one of these. */
const held = new Set<string>();

/**
 * Takes the data directory's lock: a file created exclusively, holding the owner's pid. A lock left by a process
 * that no longer runs (kill -9, power loss) is taken over. Returns the function that releases it.
 */
export function acquireLock(lockFile: string): () => void {
  const key = resolve(lockFile);
  if (held.has(key)) throw new DataDirLockedError(lockFile, process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      held.add(key);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        held.delete(key);
        process.removeListener('exit', release);
        try {
          if (readFileSync(lockFile, 'utf8').trim() === String(process.pid)) rmSync(lockFile, { force: true });
        } catch {
          // Already gone.
        }
      };
      process.once('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = lockOwner(lockFile);
    if (owner !== undefined && owner !== process.pid && alive(owner)) throw new DataDirLockedError(lockFile, owner);
    rmSync(lockFile, { force: true });
  }
  throw new Error(`Could not take the lock ${lockFile}.`);
}

/** The pid written in a lock file, if any. */
export function lockOwner(lockFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockFile, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
