// HTTP/1.1 over a raw socket: the request target goes out exactly as written (no client normalises `//`, `/./`,
// percent-encoding or an absolute-form target), optionally from a chosen loopback source address.
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawRequest {
  port: number;
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Source address of the client socket, e.g. 127.0.0.7. */
  localAddress?: string;
  /** Server address (default 127.0.0.1). */
  host?: string;
}

/** Sends one request (Connection: close) and reads the whole answer. */
export function rawRequest(request: RawRequest): Promise<RawResponse> {
  const host = request.host ?? '127.0.0.1';
  const body =
    request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body);
  const headers: Record<string, string> = { host: `${host}:${request.port}`, connection: 'close', ...request.headers };
  if (body) headers['content-length'] = String(body.length);
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect({
      host,
      port: request.port,
      ...(request.localAddress ? { localAddress: request.localAddress } : {}),
    });
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${request.method} ${request.target}`)));
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const headText = split < 0 ? text : text.slice(0, split);
      const [statusLine = '', ...lines] = headText.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const parsed: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) parsed[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status,
        headers: parsed,
        body: split < 0 ? '' : Buffer.from(text.slice(split + 4), 'latin1').toString('utf8'),
      });
    });
    socket.write(head);
    if (body) socket.write(body);
  });
}
