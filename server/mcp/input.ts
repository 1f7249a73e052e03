import { closeSync, constants, fstatSync, readFile } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { openChecked } from '../confined/open.ts';
import { ApiError } from '../errors.ts';
import { allowedFolder, pathInside, type Field } from './allowed.ts';

const readFd = promisify(readFile);

/**
 * A file convert_markdown reads (FIELD: input_path, template_path): inside the folder the user allowed
 * (`mcp_output_dir`), checked after resolving `..` and symbolic links, never in Docwright's data directory; at most
 * LIMIT bytes, not empty. Its bytes and its real folder.
 */
async function allowedFile(
  allowedDir: string | null,
  dataDir: string,
  field: Field,
  requested: string,
  limit: number,
): Promise<{ bytes: Buffer; folder: string }> {
  const folder = allowedFolder(allowedDir, dataDir, field);
  const found = pathInside(folder, dataDir, field, requested);
  if (!found.ok) throw new ApiError('validation_error', `${field}: ${requested} does not exist.`);
  let fd: number;
  try {
    fd = openChecked(found.real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    throw new ApiError('validation_error', `${field}: ${requested} cannot be read.`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ApiError('validation_error', `${field}: ${requested} is not a file.`);
    if (stat.size > limit)
      throw new ApiError('validation_error', `${field}: ${requested} is larger than ${limit / (1024 * 1024)} MiB.`);
    const bytes = await readFd(fd);
    if (bytes.length === 0) throw new ApiError('validation_error', `${field}: ${requested} is empty.`);
    return { bytes, folder: dirname(found.real) };
  } finally {
    closeSync(fd);
  }
}

/** A markdown file convert_markdown converts (input_path); its images are read from its own folder (docs/images.md). */
export async function inputFile(
  allowedDir: string | null,
  dataDir: string,
  requested: string,
  limit: number,
): Promise<{ markdown: string; folder: string }> {
  const { bytes, folder } = await allowedFile(allowedDir, dataDir, 'input_path', requested, limit);
  return { markdown: bytes.toString('utf8'), folder };
}

/** A Word template convert_markdown lays the document out with (template_path), as bytes. */
export async function templateFile(
  allowedDir: string | null,
  dataDir: string,
  requested: string,
  limit: number,
): Promise<Uint8Array> {
  return new Uint8Array((await allowedFile(allowedDir, dataDir, 'template_path', requested, limit)).bytes);
}
