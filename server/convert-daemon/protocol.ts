// One request and one answer per connection, each a frame: a 4-byte big-endian length, that many bytes of JSON (the
// header, which gives the lengths of the byte payloads), then the payloads one after the other.
import type { Socket } from 'node:net';

export interface Frame {
  header: Record<string, unknown>;
  payloads: Buffer[];
}

export interface FrameLimits {
  /** Most bytes of JSON header accepted. */
  header: number;
  /** Most bytes of payloads accepted, all together. */
  payload: number;
  /** Longest wait for the next bytes of a frame, in ms. */
  idleMs: number;
}

export class FrameError extends Error {
  override name = 'FrameError';
}

/** The buffers to write for a frame of HEADER (its `lengths` set from PAYLOADS) and PAYLOADS. */
export function encodeFrame(header: Record<string, unknown>, payloads: readonly Uint8Array[] = []): Buffer[] {
  const json = Buffer.from(JSON.stringify({ ...header, lengths: payloads.map((p) => p.byteLength) }), 'utf8');
  const size = Buffer.alloc(4);
  size.writeUInt32BE(json.byteLength);
  return [size, json, ...payloads.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))];
}

/** Writes a frame and ends the writing side. */
export function writeFrame(
  socket: Socket,
  header: Record<string, unknown>,
  payloads: readonly Uint8Array[] = [],
): void {
  const parts = encodeFrame(header, payloads);
  socket.cork();
  for (const part of parts) socket.write(part);
  socket.uncork();
  socket.end();
}

/**
 * Reads one frame from SOCKET within LIMITS; FrameError for anything else (too large, malformed, cut off, idle).
 * CHECK sees the header as soon as it is read, before any payload is taken in: its error rejects the frame.
 */
export function readFrame(
  socket: Socket,
  limits: FrameLimits,
  check?: (header: Record<string, unknown>) => Error | undefined,
): Promise<Frame> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let headerLength: number | undefined;
    let header: Record<string, unknown> | undefined;
    let lengths: number[] = [];
    let needed = 4;
    const done = (error?: Error, frame?: Frame): void => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
      socket.off('error', onError);
      socket.setTimeout(0);
      socket.off('timeout', onTimeout);
      if (error) reject(error);
      else if (frame) resolve(frame);
    };
    const onError = (error: Error): void => done(new FrameError(`connection failed: ${error.message}`));
    const onEnd = (): void => done(new FrameError('connection closed before the whole frame was received'));
    const onTimeout = (): void => done(new FrameError('no data for too long'));
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      received += chunk.byteLength;
      if (received > 4 + limits.header + limits.payload) return done(new FrameError('frame too large'));
      if (received < needed) return;
      const all = Buffer.concat(chunks, received);
      chunks.length = 0;
      chunks.push(all);
      if (headerLength === undefined) {
        headerLength = all.readUInt32BE(0);
        if (headerLength > limits.header) return done(new FrameError('header too large'));
        needed = 4 + headerLength;
        if (received < needed) return;
      }
      if (header === undefined) {
        try {
          const parsed: unknown = JSON.parse(all.subarray(4, 4 + headerLength).toString('utf8'));
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
          header = parsed as Record<string, unknown>;
        } catch {
          return done(new FrameError('header is not a JSON object'));
        }
        const raw = header.lengths;
        if (
          !Array.isArray(raw) ||
          raw.length > 8 ||
          !raw.every((n): n is number => Number.isSafeInteger(n) && (n as number) >= 0)
        )
          return done(new FrameError('header lengths are invalid'));
        const refused = check?.(header);
        if (refused) return done(refused);
        lengths = raw;
        const total = lengths.reduce((sum, n) => sum + n, 0);
        if (total > limits.payload) return done(new FrameError('payload too large'));
        needed = 4 + headerLength + total;
      }
      if (received > needed) return done(new FrameError('more bytes than the frame holds'));
      if (received < needed) return;
      const payloads: Buffer[] = [];
      let at = 4 + headerLength;
      for (const length of lengths) {
        payloads.push(all.subarray(at, at + length));
        at += length;
      }
      done(undefined, { header, payloads });
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    socket.on('error', onError);
    socket.setTimeout(limits.idleMs);
    socket.on('timeout', onTimeout);
  });
}
