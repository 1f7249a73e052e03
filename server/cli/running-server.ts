import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { PeerCertificate } from 'node:tls';
import { dataFolder } from '../store/data-folder.ts';
import type { Discovery } from '../serve.ts';

/** A running server of this data directory, found through its discovery file, or undefined. */
export function findRunningServer(
  dataDir: string,
): { discovery: Discovery; adminToken: string; ca?: string } | undefined {
  const folder = dataFolder(dataDir);
  try {
    // A discovery file in a folder another user can write may be theirs: never followed (docs/security.md).
    if (folder.untrusted() !== undefined) return undefined;
    const text = folder.readDiscovery();
    if (text === undefined) return undefined;
    const discovery = JSON.parse(text) as Discovery;
    if (folder.lockOwner() !== discovery.pid) return undefined;
    process.kill(discovery.pid, 0);
    const adminToken = folder.readAdminToken();
    const ca = discovery.cert_path ? readFileSync(discovery.cert_path, 'utf8') : undefined;
    return { discovery, adminToken, ...(ca ? { ca } : {}) };
  } catch {
    return undefined;
  }
}

export interface ClientResponse {
  status: number;
  body: unknown;
}

/**
 * Calls the running server as the CLI (admin token), trusting exactly its certificate: the one of the discovery file,
 * pinned by fingerprint. That also covers a team server's certificate from the admin's CA, whose names need not
 * include the loopback address the CLI connects to.
 */
export function callServer(
  server: { discovery: Discovery; adminToken: string; ca?: string },
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<ClientResponse> {
  const url = new URL(path, server.discovery.url);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  // node:http only for a plain-HTTP server, and not as an ESM import: that one runs http's lazy getters, which load
  // Node's fetch (undici) and HTTP/2, ~45 ms of CPU of every `docwright convert` (test/cli-convert-client.test.ts).
  const send = url.protocol === 'https:' ? httpsRequest : process.getBuiltinModule('node:http').request;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method,
        ...(server.ca
          ? { ca: server.ca, allowPartialTrustChain: true, checkServerIdentity: pinned(server.discovery.fingerprint) }
          : {}),
        headers: {
          'x-docwright-admin': server.adminToken,
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            // Not JSON: kept as text.
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`the server did not answer in ${String(Math.round(timeoutMs / 1000))} s`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Accepts exactly the certificate with this SHA-256 fingerprint, whatever name it is for. */
function pinned(fingerprint: string | null): (host: string, cert: PeerCertificate) => Error | undefined {
  return (_host, cert) =>
    fingerprint !== null && cert.fingerprint256 === fingerprint
      ? undefined
      : new Error(
          `the server's certificate (${cert.fingerprint256}) is not the one in its discovery file (${fingerprint ?? 'none'})`,
        );
}
