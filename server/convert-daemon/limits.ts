// The conversion daemon's bounds (docs/cli.md, "The conversion daemon").
import { DAEMON_MARKDOWN_BYTES } from '../../bin/convert-flags.mjs';
import { MAPPING_LIMIT, TEMPLATE_LIMIT } from '../limits.ts';

export const PROTOCOL_VERSION = 1;

/**
 * Larger markdown is converted in the command line's own process (with the same limits, in a worker of its own:
 * server/cli/convert-bounded.ts): kept from the warm daemon, whose one worker serves every command line.
 */
export const MAX_MARKDOWN_BYTES = DAEMON_MARKDOWN_BYTES;

/**
 * How long `convert` waits for the daemon's answer before converting in its own process: four times the default
 * time limit (30 s of the worker's CPU; a 4 MB document takes about 10 s), for a daemon kept from the cores.
 */
export const ANSWER_WAIT_MS = 120_000;

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
