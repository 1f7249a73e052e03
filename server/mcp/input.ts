import { closeSync, constants, fstatSync, readFile } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { openChecked } from '../confined/open.ts';
import { ApiError } from '../errors.ts';
import { allowedFolder, pathInside } from './allowed.ts';

const readFd = promisify(readFile);

/**
 * A markdown file convert_markdown reads (input_path): inside the folder the user allowed (`mcp_output_dir`),
 * checked after resolving `..` and symbolic links, never in Docwright's data directory; its images are read from
 * its own folder (docs/images.md).
 */
export async function inputFile(
  allowedDir: string | null,
  dataDir: string,
  requested: string,
  limit: number,
): Promise<{ markdown: string; folder: string }> {
  const folder = allowedFolder(allowedDir, dataDir, 'input_path');
  const found = pathInside(folder, dataDir, 'input_path', requested);
  if (!found.ok) throw new ApiError('validation_error', `input_path: ${requested} does not exist.`);
  let fd: number;
  try {
    fd = openChecked(found.real, constants.O_RDONLY | constants.O_NONBLOCK);
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
    return { markdown, folder: dirname(found.real) };
  } finally {
    closeSync(fd);
  }
}
