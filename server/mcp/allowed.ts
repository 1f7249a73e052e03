import { isAbsolute, resolve } from 'node:path';
import { ApiError } from '../errors.ts';
import { folderAt, resolveInside, type Folder } from '../confined/paths.ts';
import { dataDirOverlap, realFolder, within } from '../confined/within.ts';

export type Field = 'input_path' | 'output_path' | 'template_path';

const SET_FOLDER = "docwright config set mcp_output_dir FOLDER, or the app's settings";

/**
 * The one folder MCP may read and write (`mcp_output_dir`), or the tool's error: none allowed, gone, or one that
 * holds or lies inside Docwright's data directory, whose keys and settings an API key must never reach (a setting
 * stored before that was refused lands here: the server starts, the file tools say why).
 */
export function allowedFolder(setting: string | null, dataDir: string, field: Field): Folder {
  if (setting === null)
    throw new ApiError(
      'forbidden',
      field === 'input_path'
        ? `input_path: reading files is off. The user can allow one folder (${SET_FOLDER}); until then, send the markdown text itself.`
        : field === 'template_path'
          ? `template_path: reading files is off. The user can allow one folder (${SET_FOLDER}); until then, use a template the user uploaded (list_templates).`
          : `output_path: writing files is off. The user can allow one folder (${SET_FOLDER}); until then, leave output_path out and use the document in this reply.`,
    );
  let folder: Folder;
  try {
    folder = folderAt(setting);
  } catch {
    throw new ApiError(
      'forbidden',
      `${field}: the allowed folder ${setting} does not exist any more; the user must set mcp_output_dir again.`,
    );
  }
  // A setting stored before /proc, /sys and /dev were refused (services.ts updateSettings) is refused here.
  if (!realFolder(setting).ok)
    throw new ApiError(
      'forbidden',
      `${field}: the allowed folder ${setting} is under /proc, /sys or /dev, which MCP never reads or writes; the user must choose another folder (${SET_FOLDER}).`,
    );
  const overlap = dataDirOverlap(folder.real, dataDir);
  if (overlap)
    throw new ApiError(
      'forbidden',
      `${field}: the allowed folder ${setting} ${overlap === 'holds' ? 'holds' : 'lies inside'} Docwright's data directory, which MCP never reads or writes; the user must choose another folder (${SET_FOLDER}).`,
    );
  return folder;
}

/**
 * The real path of `requested` (absolute, or relative to the folder) inside the allowed folder. Every path outside
 * gets the same answer, whether or not it exists; `missing` only for a path inside whose deepest existing folder is
 * inside too. A path into the data directory by another route (a bind mount) is refused as well.
 */
export function pathInside(
  folder: Folder,
  dataDir: string,
  field: Field,
  requested: string,
  absolute: string = isAbsolute(requested) ? resolve(requested) : resolve(folder.real, requested),
): { ok: true; real: string } | { ok: false; reason: 'missing' } {
  const found = resolveInside(folder, absolute);
  if (!found.ok && found.reason === 'outside')
    throw new ApiError('forbidden', `${field}: ${requested} is outside the folder the user allowed (${folder.real}).`);
  if (found.ok && within(found.real, dataDir))
    throw new ApiError(
      'forbidden',
      `${field}: ${requested} is inside Docwright's data directory, which MCP never reads or writes.`,
    );
  return found.ok ? found : { ok: false, reason: 'missing' };
}
