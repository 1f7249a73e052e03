import { closeSync, constants, fstatSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ImageInput, ImageSource } from '../convert/index.ts';
import { filesSource } from '../convert/images/source.ts';
import { openChecked } from './open.ts';
import { folderAt, resolveInside, type Folder } from './paths.ts';
import { within } from './within.ts';

// The engine (server/convert/) reads no file: a conversion is given an ImageSource. This is the one that reads the
// images beside a markdown file, for the CLI, the conversion workers and the tests.

/**
 * The images beside a markdown file: paths resolve inside `folder` only. Symbolic links are followed and the real
 * path must still be inside the (real) folder, so a link cannot lead out of it, nor a folder swapped for a link
 * since that check (openChecked); only regular files are read, and at most `limit` bytes of them. `exclude`: a
 * folder never read from, whatever path leads to it (Docwright's data directory, for MCP).
 */
export function folderSource(folder: string, exclude?: string): ImageSource {
  let root: Folder | undefined;
  return {
    read(path, limit): ReturnType<ImageSource['read']> {
      let real: string;
      try {
        root ??= folderAt(folder);
        const found = resolveInside(root, resolve(root.real, path));
        if (!found.ok) return { ok: false, reason: found.reason };
        if (exclude !== undefined && within(found.real, exclude)) return { ok: false, reason: 'outside' };
        real = found.real;
      } catch {
        return { ok: false, reason: 'missing' };
      }
      let fd: number;
      try {
        // Never blocking on a FIFO.
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
  return 'files' in input ? filesSource(input.files) : folderSource(input.folder, input.exclude);
}
