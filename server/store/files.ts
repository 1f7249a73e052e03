import { randomBytes } from 'node:crypto';
import { open, rename, rm, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const TEMP_SUFFIX = '.tmp';

/** Writes a file atomically: a temporary file in the same folder, flushed to disk, then renamed over the target. */
export async function writeFileAtomic(path: string, data: Uint8Array | string, mode = 0o600): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
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
