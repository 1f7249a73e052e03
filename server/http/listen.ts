import { isIP } from 'node:net';
import { docwrightCommand } from '../cli/advice.ts';
import { networkInterfaces } from 'node:os';

// Where the server may listen. Loopback (127.0.0.1, localhost, ::1) is the default and needs nothing. Any other
// address (0.0.0.0, ::, one of this machine's addresses) makes Docwright a team server reachable from the network:
// it needs HTTPS, an explicit opt-in (--allow-remote, or the allow_remote policy) and the admin's own certificate
// (the generated one names only localhost, so no other computer could check it).

/** Thrown for a configuration the server refuses to start with. */
export class ServeError extends Error {
  override name = 'ServeError';
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Whether an address to bind stays on this computer: localhost, 127.0.0.0/8, ::1. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** Whether an address means every interface (0.0.0.0 or ::). */
function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '0:0:0:0:0:0:0:0';
}

export interface ListenChoice {
  host: string;
  http: boolean;
  /** The explicit opt-in to listen beyond loopback. */
  allowRemote: boolean;
  /** Whether the admin gave a certificate and key. */
  certificate: boolean;
}

const teamCommand = (): string => docwrightCommand('serve --host 0.0.0.0 --allow-remote --cert CERT.pem --key KEY.pem');

/**
 * Refuses an address the server must not listen on, with what to do instead: a host that is no IP address, plain
 * HTTP beyond loopback, a network address without the opt-in or without the admin's certificate.
 */
export function checkListen(choice: ListenChoice): void {
  const { host } = choice;
  if (choice.http && choice.certificate) throw new ServeError('--cert and --key are for HTTPS; leave out --http.');
  if (isLoopback(host)) return;
  if (isIP(host) === 0) {
    throw new ServeError(
      `Refusing to listen on ${host}: the address to listen on (--host, or the host policy) must be an IP address (127.0.0.1, localhost or ::1 for this computer; 0.0.0.0, :: or one of its addresses for a team server).`,
    );
  }
  if (choice.http) {
    throw new ServeError(
      `Refusing to listen on ${host} over plain HTTP: --http is only for this computer (127.0.0.1, localhost, ::1), since API keys and documents would cross the network unencrypted. For a team server use HTTPS with your certificate: ${teamCommand()}.`,
    );
  }
  if (!choice.allowRemote) {
    throw new ServeError(
      `Refusing to listen on ${host}: that makes Docwright reachable from other computers, and by default it serves only this one (127.0.0.1, localhost, ::1). For a team server, opt in with --allow-remote (or the allow_remote policy) and give the certificate clients trust: ${teamCommand()}.`,
    );
  }
  if (!choice.certificate) {
    throw new ServeError(
      `Listening on ${host} needs your certificate for the name clients use (the generated one is only for localhost): --cert CERT.pem --key KEY.pem.`,
    );
  }
}

/** A host name or IP address as it appears in a Host header, lower case, IPv6 in brackets; undefined if neither. */
export function hostName(value: string): string | undefined {
  const v = value
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (isIP(v) === 6) return v.includes('%') ? undefined : new URL(`http://[${v}]/`).hostname;
  if (isIP(v) === 4) return v;
  return /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*\.?$/.test(v)
    ? v.replace(/\.$/, '')
    : undefined;
}

/** Whether a certificate name (possibly `*.example.com`) covers a host name. */
export function nameCovers(certName: string, host: string): boolean {
  if (!certName.startsWith('*.')) return certName === host;
  const dot = host.indexOf('.');
  return dot > 0 && host.slice(dot + 1) === certName.slice(2);
}

/**
 * The names the Host header may carry (the DNS rebinding defence): loopback, the certificate's names (wildcards
 * excepted: a Host must be named exactly), the `--public-host` names, and any address it is bound to.
 */
export function allowedHostNames(options: {
  host: string;
  certificateNames?: string[];
  publicHosts?: string[];
}): string[] {
  const names = new Set(LOOPBACK_NAMES);
  for (const n of options.certificateNames ?? []) if (!n.startsWith('*.')) names.add(n);
  for (const n of options.publicHosts ?? []) names.add(n);
  // The address it listens on answers to its own name, loopback ones too (127.0.0.2, ::1 spelled otherwise).
  if (!isWildcard(options.host)) {
    const bound = hostName(options.host);
    if (bound) names.add(bound);
  }
  return [...names];
}

/** The host part of the URL this computer's own processes (CLI, MCP relay) use to reach the server. */
export function localUrlHost(host: string): string {
  if (host === 'localhost' || host === '0.0.0.0') return '127.0.0.1';
  if (isWildcard(host)) return '[::1]';
  return hostName(host) ?? '127.0.0.1';
}

/** The network addresses a server bound to `host` answers on, besides loopback (for the warning). */
export function reachableAddresses(host: string): string[] {
  if (isLoopback(host)) return [];
  if (!isWildcard(host)) return [hostName(host) ?? host];
  const v4only = host === '0.0.0.0';
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.internal || (v4only && a.family !== 'IPv4')) continue;
      out.push(a.family === 'IPv6' ? `[${a.address}${a.scopeid ? `%${a.scopeid}` : ''}]` : a.address);
    }
  }
  return out;
}

/** The warning a team server prints on start: where it can be reached and what protects it. */
export function networkWarning(host: string, port: number, names: string[]): string {
  const addresses = reachableAddresses(host);
  const named = names.filter((n) => !LOOPBACK_NAMES.includes(n));
  return [
    `Docwright is reachable from the network: listening on ${host.includes(':') ? `[${host}]` : host} port ${port}`,
    addresses.length ? `(addresses: ${addresses.join(', ')})` : '(this machine has no network address right now)',
    named.length
      ? `and answering to ${named.map((n) => `https://${n}:${port}`).join(', ')}.`
      : 'but answering to no network name: give one with --public-host.',
    'Every API call needs an API key; allow the port in the firewall only for the networks that should use it.',
  ].join(' ');
}
