import { closeSync, constants, fstatSync, readFile } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { openChecked } from '../confined/open.ts';
import { ApiError } from '../errors.ts';

const readFd = promisify(readFile);

/**
 * A markdown file convert_markdown reads (input_path): inside the folder the user allowed (`mcp_output_dir`),
 * checked after resolving `..` and symbolic links; its images are read from its own folder (docs/images.md).
 */
export async function inputFile(
  allowedDir: string | null,
  requested: string,
  limit: number,
): Promise<{ markdown: string; folder: string }> {
  if (allowedDir === null)
    throw new ApiError(
      'forbidden',
      "input_path: reading files is off. The user can allow one folder (docwright config set mcp_output_dir FOLDER, or the app's settings); until then, send the markdown text itself.",
    );
  let allowed: string;
  let real: string;
  try {
    allowed = await realpath(allowedDir);
  } catch {
    throw new ApiError('forbidden', `input_path: the allowed folder ${allowedDir} does not exist any more.`);
  }
  try {
    real = await realpath(isAbsolute(requested) ? resolve(requested) : resolve(allowed, requested));
  } catch {
    throw new ApiError('validation_error', `input_path: ${requested} does not exist.`);
  }
  if (!real.startsWith(allowed.endsWith(sep) ? allowed : allowed + sep))
    throw new ApiError('forbidden', `input_path: ${requested} is outside the folder the user allowed (${allowed}).`);
  let fd: number;
  try {
    fd = openChecked(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    throw new ApiError('validation_error', `input_path: ${requested} cannot be read.`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ApiError('validation_error', `input_path: ${requested} is not a file.`);
    if (stat.size > limit)
      throw new ApiError('validation_error', `input_path: ${requested} is larger than ${limit / (1024 * 1024)} MiB.`);
    const markdown = await readFd(fd, 'utf8');
    if (markdown.length === 0) throw new ApiError('validation_error', `input_path: ${requested} is empty.`);
    return { markdown, folder: dirname(real) };
  } finally {
    closeSync(fd);
  }
}
