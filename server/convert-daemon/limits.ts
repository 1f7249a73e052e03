// The conversion daemon's bounds (docs/cli.md, "The conversion daemon").
import { DAEMON_MARKDOWN_BYTES } from '../../bin/convert-flags.mjs';
import { MAPPING_LIMIT, TEMPLATE_LIMIT } from '../limits.ts';

export const PROTOCOL_VERSION = 1;

/**
 * Larger markdown is converted in the command line's own process, which has no heap or time limit: the daemon's
 * worker has the server's (1 GB of heap; a 5.8 MB document needs about 1.2 GB), so it would fail on it after working
 * on it for half a minute and the command line would start again.
 */
export const MAX_MARKDOWN_BYTES = DAEMON_MARKDOWN_BYTES;

/** The longest a conversion may take in the daemon, in ms of its thread's CPU (a 4 MB document: about 10 s). */
export const DAEMON_TIMEOUT_MS = 60_000;

/** How long `convert` waits for the daemon's answer before converting in its own process. */
export const ANSWER_WAIT_MS = 2 * DAEMON_TIMEOUT_MS;

/** How long `daemon status` and `daemon stop` wait for an answer. */
export const ASK_WAIT_MS = 5_000;

/** What the daemon reads of a request: a header with a mapping, the markdown and a template. */
export const REQUEST_LIMITS = {
  header: MAPPING_LIMIT + 64 * 1024,
  payload: MAX_MARKDOWN_BYTES + TEMPLATE_LIMIT,
  idleMs: 10_000,
};

/** The longest a whole request may take to arrive. */
export const REQUEST_DEADLINE_MS = 30_000;

/** What a client reads of an answer: the header with warnings and counts, and the document. */
export const ANSWER_LIMITS = {
  header: 16 * 1024 * 1024,
  payload: 1024 * 1024 * 1024,
  // A conversion may run for a minute: the wait is bounded by ANSWER_WAIT_MS.
  idleMs: 0,
};
