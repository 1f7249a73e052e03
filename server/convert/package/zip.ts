import { Packer, type Document } from 'docx';
import { zipSync, type Zippable } from 'fflate';
import { encodeUtf8 } from '../xml.ts';

/** Fixed zip timestamp, so the same input gives the same bytes. */
const ZIP_MTIME = new Date('2000-01-01T00:00:00Z');

type Compiled = ReadonlyMap<string, string | Uint8Array>;
interface DocxCompiler {
  compile(file: Document): Compiled;
}

/**
 * Lays the document out with docx, in memory. docx's Packer would deflate every part only for us to inflate them
 * again, so its compiler (the part map Packer zips, in docx ≥ 9.15) is used directly; a test pins this.
 */
export function compileParts(doc: Document): Compiled {
  const compiler = (Packer as unknown as { compiler?: DocxCompiler }).compiler;
  if (!compiler || typeof compiler.compile !== 'function')
    throw new Error('This docx version has no Packer.compiler; Docwright needs docx 9.15 or later.');
  return compiler.compile(doc);
}

/** Zips a package, [Content_Types].xml first, with fixed timestamps (same parts, same bytes); images stored as they are. */
export function zipParts(parts: ReadonlyMap<string, Uint8Array | string>, level: 1 | 6 | 9 = 6): Uint8Array {
  const files: Zippable = {};
  const ordered = ['[Content_Types].xml', ...[...parts.keys()].filter((p) => p !== '[Content_Types].xml')];
  for (const path of ordered) {
    const data = parts.get(path);
    if (data === undefined) continue;
    files[path] = [
      typeof data === 'string' ? encodeUtf8(data) : data,
      { mtime: ZIP_MTIME, level: /\.(png|jpe?g|gif|odttf|ttf)$/i.test(path) ? 0 : level },
    ];
  }
  return zipSync(files);
}
