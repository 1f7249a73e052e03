// A body over its limit gets its 413, and the client gets to read it (docs/security.md, "Bodies over the limit").
// Closing a connection while the client still sends makes the kernel reset it, and the reset discards the answer
// before the client reads it; so a refused body is never asked for (no 100 Continue) when its declared length is
// already too large, and when it comes anyway the connection is closed the way servers do it (a lingering close).
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

/**
 * The lingering close after an error (a 413, a 401…) sent before the body's end: the rest of the body is read and thrown away until it
 * ends or the client closes, for `ms` and `bytes` at most; then the connection is closed whatever the client does.
 */
export const LINGER = { ms: 2_000, bytes: 16 * 1024 * 1024 } as const;

/** Room in a multipart body for what is not its files: the text fields, part heads and boundaries (4 MiB). */
export const FORM_ALLOWANCE = 4 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Largest multipart body the route takes, and what that is, for the 413's message (see `upload`). */
    upload?: { bytes: number; what: string };
  }
}

/** A route's multipart limit: its files' limits (`fileBytes`) and FORM_ALLOWANCE; `what` names them for the 413. */
export function upload(fileBytes: number, what: string): { bytes: number; what: string } {
  return { bytes: fileBytes + FORM_ALLOWANCE, what };
}

const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));

/** Requests whose client waits for 100 Continue, not sent yet. */
const awaitingContinue = new WeakSet<IncomingMessage>();
/** Connections being closed after a refused body: nothing more on them is served (RFC 9112 §9.6). */
const closing = new WeakSet<Socket>();

/**
 * Installs the limits' transport side. `Expect: 100-continue`: Node would answer 100 Continue at once; instead the
 * request passes the guards and authentication first, and its body is asked for only when it is about to be read
 * and its declared length is within the route's limit; otherwise the 413 goes out and the body is never sent.
 * Any request with a declared length over the limit is refused there, before a byte of its body is read.
 */
export function installBodyLimits(app: FastifyInstance): void {
  app.server.on('checkContinue', (req: IncomingMessage, res) => {
    awaitingContinue.add(req);
    app.server.emit('request', req, res);
  });
  app.addHook('onRequest', async (request, reply) => {
    // A request sent behind a refused body (pipelined) is never served: its connection is closing.
    if (closing.has(request.raw.socket)) reply.hijack();
  });
  app.addHook('preParsing', async (request, reply, payload) => {
    const declared = Number(request.headers['content-length']);
    // By its header: the multipart plugin marks a request as multipart only once its parser runs, after this hook.
    const type = request.headers['content-type']?.trimStart().toLowerCase() ?? '';
    const multipart = type.startsWith('multipart/form-data') ? request.routeOptions.config.upload : undefined;
    const limit = multipart?.bytes ?? request.routeOptions.bodyLimit;
    if (declared > limit) {
      throw new ApiError(
        'payload_too_large',
        multipart
          ? `The request body (${mb(declared)} MB) is larger than the ${mb(limit)} MB ${multipart.what} may have.`
          : `The request body (${mb(declared)} MB) is larger than the ${mb(limit)} MB of JSON this request may have.`,
      );
    }
    // The multipart plugin reads the request itself (not `payload`), past any bodyLimit, and what busboy throws away
    // (a preamble, an epilogue, a field past fieldSize) counts against no limit of its own: counted here.
    if (multipart) countBody(request.raw, multipart);
    if (awaitingContinue.delete(request.raw)) reply.raw.writeContinue();
    return payload;
  });
}

/**
 * Counts a multipart body as it is read; past the route's limit the read fails with `payload_too_large`. The
 * plugin ends its parts on an error of the request stream, which is raised without destroying the stream (that
 * would reset the connection before the 413 is read). The count waits for the plugin to read: no data is lost.
 */
function countBody(raw: IncomingMessage, limit: { bytes: number; what: string }): void {
  let read = 0;
  const count = (chunk: Buffer) => {
    read += chunk.byteLength;
    if (read <= limit.bytes) return;
    raw.off('data', count);
    const message = `The request body is larger than the ${mb(limit.bytes)} MB ${limit.what} may have.`;
    if (raw.listenerCount('error') > 0) raw.emit('error', new ApiError('payload_too_large', message));
  };
  raw.on('data', count);
  raw.pause();
}

/**
 * Answers an error (a 413, or a 401, 403, 404… sent before the body was read) whose request body is still arriving
 * with a lingering close, and returns true; false where the body has all arrived or there is none (the connection
 * then stays as it is) or for a request without a real connection (`inject`).
 * The answer goes out with `Connection: close` and the server's half of the connection is closed after it (so the
 * client, RFC 9112 §9.6, stops sending); the rest of the body is read and dropped until it ends or the client closes,
 * for LINGER.ms and LINGER.bytes at most, and only then is the connection closed.
 */
export function answerWithLinger(reply: FastifyReply, status: number, body: string): boolean {
  const request: FastifyRequest = reply.request;
  const raw = request.raw;
  const socket = raw.socket as Socket | null;
  const hasBody = raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length']) > 0;
  if (raw.complete || !hasBody || !(socket instanceof Socket)) return false;
  reply.raw.statusCode = status; // as the request log shows it
  reply.hijack();
  if (!socket.destroyed) {
    socket.end(`${responseHead(status, reply.getHeaders(), Buffer.byteLength(body))}${body}`);
    linger(raw, socket);
  }
  return true;
}

/** An HTTP/1.1 response head: the reply's headers, the JSON body's, `Connection: close`. */
function responseHead(
  status: number,
  headers: Record<string, string | number | string[] | undefined>,
  length: number,
): string {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, `Date: ${new Date().toUTCString()}`];
  const own = new Set(['connection', 'content-length', 'content-type', 'transfer-encoding', 'keep-alive', 'date']);
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || own.has(name.toLowerCase())) continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(v)}`);
  }
  lines.push('Content-Type: application/json; charset=utf-8', `Content-Length: ${length}`, 'Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Reads the rest of the body and drops it, until it ends, the client closes or a bound of LINGER is reached. */
function linger(raw: IncomingMessage, socket: Socket): void {
  closing.add(socket);
  const close = () => socket.destroy();
  const timer = setTimeout(close, LINGER.ms);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  let read = 0;
  raw.unpipe();
  raw.on('data', (chunk: Buffer) => {
    read += chunk.byteLength;
    if (read > LINGER.bytes) close();
  });
  raw.resume();
}
