// Checks on what the renderer sends over IPC, and the file names written from it. Pure: the dialogs and writes are
// in ipc.ts.

/** Largest file the app writes for the renderer (a .docx with its template's images). */
export const MAX_SAVE_BYTES = 256 * 1024 * 1024;
/** Most files in one "save all to folder". */
export const MAX_BATCH = 1000;
/** Largest text file the Open dialog reads: the server converts up to 10 MB of markdown. */
export const MAX_OPEN_BYTES = 10 * 1024 * 1024;

/** A bad IPC argument: the renderer sent something the API does not take. */
export class IpcInputError extends Error {
  override name = 'IpcInputError';
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
// Path separators, characters Windows refuses, and control characters.
const UNSAFE = /[\\/:*?"<>|\u0000-\u001f\u007f]/g;

/**
 * A file name safe on every OS: no path separators or characters Windows refuses, no leading or trailing dots and
 * spaces, no reserved device name, at most 200 characters (keeping the extension); `fallback` when nothing is left.
 */
export function safeFileName(name: string, fallback = 'document.docx'): string {
  let safe = name
    .normalize('NFC')
    .replace(UNSAFE, '_')
    .replace(/^[\s.]+|[\s.]+$/g, '');
  if (safe === '' || /^_+$/.test(safe)) return fallback;
  if (WINDOWS_RESERVED.test(safe)) safe = `_${safe}`;
  if (safe.length > 200) {
    const dot = safe.lastIndexOf('.');
    const extension = dot > 0 && safe.length - dot <= 16 ? safe.slice(dot) : '';
    safe = safe.slice(0, 200 - extension.length).replace(/[\s.]+$/, '') + extension;
  }
  return safe;
}

/** `name`, or `name (2).ext`, `name (3).ext`… : the first that `taken` says is free (case-insensitively). */
export function uniqueName(name: string, taken: (candidate: string) => boolean): string {
  if (!taken(name)) return name;
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const extension = dot > 0 ? name.slice(dot) : '';
  for (let n = 2; ; n++) {
    const candidate = `${stem} (${n})${extension}`;
    if (!taken(candidate)) return candidate;
  }
}

function bytesOf(value: unknown, what: string): Uint8Array {
  const bytes = value instanceof Uint8Array ? value : value instanceof ArrayBuffer ? new Uint8Array(value) : undefined;
  if (!bytes) throw new IpcInputError(`${what}: bytes must be a Uint8Array.`);
  if (bytes.byteLength > MAX_SAVE_BYTES)
    throw new IpcInputError(`${what}: larger than ${MAX_SAVE_BYTES / 1024 / 1024} MB.`);
  return bytes;
}

function nameOf(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length > 1000) throw new IpcInputError(`${what}: the name must be a string.`);
  return safeFileName(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A file to save (`saveFile`), with its name made safe. */
export function parseFileToSave(value: unknown): { name: string; bytes: Uint8Array } {
  if (!isRecord(value)) throw new IpcInputError('saveFile takes { suggestedName, bytes }.');
  return { name: nameOf(value.suggestedName, 'saveFile'), bytes: bytesOf(value.bytes, 'saveFile') };
}

/** The files of a batch (`saveAllToFolder`), names made safe and unique within the batch. */
export function parseFolderFiles(value: unknown): Array<{ name: string; bytes: Uint8Array }> {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_BATCH) {
    throw new IpcInputError(`saveAllToFolder takes 1 to ${MAX_BATCH} files.`);
  }
  const names = new Set<string>();
  return value.map((file: unknown, i) => {
    if (!isRecord(file)) throw new IpcInputError(`saveAllToFolder: file ${i + 1} must be { name, bytes }.`);
    const name = uniqueName(nameOf(file.name, `saveAllToFolder: file ${i + 1}`), (n) => names.has(n.toLowerCase()));
    names.add(name.toLowerCase());
    return { name, bytes: bytesOf(file.bytes, `saveAllToFolder: file ${i + 1}`) };
  });
}

/** A path argument (`revealInFolder`). */
export function parsePath(value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > 4096 || value.includes('\u0000')) {
    throw new IpcInputError('revealInFolder takes the path of a saved file.');
  }
  return value;
}

/** Refuses a picked file too large to convert, with a message for the user. */
export function checkOpenSize(name: string, size: number): void {
  if (size > MAX_OPEN_BYTES) throw new IpcInputError(`${name} is larger than 10 MB, the most the converter takes.`);
}

/** The Save dialog's filter for a file name: Word documents for .docx, else none. */
export function saveFilters(name: string): Array<{ name: string; extensions: string[] }> {
  return name.toLowerCase().endsWith('.docx') ? [{ name: 'Word document', extensions: ['docx'] }] : [];
}

/** The Open dialog's filters: markdown and text files first, anything as a fallback. */
export const OPEN_FILTERS = [
  { name: 'Markdown and text', extensions: ['md', 'markdown', 'txt'] },
  { name: 'All files', extensions: ['*'] },
];
