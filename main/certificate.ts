import { X509Certificate } from 'node:crypto';

/** Results of Electron's certificate verify procedure (`session.setCertificateVerifyProc`). */
export const CERTIFICATE = { accept: 0, reject: -2, chromiumDecides: -3 } as const;
export type CertificateVerdict = (typeof CERTIFICATE)[keyof typeof CERTIFICATE];

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function bare(hostname: string): string {
  return hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
}

function normalFingerprint(fingerprint: string): string {
  return fingerprint.replace(/[^0-9a-f]/gi, '').toUpperCase();
}

/** SHA-256 fingerprint (`AB:CD:…`) of a PEM certificate, or undefined when it does not parse. */
export function fingerprintOf(pem: string): string | undefined {
  try {
    return new X509Certificate(pem).fingerprint256;
  } catch {
    return undefined;
  }
}

/**
 * The verdict on a server certificate: on this computer's addresses (127.0.0.1, localhost, ::1) only the local
 * server's own certificate, pinned by its SHA-256 fingerprint, is accepted, whatever else would vouch for one;
 * anywhere else Chromium's own verification decides.
 */
export function certificateVerdict(
  request: { hostname: string; pem: string },
  serverFingerprint: string,
): CertificateVerdict {
  if (!LOOPBACK.has(bare(request.hostname))) return CERTIFICATE.chromiumDecides;
  const presented = fingerprintOf(request.pem);
  if (presented === undefined || normalFingerprint(serverFingerprint) === '') return CERTIFICATE.reject;
  return normalFingerprint(presented) === normalFingerprint(serverFingerprint)
    ? CERTIFICATE.accept
    : CERTIFICATE.reject;
}
