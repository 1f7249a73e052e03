import { closeSync, constants, fstatSync, ftruncateSync, writeFile } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { openChecked } from '../confined/open.ts';
import { ApiError } from '../errors.ts';

const writeFd = promisify(writeFile);

/**
 * Where convert_markdown may write: a path inside the folder the user allowed (`mcp_output_dir`), checked after
 * resolving `..` and symbolic links, so an agent can never write anywhere else. Checked before converting, so a
 * refused path costs no quota.
 */
export async function outputTarget(
  allowedDir: string | null,
  requested: string,
  filename: string,
  overwrite: boolean,
): Promise<string> {
  if (allowedDir === null) {
    throw new ApiError(
      'forbidden',
      "output_path: writing files is off. The user can allow one folder (docwright config set mcp_output_dir FOLDER, or the app's settings); until then, leave output_path out and use the document in this reply.",
    );
  }
  let allowed: string;
  try {
    allowed = await realpath(allowedDir);
  } catch {
    throw new ApiError(
      'forbidden',
      `output_path: the allowed folder ${allowedDir} does not exist any more; the user must set mcp_output_dir again.`,
    );
  }
  let target = isAbsolute(requested) ? resolve(requested) : resolve(allowed, requested);
  const isFolder = /[\\/]$/.test(requested) || (await stat(target).catch(() => undefined))?.isDirectory() === true;
  if (isFolder) target = join(target, filename);
  else if (extname(target).toLowerCase() !== '.docx') target = `${target}.docx`;
  let parent: string;
  try {
    parent = await realpath(dirname(target));
  } catch {
    throw new ApiError('validation_error', `output_path: the folder ${dirname(target)} does not exist`);
  }
  if (parent !== allowed && !parent.startsWith(allowed.endsWith(sep) ? allowed : allowed + sep)) {
    throw new ApiError('forbidden', `output_path: ${requested} is outside the folder the user allowed (${allowed}).`);
  }
  const final = join(parent, basename(target));
  const existing = await lstat(final).catch(() => undefined);
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
