import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Whether `path` is the folder `dir` or lies inside it, comparing the device and inode of each folder on its way up
 * with `dir`'s: another path to the same folder (a bind mount, other letter case on a case-insensitive disk) is
 * caught too. False when `dir` does not exist.
 */
export function within(path: string, dir: string): boolean {
  const target = identity(dir);
  if (!target) return false;
  for (let at = resolve(path); ; at = dirname(at)) {
    const here = identity(at);
    if (here?.dev === target.dev && here.ino === target.ino) return true;
    if (dirname(at) === at) return false;
  }
}

/** Device and inode of what `path` leads to; undefined when it cannot be reached. */
function identity(path: string): { dev: bigint; ino: bigint } | undefined {
  try {
    return statSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

const real = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
};

/** How `folder` and `dataDir` overlap: `folder` holds it, lies inside it (or is it), or neither (undefined). */
export function dataDirOverlap(folder: string, dataDir: string): 'holds' | 'inside' | undefined {
  if (within(real(folder), dataDir)) return 'inside';
  if (within(real(dataDir), folder)) return 'holds';
  return undefined;
}

/** The kernel's folders: what they hold differs per process (`/proc/self`) or is the machine's, never a user's files. */
const SYSTEM_FOLDERS = ['/proc', '/sys', '/dev'];

/**
 * The real path of a folder MCP may use, or why it may not: missing or not a folder, or named through or lying in
 * /proc, /sys or /dev (as written or once resolved: `/proc/self/cwd` is another folder in every process).
 */
export function realFolder(folder: string): { ok: true; real: string } | { ok: false; reason: 'missing' | 'system' } {
  let realPath: string;
  try {
    realPath = realpathSync(folder);
  } catch {
    return { ok: false, reason: 'missing' };
  }
  if (!statSync(realPath, { throwIfNoEntry: false })?.isDirectory()) return { ok: false, reason: 'missing' };
  const system = (path: string) => SYSTEM_FOLDERS.some((root) => path === root || path.startsWith(`${root}/`));
  if (system(resolve(folder)) || system(realPath)) return { ok: false, reason: 'system' };
  return { ok: true, real: realPath };
}
