// The conversion daemon's bounds (docs/cli.md, "The conversion daemon").
import { MAPPING_LIMIT, TEMPLATE_LIMIT } from '../limits.ts';

export const PROTOCOL_VERSION = 1;

/** Larger markdown is converted in the command line's own process (it has no limit there). */
export const MAX_MARKDOWN_BYTES = 64 * 1024 * 1024;

/** What the daemon reads of a request: a header with a mapping, the markdown and a template. */
export const REQUEST_LIMITS = {
  header: MAPPING_LIMIT + 64 * 1024,
  payload: MAX_MARKDOWN_BYTES + TEMPLATE_LIMIT,
  idleMs: 30_000,
};

/** What a client reads of an answer: the header with warnings and counts, and the document. */
export const ANSWER_LIMITS = {
  header: 16 * 1024 * 1024,
  payload: 1024 * 1024 * 1024,
  // A conversion may run for minutes: the limit on its time is the daemon's.
  idleMs: 0,
};
