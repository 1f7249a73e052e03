import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { writeFileAtomic } from '../store/files.ts';

export interface TlsMaterial {
  cert: string;
  key: string;
  certPath: string;
  /** SHA-256 fingerprint of the certificate, as `AB:CD:…`. */
  fingerprint: string;
}

/** Certificate paths inside a data directory's tls/ folder. */
export function tlsPaths(tlsDir: string) {
  return { cert: join(tlsDir, 'localhost-cert.pem'), key: join(tlsDir, 'localhost-key.pem') };
}

/**
 * The server's certificate for localhost, 127.0.0.1 and ::1: generated on first start (EC P-256, valid 825 days)
 * and kept; regenerated only when missing, unreadable or expiring within 30 days.
 */
export async function loadOrCreateCertificate(tlsDir: string, now = new Date()): Promise<TlsMaterial> {
  const paths = tlsPaths(tlsDir);
  if (existsSync(paths.cert) && existsSync(paths.key)) {
    try {
      const cert = readFileSync(paths.cert, 'utf8');
      const key = readFileSync(paths.key, 'utf8');
      const x509 = new X509Certificate(cert);
      if (Date.parse(x509.validTo) - now.getTime() > 30 * 86_400_000) return { cert, key, certPath: paths.cert, fingerprint: x509.fingerprint256 };
    } catch {
      // Unreadable: made anew below.
    }
  }
  mkdirSync(tlsDir, { recursive: true, mode: 0o700 });
  const notAfter = new Date(now.getTime() + 825 * 86_400_000);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }, { name: 'organizationName', value: 'Docwright (this computer)' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  await writeFileAtomic(paths.key, pems.private, 0o600);
  await writeFileAtomic(paths.cert, pems.cert, 0o644);
  return { cert: pems.cert, key: pems.private, certPath: paths.cert, fingerprint: new X509Certificate(pems.cert).fingerprint256 };
}
