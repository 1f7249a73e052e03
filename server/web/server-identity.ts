import { isIP } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { checkServerIdentity as nodeCheckServerIdentity, type PeerCertificate } from 'node:tls';

/**
 * tls.checkServerIdentity, except that an IP address is matched against the certificate's IP SANs by OpenSSL
 * (X509Certificate.checkIP): Node 22.23.1+ and 24.17+ (the CVE-2026-48618 releases) fail every IPv6 host, since they
 * run it through domainToASCII first (nodejs/node#64144, fixed by #64145), and Docwright runs on such a Node.
 */
export function checkServerIdentity(host: string, cert: PeerCertificate): Error | undefined {
  const address = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(address) === 0) return nodeCheckServerIdentity(host, cert);
  if (new X509Certificate(cert.raw).checkIP(address) !== undefined) return undefined;
  return Object.assign(
    new Error(
      `Hostname/IP does not match certificate's altnames: IP: ${address} is not in the cert's list: ${cert.subjectaltname ?? ''}`,
    ),
    {
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      reason: `IP: ${address} is not in the cert's list`,
      host,
      cert,
    },
  );
}
