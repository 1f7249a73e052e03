// A client that opens a connection and never finishes its TLS handshake (or never starts it) is cut off once
// `handshakeTimeout` has passed: the socket is destroyed, never answered in plain text. A plain-text 400 written onto
// a socket whose handshake never finished can never be flushed, so `destroySoon()` waited for ever and every such
// connection held a file descriptor (and kept a SIGTERM'd server from ending) until the process had none left.
// Here on a real HTTPS socket with the timeout shortened to 1 s; TIMEOUTS.handshakeTimeout is 10 s.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { TIMEOUTS } from '../../server/http/hardening.ts';
import { loadOrCreateCertificate } from '../../server/http/tls.ts';
import { dataFolder } from '../../server/store/data-folder.ts';
import { Store } from '../../server/store/store.ts';

const HANDSHAKE_TIMEOUT = 1_000;
const dir = mkdtempSync(join(tmpdir(), 'dw-handshake-'));
let store: Store;
let app: Awaited<ReturnType<typeof buildApp>>;
let port = 0;

beforeAll(async () => {
  store = await Store.open(join(dir, 'data'));
  const tls = await loadOrCreateCertificate(dataFolder(join(dir, 'tls')).certificate);
  app = await buildApp({
    store,
    secret: randomBytes(32),
    adminToken: 'admin',
    https: true,
    httpsOptions: { cert: tls.cert, key: tls.key },
    timeouts: { handshakeTimeout: HANDSHAKE_TIMEOUT },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
});

afterAll(async () => {
  await app?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Opens a raw TCP connection, sends `bytes`, and resolves with when the server closed it (or null after `waitMs`). */
async function closedAfter(bytes: Buffer, waitMs: number): Promise<{ ms: number | null; received: number }> {
  const socket: Socket = connect({ host: '127.0.0.1', port });
  await new Promise((resolve) => socket.once('connect', resolve));
  const started = Date.now();
  let received = 0;
  socket.on('data', (d: Buffer) => (received += d.length));
  socket.on('error', () => undefined);
  if (bytes.length > 0) socket.write(bytes);
  const ms = await Promise.race([
    new Promise<number>((resolve) => socket.once('end', () => resolve(Date.now() - started))),
    new Promise<null>((resolve) => setTimeout(() => resolve(null), waitMs)),
  ]);
  socket.destroy();
  return { ms, received };
}

describe('a TLS handshake that never finishes', () => {
  it('is given 10 s by default', () => {
    expect(TIMEOUTS.handshakeTimeout).toBe(10_000);
  });

  it(`closes a connection that sends nothing once handshakeTimeout has passed (${HANDSHAKE_TIMEOUT / 1000} s here), writing nothing`, async () => {
    const { ms, received } = await closedAfter(Buffer.alloc(0), HANDSHAKE_TIMEOUT + 5_000);
    expect(ms).not.toBeNull();
    expect(ms).toBeGreaterThanOrEqual(HANDSHAKE_TIMEOUT - 200);
    expect(received).toBe(0);
  }, 15_000);

  it('closes a connection that stops halfway through its ClientHello, and one that speaks plain HTTP', async () => {
    // The first bytes of a TLS record announcing a ClientHello of 512 bytes, then silence.
    const half = await closedAfter(
      Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]),
      6_000,
    );
    expect(half.ms).not.toBeNull();
    const plain = await closedAfter(Buffer.from(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`), 6_000);
    expect(plain.ms).not.toBeNull();
  }, 20_000);

  it('leaves the server answering', async () => {
    const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
    const response = await request(`https://127.0.0.1:${port}/api/health`, { dispatcher });
    expect(response.statusCode).toBe(200);
    await response.body.text();
    await dispatcher.close();
  });
});
