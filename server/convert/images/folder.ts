import { closeSync, constants, fstatSync, readSync, realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { openChecked } from '../../confined/open.ts';
import { filesSource, type ImageInput, type ImageRead, type ImageSource } from './source.ts';

/**
 * The images beside a markdown file: paths resolve inside `folder` only. Symbolic links are followed and the real
 * path must still be inside the (real) folder, so a link cannot lead out of it, nor a folder swapped for a link
 * since that check (openChecked); only regular files are read, and at most `limit` bytes of them.
 */
export function folderSource(folder: string): ImageSource {
  let root: string | undefined;
  const realRoot = (): string => (root ??= realpathSync(folder));
  return {
    read(path, limit): ImageRead {
      let real: string;
      try {
        const base = realRoot();
        real = realpathSync(resolve(base, path));
        if (!real.startsWith(base.endsWith(sep) ? base : base + sep)) return { ok: false, reason: 'outside' };
      } catch {
        return { ok: false, reason: 'missing' };
      }
      let fd: number;
      try {
        // Never through a link or a folder swapped for one since the check, never blocking on a FIFO.
        fd = openChecked(real, constants.O_RDONLY | constants.O_NONBLOCK);
      } catch {
        return { ok: false, reason: 'missing' };
      }
      try {
        const stat = fstatSync(fd);
        if (!stat.isFile()) return { ok: false, reason: 'not_file' };
        if (stat.size > limit) return { ok: false, reason: 'too_large', size: stat.size };
        const bytes = new Uint8Array(stat.size);
        let read = 0;
        while (read < bytes.byteLength) {
          const n = readSync(fd, bytes, read, bytes.byteLength - read, read);
          if (n === 0) break;
          read += n;
        }
        return { ok: true, bytes: read === bytes.byteLength ? bytes : bytes.subarray(0, read) };
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** The source of images a conversion worker was sent. */
export function sourceOf(input: ImageInput): ImageSource {
  return 'files' in input ? filesSource(input.files) : folderSource(input.folder);
}
