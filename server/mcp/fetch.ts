import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { PeerCertificate } from 'node:tls';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { checkServerIdentity } from '../web/server-identity.ts';

/** The certificate a local Docwright server presents: its PEM (trusted as the only CA) and SHA-256 fingerprint. */
export interface PinnedCertificate {
  ca: string;
  /** `AB:CD:…`, as the discovery file holds it. */
  fingerprint: string | null;
}

/**
 * A `fetch` for the MCP client transport that trusts exactly the running server's self-signed certificate (and,
 * when known, checks its fingerprint), over keep-alive connections. Node's global fetch cannot be given a CA
 * without undici's own Agent, which is not a dependency of the product.
 */
export function pinnedFetch(certificate: PinnedCertificate | undefined): { fetch: FetchLike; close: () => void } {
  const plainAgent = new HttpAgent({ keepAlive: true });
  const agent = certificate
    ? new HttpsAgent({
        keepAlive: true,
        ca: certificate.ca,
        // A team server's certificate comes from the admin's CA and need not name 127.0.0.1: trusted as itself, pinned.
        allowPartialTrustChain: true,
        checkServerIdentity: (host: string, cert: PeerCertificate) => {
          if (certificate.fingerprint && cert.fingerprint256 !== certificate.fingerprint) {
            return new Error(
              `the server's certificate (${cert.fingerprint256}) is not the one of the running Docwright (${certificate.fingerprint})`,
            );
          }
          return certificate.fingerprint ? undefined : checkServerIdentity(host, cert);
        },
      })
    : undefined;
  const fetch: FetchLike = (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(String(input));
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, name) => {
        headers[name] = value;
      });
      const body = init?.body;
      if (body !== undefined && body !== null && typeof body !== 'string') {
        reject(new TypeError('pinnedFetch sends string bodies only'));
        return;
      }
      const options = { method: init?.method ?? 'GET', headers, ...(init?.signal ? { signal: init.signal } : {}) };
      const onResponse = (res: IncomingMessage) => {
        const responseHeaders = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
          responseHeaders.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
        const status = res.statusCode ?? 500;
        const empty = status === 204 || status === 205 || status === 304 || init?.method === 'HEAD';
        if (empty) res.resume();
        resolve(
          new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
            status,
            statusText: res.statusMessage ?? '',
            headers: responseHeaders,
          }),
        );
      };
      const req =
        url.protocol === 'https:'
          ? httpsRequest(url, { ...options, ...(agent ? { agent } : {}) }, onResponse)
          : httpRequest(url, { ...options, agent: plainAgent }, onResponse);
      req.on('error', reject);
      req.end(body ?? undefined);
    });
  return {
    fetch,
    close: () => {
      agent?.destroy();
      plainAgent.destroy();
    },
  };
}
