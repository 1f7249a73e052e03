import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const TEMP_SUFFIX = '.tmp';

/** A fresh name for a temporary file beside `path` (one the start's sweep removes: removeTempFiles). */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
}

/**
 * Writes a file atomically: a temporary file in the same folder, flushed to disk, then renamed over the target.
 * The flush is fdatasync: the data and what reading it needs (its size), not the times.
 */
export async function writeFileAtomic(path: string, data: Uint8Array | string, mode = 0o600): Promise<void> {
  const temp = tempPathFor(path);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.datasync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * writeFileAtomic for a thread that may block (a conversion worker, never the event loop): the same steps as
 * system calls made one after another, without a trip through libuv's thread pool for each.
 */
export function writeFileAtomicSync(path: string, data: Uint8Array, mode = 0o600, temp = tempPathFor(path)): void {
  const fd = openSync(temp, 'wx', mode);
  try {
    for (let written = 0; written < data.length;) written += writeSync(fd, data, written);
    fdatasyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Removes a file written for a change that could not be recorded (or is not recorded after all); a failure here
 * leaves an orphan for the next start's sweep.
 */
export function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Swept at the next start.
  }
}

/** Removes temporary files an interrupted write left behind (run at start, while holding the lock). */
export async function removeTempFiles(dir: string): Promise<number> {
  let removed = 0;
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return 0;
  }
  for (const name of entries) {
    if (name.startsWith('.') && name.endsWith(TEMP_SUFFIX)) {
      await rm(join(dir, name), { force: true });
      removed += 1;
    }
  }
  return removed;
}
