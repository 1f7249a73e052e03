import { closeSync, constants, existsSync, fstatSync, openSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined on Windows
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined on Windows
const DIRECTORY = constants.O_DIRECTORY ?? 0;

/** A file no longer at the path that was checked: a folder on its way was replaced (by a link) since the check. */
export class PathChangedError extends Error {
  override name = 'PathChangedError';
  readonly code = 'EPATHCHANGED';
  constructor(path: string) {
    super(`${path}: a folder on its way was replaced since it was checked`);
  }
}

let procFds: boolean | undefined;
/** Whether /proc tells which file a descriptor is (Linux with /proc mounted). */
const hasProcFds = (): boolean => (procFds ??= process.platform === 'linux' && existsSync('/proc/self/fd'));

/**
 * Opens `real` (an absolute path without links, already checked to be where it may be) and makes sure that what is
 * opened is the file at that path: O_NOFOLLOW guards only the last component, so a folder on the way swapped for a
 * link since the check would lead elsewhere. Where /proc tells what a descriptor is (Linux), the folder is opened
 * first, /proc must name the checked folder, and the file is opened inside that very folder: nothing is read,
 * created or truncated anywhere else. Elsewhere the opened file must be the one the path leads to afterwards.
 * Throws the open's own error, or PathChangedError.
 */
export function openChecked(real: string, flags: number, mode?: number): number {
  const folder = dirname(real);
  if (hasProcFds()) {
    const folderFd = openSync(folder, constants.O_RDONLY | DIRECTORY | NOFOLLOW);
    try {
      if (readlinkSync(`/proc/self/fd/${folderFd}`) !== folder) throw new PathChangedError(real);
      return openSync(`/proc/self/fd/${folderFd}/${basename(real)}`, flags | NOFOLLOW, mode);
    } finally {
      closeSync(folderFd);
    }
  }
  const fd = openSync(real, flags | NOFOLLOW, mode);
  let same = false;
  try {
    const opened = fstatSync(fd, { bigint: true });
    const there = statSync(real, { bigint: true });
    same = realpathSync(real) === real && opened.dev === there.dev && opened.ino === there.ino;
  } catch {
    // gone or unreadable since: not the checked file
  }
  if (same) return fd;
  closeSync(fd);
  throw new PathChangedError(real);
}
