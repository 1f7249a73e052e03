import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SECRETS: Array<[RegExp, string]> = [
  // Tokens in URLs, e.g. the one-launch session link and the session id in its redirect's fragment.
  [/([?&#](?:token|key|secret|session)=)[^&#\s"']+/gi, '$1[redacted]'],
  // API keys.
  [/\bdw_[A-Za-z0-9]{6,}/g, 'dw_[redacted]'],
  // Credentials in headers, however they are printed.
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, '$1 [redacted]'],
  [
    /\b(authorization|x-docwright-admin|x-docwright-session|cookie|set-cookie|dw_session(?:_\d+)?)(["']?\s*[:=]\s*["']?)[^\s"',;}]+/gi,
    '$1$2[redacted]',
  ],
];

/** A log message without secrets: URL tokens, API keys, Authorization values, session ids, the admin token. */
export function redact(message: string): string {
  let text = message;
  for (const [pattern, replacement] of SECRETS) text = text.replace(pattern, replacement);
  return text;
}

/** One line of the log file: time, level, message (redacted, on one line). */
export function logLine(level: 'info' | 'warn' | 'error', message: string, now: Date): string {
  return `${now.toISOString()} ${level.toUpperCase().padEnd(5)} ${redact(message).replace(/\r?\n/g, ' | ')}\n`;
}

/** Describes an error for the log (its stack when it has one). */
export function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
}

/** The app's log file, `docwright.log` in the OS's log folder, rotated to `docwright.log.1` past 5 MB. */
export class FileLog {
  readonly path: string;

  constructor(
    dir: string,
    private readonly maxBytes = 5 * 1024 * 1024,
    private readonly now: () => Date = () => new Date(),
  ) {
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, 'docwright.log');
  }

  info(message: string): void {
    this.write('info', message);
  }

  warn(message: string): void {
    this.write('warn', message);
  }

  error(message: string, error?: unknown): void {
    this.write('error', error === undefined ? message : `${message}: ${describeError(error)}`);
  }

  private write(level: 'info' | 'warn' | 'error', message: string): void {
    try {
      if ((statSync(this.path, { throwIfNoEntry: false })?.size ?? 0) > this.maxBytes)
        renameSync(this.path, `${this.path}.1`);
      appendFileSync(this.path, logLine(level, message, this.now()), { mode: 0o600 });
    } catch {
      // Logging must never take the app down.
    }
  }
}
