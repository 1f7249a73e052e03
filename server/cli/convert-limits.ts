// The limits of `docwright convert` (--time-limit, --memory-limit): parsed here, without loading the pool or the
// engine, so a conversion through the daemon starts as fast as before (server/cli/convert-bounded.ts applies them).
import { InvalidArgumentError } from 'commander';

/** The limits the user gave; absent: the server's (DOCWRIGHT_CONVERT_TIMEOUT_MS / _MEMORY_MB, else 30 s, 1024 MB). */
export interface ConvertLimits {
  timeoutMs?: number;
  memoryMb?: number;
}

/** The largest limits the flags take: a day of CPU, and 64 GB (V8's heap cannot grow past the machine's anyway). */
const MAX_SECONDS = 24 * 60 * 60;
const MAX_MB = 64 * 1024;

/** The smallest --time-limit: below it a worker's start alone would exceed it, and a typo (1e-9) is no limit. */
const MIN_SECONDS = 0.1;

/** Parses --time-limit SECONDS (from 0.1, fractions allowed) to ms. */
export function parseTimeLimit(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS)
    throw new InvalidArgumentError(`must be a number of seconds from ${String(MIN_SECONDS)} to ${String(MAX_SECONDS)}`);
  return Math.ceil(seconds * 1000);
}

/** Parses --memory-limit MB (a whole number of at least 16, the pool's smallest). */
export function parseMemoryLimit(value: string): number {
  const mb = Number(value);
  if (!/^\d+$/.test(value.trim()) || mb < 16 || mb > MAX_MB)
    throw new InvalidArgumentError(`must be a whole number of MB from 16 to ${String(MAX_MB)}`);
  return mb;
}
