// POST /api/v1/convert as multipart/form-data (docs/images.md): the markdown and its image files in one request, so
// the images are embedded. The JSON body stays SPEC.md's, with images as placeholders.
import type { FastifyRequest } from 'fastify';
import { imageTarget } from '../convert/images/path.ts';
import { IMAGE_LIMITS } from '../convert/images/limits.ts';
import { ApiError } from '../errors.ts';
import { upload } from './body-limits.ts';
import { multipartError } from './multipart-errors.ts';
import { stemOf } from '../services.ts';
import { CITATION_LIMITS, formatOfPath } from '../convert/citations/index.ts';

/** The text fields a multipart conversion takes (the JSON body's fields); `markdown` may also be a file part. */
const TEXT_FIELDS = new Set([
  'markdown',
  'template_id',
  'mapping_id',
  'filename',
  'response_format',
  'number_sections',
  'dialect',
  'bibliography',
  'bibliography_format',
  'csl',
]);
/** Fields that may also come as a file part (docs/captions-references.md), with the most bytes each may be. */
const CITATION_FILES: Record<string, number> = {
  bibliography: CITATION_LIMITS.bibliographyChars,
  csl: CITATION_LIMITS.styleChars,
};
/** Largest markdown, as in a JSON body (10 MiB). */
const MARKDOWN_BYTES = 10 * 1024 * 1024;
/** Largest multipart conversion: the markdown, its images and the other text fields. */
export const CONVERT_UPLOAD = upload(
  MARKDOWN_BYTES + IMAGE_LIMITS.totalBytes,
  `a conversion with its images (${MARKDOWN_BYTES / 1024 / 1024} MB of markdown, ${IMAGE_LIMITS.totalBytes / 1024 / 1024} MB of images and its fields)`,
);
/** Content types an image part may declare (a browser's, or a client's guess from the extension). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml', 'application/octet-stream']);

export interface ConvertUpload {
  /** Text, but `number_sections` "true" or "false" as the JSON body's boolean (anything else is refused as not one). */
  fields: Record<string, string | boolean>;
  images: Map<string, Uint8Array>;
}

/** Reads one file part to its end, refusing it as soon as it passes `limit` bytes. */
async function readPart(file: NodeJS.ReadableStream, limit: number, what: string): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of file) {
    const buffer = chunk as Buffer;
    size += buffer.byteLength;
    if (size > limit) throw new ApiError('payload_too_large', `${what} is larger than ${limit / (1024 * 1024)} MiB.`);
    chunks.push(buffer);
  }
  const all = Buffer.concat(chunks);
  return new Uint8Array(all.buffer, all.byteOffset, all.byteLength);
}

/**
 * Reads a multipart conversion: text fields as the JSON body has them, `markdown` as a field or a file, and each
 * image as a file part named `images` whose filename is its path relative to the markdown (`img/chart.png`).
 */
export async function readConvertUpload(request: FastifyRequest): Promise<ConvertUpload> {
  try {
    return await readParts(request);
  } catch (error) {
    multipartError(error);
  }
}

async function readParts(request: FastifyRequest): Promise<ConvertUpload> {
  const fields: Record<string, string> = {};
  const images = new Map<string, Uint8Array>();
  let total = 0;
  let markdownName: string | undefined;
  let bibliographyName: string | undefined;
  const parts = request.parts({
    // Paths are kept (busboy would cut `img/a.png` to `a.png`); the limits are checked per part below as well.
    preservePath: true,
    limits: {
      fields: TEXT_FIELDS.size,
      fieldSize: MARKDOWN_BYTES,
      files: IMAGE_LIMITS.count + 3,
      fileSize: IMAGE_LIMITS.perImageBytes + 1,
      parts: IMAGE_LIMITS.count + TEXT_FIELDS.size + 1,
    },
  });
  for await (const part of parts) {
    if (part.type === 'field') {
      // An image sent as a plain field has no filename to place it by.
      if (part.fieldname === 'images')
        throw new ApiError(
          'validation_error',
          'images: each image must be sent as a file with its relative path as filename (img/chart.png).',
        );
      if (!TEXT_FIELDS.has(part.fieldname))
        throw new ApiError(
          'validation_error',
          `${part.fieldname}: not a field of a conversion; send ${[...TEXT_FIELDS].join(', ')} and images.`,
        );
      if (part.fieldname in fields) throw new ApiError('validation_error', `${part.fieldname}: sent twice.`);
      if (part.valueTruncated)
        throw new ApiError(
          'payload_too_large',
          `${part.fieldname} is larger than ${MARKDOWN_BYTES / (1024 * 1024)} MiB.`,
        );
      fields[part.fieldname] = String(part.value);
      continue;
    }
    if (part.fieldname === 'markdown') {
      if ('markdown' in fields) throw new ApiError('validation_error', 'markdown: sent twice.');
      const bytes = await readPart(part.file, MARKDOWN_BYTES, 'markdown');
      fields.markdown = new TextDecoder('utf-8').decode(bytes);
      markdownName = part.filename;
      continue;
    }
    const citationLimit = CITATION_FILES[part.fieldname];
    if (citationLimit !== undefined) {
      if (part.fieldname in fields) throw new ApiError('validation_error', `${part.fieldname}: sent twice.`);
      const bytes = await readPart(part.file, citationLimit, part.fieldname);
      fields[part.fieldname] = new TextDecoder('utf-8').decode(bytes);
      if (part.fieldname === 'bibliography') bibliographyName = part.filename;
      continue;
    }
    if (part.fieldname !== 'images')
      throw new ApiError(
        'validation_error',
        `${part.fieldname}: unexpected file field; send image files as "images" (and a bibliography or csl file by its own name).`,
      );
    const target = imageTarget(part.filename);
    if (target.kind !== 'local')
      throw new ApiError(
        'validation_error',
        `images: "${part.filename}" is not a path inside the markdown's folder; name each image by its relative path (img/chart.png).`,
      );
    if (!IMAGE_TYPES.has(part.mimetype.toLowerCase()))
      throw new ApiError(
        'validation_error',
        `images: ${target.path} is ${part.mimetype}, not a PNG, JPEG, GIF or SVG image.`,
      );
    if (images.has(target.path)) throw new ApiError('validation_error', `images: ${target.path} was sent twice.`);
    if (images.size >= IMAGE_LIMITS.count)
      throw new ApiError('payload_too_large', `images: more than ${IMAGE_LIMITS.count} image files.`);
    const bytes = await readPart(part.file, IMAGE_LIMITS.perImageBytes, `images: ${target.path}`);
    total += bytes.byteLength;
    if (total > IMAGE_LIMITS.totalBytes)
      throw new ApiError(
        'payload_too_large',
        `images: all images together are larger than ${IMAGE_LIMITS.totalBytes / (1024 * 1024)} MiB.`,
      );
    images.set(target.path, bytes);
  }
  // A bibliography file's extension tells its format, unless the request says it.
  const format = bibliographyName === undefined ? undefined : formatOfPath(bibliographyName);
  if (!('bibliography_format' in fields) && format !== undefined) fields.bibliography_format = format;
  // A markdown file sent without a `filename` names the document after itself (report.md → report.docx), as the app does.
  const stem = stemOf(markdownName);
  if (!('filename' in fields) && stem !== undefined) fields.filename = stem;
  const out: Record<string, string | boolean> = fields;
  const flag = fields.number_sections;
  if (flag === 'true' || flag === 'false') out.number_sections = flag === 'true';
  return { fields: out, images };
}
