import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CertificateFiles } from '../store/data-folder.ts';
import { hostName, ServeError } from './listen.ts';

export interface TlsMaterial {
  cert: string;
  key: string;
  certPath: string;
  /** SHA-256 fingerprint of the certificate, as `AB:CD:…`. */
  fingerprint: string;
}

/**
 * The server's certificate for localhost, 127.0.0.1 and ::1: generated on first start (EC P-256, valid 825 days)
 * and kept; regenerated only when missing, unreadable or expiring within 30 days.
 */
export async function loadOrCreateCertificate(files: CertificateFiles, now = new Date()): Promise<TlsMaterial> {
  const stored = files.read();
  if (stored) {
    try {
      const x509 = new X509Certificate(stored.cert);
      if (Date.parse(x509.validTo) - now.getTime() > 30 * 86_400_000)
        return { ...stored, certPath: files.certPath, fingerprint: x509.fingerprint256 };
    } catch {
      // Unreadable: made anew below.
    }
  }
  const notAfter = new Date(now.getTime() + 825 * 86_400_000);
  // Loaded only to make one: its X.509 and ASN.1 libraries are ~10 MB of a server's memory at rest.
  // (A CommonJS module: its exports are the default export both in Node and in the bundle's chunk.)
  const { generate } = (await import('selfsigned')).default;
  const pems = await generate(
    [
      { name: 'commonName', value: 'localhost' },
      { name: 'organizationName', value: 'Docwright (this computer)' },
    ],
    {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notBeforeDate: new Date(now.getTime() - 60_000),
      notAfterDate: notAfter,
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    },
  );
  await files.write(pems.cert, pems.private);
  return {
    cert: pems.cert,
    key: pems.private,
    certPath: files.certPath,
    fingerprint: new X509Certificate(pems.cert).fingerprint256,
  };
}

/** The admin's certificate for a team server: what the server serves, the names it is for, and warnings. */
export interface AdminCertificate extends TlsMaterial {
  /** Its subjectAltName host names and IP addresses, lower case, IPv6 in brackets (as in a Host header). */
  names: string[];
  warnings: string[];
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function readPem(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? "permission denied (the server's user must be able to read it)"
          : code === 'EISDIR'
            ? 'it is a directory'
            : (error as Error).message;
    throw new ServeError(`Cannot read the ${what} ${path}: ${why}.`);
  }
}

/** The host names and addresses of a certificate's subjectAltName (`DNS:a, IP Address:b`; quoted when unusual). */
function certificateNames(x509: X509Certificate): string[] {
  const names: string[] = [];
  for (const m of (x509.subjectAltName ?? '').matchAll(/(DNS|IP Address):("(?:[^"\\]|\\.)*"|[^,]*)/g)) {
    const raw = (m[2] ?? '').startsWith('"') ? (JSON.parse(m[2] ?? '""') as string) : (m[2] ?? '');
    const name = raw.startsWith('*.') ? `*.${hostName(raw.slice(2)) ?? ''}` : hostName(raw);
    if (name && name !== '*.') names.push(name);
  }
  return [...new Set(names)];
}

/**
 * Loads and checks the admin's certificate (PEM, the server's first, then any intermediates) and key (PEM,
 * unencrypted): both readable, the key the certificate's, the certificate valid now. Every error names the file.
 */
export function loadAdminCertificate(certFile: string, keyFile: string, now = new Date()): AdminCertificate {
  const certPath = resolve(certFile);
  const keyPath = resolve(keyFile);
  const certText = readPem(certPath, 'certificate (--cert)');
  const keyText = readPem(keyPath, 'key (--key)');
  const blocks = certText.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    const hint = /PRIVATE KEY-----/.test(certText) ? ' (it holds a private key: --cert and --key may be swapped)' : '';
    throw new ServeError(
      `The certificate ${certPath} (--cert) holds no PEM certificate ("-----BEGIN CERTIFICATE-----")${hint}.`,
    );
  }
  const x509s = blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (error) {
      throw new ServeError(
        `The certificate ${certPath} (--cert) is not readable: certificate ${i + 1} does not parse (${(error as Error).message}).`,
      );
    }
  });
  const [leaf] = x509s;
  if (!leaf) throw new ServeError(`The certificate ${certPath} (--cert) holds no certificate.`);
  let key: KeyObject;
  try {
    key = createPrivateKey(keyText);
  } catch (error) {
    const encrypted = /ENCRYPTED/.test(keyText) || /passphrase/i.test((error as Error).message);
    throw new ServeError(
      encrypted
        ? `The key ${keyPath} (--key) is encrypted with a passphrase; give the server an unencrypted key, readable only by its user (chmod 600).`
        : `The key ${keyPath} (--key) is not a PEM private key (${(error as Error).message}).`,
    );
  }
  if (!leaf.checkPrivateKey(key)) {
    throw new ServeError(
      `The key ${keyPath} (--key) does not belong to the certificate ${certPath} (--cert): their public keys differ.`,
    );
  }
  if (Date.parse(leaf.validTo) <= now.getTime()) {
    throw new ServeError(
      `The certificate ${certPath} (--cert) expired on ${new Date(leaf.validTo).toISOString()}; renew it and restart.`,
    );
  }
  if (Date.parse(leaf.validFrom) > now.getTime()) {
    throw new ServeError(
      `The certificate ${certPath} (--cert) is not valid before ${new Date(leaf.validFrom).toISOString()}; check this computer's clock.`,
    );
  }
  const warnings: string[] = [];
  if (Date.parse(leaf.validTo) - now.getTime() < 30 * 86_400_000)
    warnings.push(`The certificate ${certPath} expires on ${new Date(leaf.validTo).toISOString()}; renew it soon.`);
  // Group-readable is the usual set-up (root:docwright 0640); readable by everyone is not.
  if (process.platform !== 'win32' && (statSync(keyPath).mode & 0o004) !== 0)
    warnings.push(
      `The key ${keyPath} is readable by every user of this computer; chmod o-r it (0600, or 0640 for the server's group).`,
    );
  const names = certificateNames(leaf);
  if (!names.some((n) => !n.startsWith('['))) {
    warnings.push(
      `The certificate ${certPath} names no host (no subjectAltName DNS entry); browsers and HTTP clients will refuse it for a host name.`,
    );
  }
  const wildcards = names.filter((n) => n.startsWith('*.'));
  if (wildcards.length)
    warnings.push(
      `The certificate's wildcard names (${wildcards.join(', ')}) are not accepted as Host headers by themselves; name the hosts clients use with --public-host.`,
    );
  return { cert: `${blocks.join('\n')}\n`, key: keyText, certPath, fingerprint: leaf.fingerprint256, names, warnings };
}
