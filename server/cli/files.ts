// The command line's reading and writing of the user's files: inputs, templates and mappings (bounded by the API's
// limits), and the documents it writes.
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { MappingRules } from '../convert/index.ts';
import { MAPPING_LIMIT, TEMPLATE_LIMIT } from '../limits.ts';
import { CliError } from './errors.ts';

/** The end of a one-sentence error: why a file could not be read or written. */
export function reason(error: unknown): string {
  const e = error as Partial<NodeJS.ErrnoException>;
  if (e.code === 'ENOENT') return 'there is no such file.';
  if (e.code === 'EISDIR') return 'it is a folder, not a file.';
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'permission denied.';
  return `${(e.message ?? String(error)).replace(/\.$/, '')}.`;
}

/**
 * A markdown input's text: a file, or standard input for `-`. Standard input is read as a stream, not by a blocking
 * read of descriptor 0: a pipe that is (or was made) non-blocking answers EAGAIN to a read before its writer has
 * written, which a synchronous read takes for an error.
 */
export async function readInput(path: string): Promise<string> {
  try {
    if (path !== '-') return readFileSync(path, 'utf8');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin)
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path === '-' ? 'standard input' : path}: ${reason(error)}`);
  }
}

/** The API's limits on a template and a mapping: the command line reads no more than them either. */
const FILE_LIMITS = { template: TEMPLATE_LIMIT, mapping: MAPPING_LIMIT } as const;

/** Reads a file of at most `limit` bytes; a larger one (or an endless one: /dev/zero) is refused once past it. */
export function readBounded(path: string, what: string, limit: number): Buffer {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, limit + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > limit)
        throw new CliError(`${what} ${path} is larger than ${String(limit / 1024 / 1024)} MB (the API's limit too).`);
    }
    return Buffer.concat(chunks, total);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read ${what} ${path}: ${reason(error)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function readBytes(path: string, what: 'template'): Uint8Array {
  return new Uint8Array(readBounded(path, what, FILE_LIMITS[what]));
}

export function readMapping(path: string): MappingRules | { rules: MappingRules } {
  const text = readBounded(path, 'mapping', FILE_LIMITS.mapping).toString('utf8');
  try {
    return JSON.parse(text) as MappingRules;
  } catch (error) {
    throw new CliError(`mapping ${path} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Where -o PATH writes: PATH itself, or NAME inside it when PATH is an existing folder (as `cp file dir/` does). A
 * PATH ending in a slash names a folder: one that does not exist is refused as such.
 */
export function outputPath(path: string, name: string | undefined): string {
  if (path === '-') return path;
  const folder = statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  if (!folder && /[/\\]$/.test(path))
    throw new CliError(`cannot write ${path}: the folder ${path.replace(/[/\\]+$/, '')} does not exist.`);
  if (!folder) return path;
  if (name === undefined)
    throw new CliError(`cannot write standard input into the folder ${path}: it has no name; give -o a file name.`);
  return path.endsWith(sep) || path.endsWith('/') ? `${path}${name}` : join(path, name);
}

export function writeOutput(path: string, bytes: Uint8Array): void {
  try {
    if (path === '-') process.stdout.write(bytes);
    else writeFileSync(path, bytes);
  } catch (error) {
    const folder = dirname(path);
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !existsSync(folder))
      throw new CliError(`cannot write ${path}: the folder ${folder} does not exist.`);
    throw new CliError(`cannot write ${path}: ${reason(error)}`);
  }
}
