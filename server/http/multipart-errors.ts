// How a multipart body that could not be read is answered, on every route that takes one (a conversion with its
// images, a template upload): our own refusals as they are, the plugin's size limits 413, anything else 400.
import { ApiError } from '../errors.ts';

/** Rethrows what reading a multipart body threw, as the answer it should get. */
export function multipartError(error: unknown): never {
  if (error instanceof ApiError) throw error;
  if ((error as { statusCode?: number }).statusCode === 413) throw error;
  const detail = error instanceof Error ? error.message : String(error);
  throw new ApiError('bad_request', `The multipart body is malformed: ${detail}.`);
}
