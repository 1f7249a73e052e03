/** Why an image file could not be read. */
export type ReadFailure = 'missing' | 'outside' | 'not_file' | 'too_large';

export type ImageRead = { ok: true; bytes: Uint8Array } | { ok: false; reason: ReadFailure; size?: number };

/** Where a conversion's images come from: the files beside the markdown, by path relative to its folder. */
export interface ImageSource {
  /** Reads one file by its normalised relative path (`img/a.png`), at most `limit` bytes. */
  read(path: string, limit: number): ImageRead;
  /** Files sent with the markdown (a multipart request's images), not a folder's. */
  sent?: boolean;
}

/** Image files sent with the markdown (a multipart request), by relative path. */
export function filesSource(files: ReadonlyMap<string, Uint8Array>): ImageSource {
  return {
    sent: true,
    read(path, limit) {
      const bytes = files.get(path);
      if (!bytes) return { ok: false, reason: 'missing' };
      if (bytes.byteLength > limit) return { ok: false, reason: 'too_large', size: bytes.byteLength };
      return { ok: true, bytes };
    },
  };
}

/**
 * Images as they travel to a conversion worker: the files themselves, or the folder to read them from (and a folder
 * never to read from, whatever path leads there: Docwright's data directory, for MCP).
 */
export type ImageInput = { files: ReadonlyMap<string, Uint8Array> } | { folder: string; exclude?: string };
