/** What an image reference in markdown points at. */
export type ImageTarget =
  | { kind: 'local'; path: string }
  | { kind: 'remote'; url: string }
  | { kind: 'outside'; url: string }
  | { kind: 'invalid'; url: string };

/**
 * Works out the file an image URL names, relative to the markdown file's folder, without touching the disk:
 * `a/b.png`, `./a/b.png` and `a/%20b.png` are local; `http:`, `//host` and any other scheme are remote; absolute
 * paths and paths that climb out of the folder with `..` are outside.
 */
export function imageTarget(url: string): ImageTarget {
  const raw = url.trim();
  if (raw === '') return { kind: 'invalid', url };
  if (raw.startsWith('//')) return { kind: 'remote', url };
  // A scheme (`https:`, `data:`, `file:`), but not a Windows drive letter (`C:`), which is an absolute path.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw);
  if (scheme && (scheme[1] ?? '').length > 1) {
    const name = (scheme[1] ?? '').toLowerCase();
    return name === 'file' ? { kind: 'outside', url } : { kind: 'remote', url };
  }
  const withoutQuery = raw.split(/[?#]/)[0] ?? '';
  let decoded: string;
  try {
    decoded = decodeURIComponent(withoutQuery);
  } catch {
    return { kind: 'invalid', url };
  }
  if (decoded.includes('\0')) return { kind: 'invalid', url };
  const slashed = decoded.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[a-z]:/i.test(slashed)) return { kind: 'outside', url };
  const parts: string[] = [];
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return { kind: 'outside', url };
      parts.pop();
    } else parts.push(segment);
  }
  if (parts.length === 0) return { kind: 'invalid', url };
  return { kind: 'local', path: parts.join('/') };
}
