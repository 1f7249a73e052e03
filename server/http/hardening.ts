import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { ApiError, envelope, ERRORS, type ErrorCode } from '../errors.ts';

/**
 * Timeouts of the HTTP(S) server. Slow clients (slowloris: headers dribbled a byte at a time; a body dribbled the
 * same way) are cut off with 408 instead of holding a connection for ever; Node checks them every second.
 */
export const TIMEOUTS = {
  /** Whole request head. Clients on this computer send theirs in well under a millisecond. */
  headersTimeout: 10_000,
  /** Whole request, head and body: generous, for a 50 MB template sent to a team server over a slow network. */
  requestTimeout: 120_000,
  /** A connection with no traffic at all. */
  connectionTimeout: 30_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
  /** A TLS handshake (Node's default is 120 s): a client on this computer finishes it in milliseconds. */
  handshakeTimeout: 10_000,
} as const;

/** The timeouts a server uses: TIMEOUTS, some shortened in tests (a slow body cut off in 2 s, not 120). */
export type Timeouts = { [K in keyof typeof TIMEOUTS]: number };

/** Largest request head (Node's default, stated): more gets 431. */
export const MAX_HEADER_SIZE = 16 * 1024;

/** Options of Node's http/https server (Fastify passes them to `createServer`). */
export function nodeServerOptions(timeouts: Timeouts = TIMEOUTS) {
  return {
    headersTimeout: timeouts.headersTimeout,
    requestTimeout: timeouts.requestTimeout,
    connectionsCheckingInterval: timeouts.connectionsCheckingInterval,
    maxHeaderSize: MAX_HEADER_SIZE,
    // llhttp stays strict: no lenient header parsing, so smuggling attempts are refused, never guessed at.
    insecureHTTPParser: false,
    requireHostHeader: true,
    handshakeTimeout: timeouts.handshakeTimeout,
  };
}

/** Fastify's own server options for the same limits. */
export function fastifyServerOptions(timeouts: Timeouts = TIMEOUTS) {
  return {
    requestTimeout: timeouts.requestTimeout,
    connectionTimeout: timeouts.connectionTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    clientErrorHandler: clientErrorHandler(timeouts),
  };
}

/** How long an error answer may take to reach the client before its connection is destroyed anyway. */
const ANSWER_FLUSH_MS = 2_000;

/**
 * Requests Node refuses before Fastify sees them (malformed heads, smuggling attempts, oversized heads, timeouts):
 * the error envelope too, then the connection is closed so nothing after the bad request is ever read. A TLS
 * connection whose handshake failed or never finished (ERR_TLS_*, ERR_SSL_*: a silent client, plain HTTP sent to
 * the HTTPS port) is destroyed at once: nothing written on it could ever be flushed, and waiting for that kept the
 * socket open for good. Any other connection is destroyed too if its answer is not out within ANSWER_FLUSH_MS.
 */
const clientErrorHandler =
  (timeouts: Timeouts) =>
  (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (error.code?.startsWith('ERR_TLS_') || error.code?.startsWith('ERR_SSL_')) {
      socket.destroy();
      return;
    }
    let code: ErrorCode = 'bad_request';
    let message = 'Malformed HTTP request.';
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      code = 'request_timeout';
      message = `The request was not received in time (head within ${timeouts.headersTimeout / 1000} s, whole request within ${timeouts.requestTimeout / 1000} s).`;
    } else if (error.code === 'HPE_HEADER_OVERFLOW') {
      code = 'headers_too_large';
      message = `The request head is larger than ${MAX_HEADER_SIZE / 1024} KB.`;
    }
    const status = ERRORS[code].status;
    const body = JSON.stringify(envelope(code, message));
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroySoon();
    setTimeout(() => socket.destroy(), ANSWER_FLUSH_MS).unref();
  };

/** A URL as logged: the query's values are dropped (the session link carries its token there). */
export function loggedUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const names = url
    .slice(at + 1)
    .split('&')
    .map((pair) => pair.split('=')[0])
    .filter(Boolean);
  return `${url.slice(0, at)}?${names.map((n) => `${String(n)}=[redacted]`).join('&')}`;
}

/**
 * Logger options: requests are logged without their headers (so never `Authorization`, the session cookie or the
 * CLI's admin token) and without query values; the headers are redacted too, should anything log them.
 */
export function loggerOptions() {
  return {
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-docwright-admin"]',
        'req.headers["x-docwright-session"]',
        'headers.authorization',
        'headers.cookie',
        'headers["x-docwright-admin"]',
        'headers["x-docwright-session"]',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: loggedUrl(request.url),
        remoteAddress: request.ip,
      }),
    },
  };
}

/** Multipart bodies are for the upload routes (those whose schema consumes it); anywhere else they get 415. */
export async function refuseStrayMultipart(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) return;
  const consumes = (request.routeOptions.schema as { consumes?: string[] } | undefined)?.consumes;
  if (!consumes?.includes('multipart/form-data')) {
    throw new ApiError(
      'unsupported_media_type',
      `Content-Type ${request.headers['content-type'] ?? ''} is not accepted here; send application/json.`,
    );
  }
}
