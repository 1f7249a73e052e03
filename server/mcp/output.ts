import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, statSync, writeFile } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { openChecked } from '../confined/open.ts';
import { ApiError } from '../errors.ts';
import { allowedFolder, pathInside } from './allowed.ts';

const writeFd = promisify(writeFile);

/**
 * Where convert_markdown may write: a path inside the folder the user allowed (`mcp_output_dir`), checked after
 * resolving `..` and symbolic links, and never in Docwright's data directory, so an agent can never write anywhere
 * else. Checked before converting, so a refused path costs no quota.
 */
export function outputTarget(
  allowedDir: string | null,
  dataDir: string,
  requested: string,
  filename: string,
  overwrite: boolean,
): string {
  const folder = allowedFolder(allowedDir, dataDir, 'output_path');
  let target = isAbsolute(requested) ? resolve(requested) : resolve(folder.real, requested);
  // Outside (by its text, then by its links) is refused before anything else is asked about it.
  const found = pathInside(folder, dataDir, 'output_path', requested, target);
  const isFolder = /[\\/]$/.test(requested) || (found.ok && statSync(found.real).isDirectory());
  if (isFolder) target = join(target, filename);
  else if (extname(target).toLowerCase() !== '.docx') target = `${target}.docx`;
  const parent = pathInside(folder, dataDir, 'output_path', requested, dirname(target));
  if (!parent.ok) throw new ApiError('validation_error', `output_path: the folder ${dirname(target)} does not exist`);
  const final = join(parent.real, basename(target));
  const existing = lstatSync(final, { throwIfNoEntry: false });
  if (existing?.isSymbolicLink())
    throw new ApiError(
      'forbidden',
      `output_path: ${final} is a symbolic link; Docwright does not write through links.`,
    );
  if (existing && !existing.isFile())
    throw new ApiError('validation_error', `output_path: ${final} exists and is not a file`);
  if (existing && !overwrite)
    throw new ApiError(
      'validation_error',
      `output_path: ${final} exists; pass overwrite: true to replace it, or choose another name`,
    );
  return final;
}

/**
 * Writes the document at the checked path, never through a link or a folder swapped for one since the check
 * (openChecked); an existing file is emptied only once it is known to be the one at that path.
 */
export async function writeOutput(path: string, bytes: Uint8Array, overwrite: boolean): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK | (overwrite ? 0 : constants.O_EXCL);
  const fd = openChecked(path, flags, 0o644);
  try {
    if (!fstatSync(fd).isFile()) throw Object.assign(new Error(`${path} is not a file`), { code: 'ENOTFILE' });
    ftruncateSync(fd, 0);
    await writeFd(fd, bytes);
  } finally {
    closeSync(fd);
  }
}
