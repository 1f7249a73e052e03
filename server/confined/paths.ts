import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** A folder that files are confined to: the path it was given as, and its real path (links resolved). */
export interface Folder {
  given: string;
  real: string;
}

/** The folder at `dir`, its links resolved; throws when it does not exist. */
export function folderAt(dir: string): Folder {
  const given = resolve(dir);
  return { given, real: realpathSync(given) };
}

/** Whether the absolute `path` is `folder` or lies inside it, by their text alone. */
export function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/** Where a path inside a folder leads: its real path, or why not. */
export type Resolved = { ok: true; real: string } | { ok: false; reason: 'outside' | 'missing' };

const OUTSIDE = { ok: false, reason: 'outside' } as const;
const MISSING = { ok: false, reason: 'missing' } as const;

/**
 * Resolves the absolute `path` (`..` already resolved in its text) to a real path inside `folder`. A path outside by
 * its text is refused before the disk is asked anything, and one whose links lead out is refused too, with the same
 * answer: so every path outside gets one answer, whether it exists or not. `missing` only where the deepest folder on
 * the way that exists is inside.
 */
export function resolveInside(folder: Folder, path: string): Resolved {
  if (!isInside(folder.real, path) && !isInside(folder.given, path)) return OUTSIDE;
  try {
    const real = realpathSync(path);
    return isInside(folder.real, real) ? { ok: true, real } : OUTSIDE;
  } catch {
    for (let up = dirname(path); ; up = dirname(up)) {
      try {
        return isInside(folder.real, realpathSync(up)) ? MISSING : OUTSIDE;
      } catch {
        if (dirname(up) === up) return OUTSIDE;
      }
    }
  }
}
