import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import packageJson from '../package.json' with { type: 'json' };
import type { FastifyInstance } from 'fastify';
import { loadSecret, type LoadedSecret } from './auth/secret.ts';
import { buildApp } from './app.ts';
import {
  allowedHostNames,
  checkListen,
  hostName,
  localUrlHost,
  nameCovers,
  networkWarning,
  isLoopback,
  ServeError,
} from './http/listen.ts';
import { loadAdminCertificate, loadOrCreateCertificate } from './http/tls.ts';
import { applyPolicy, listenAddress, listenPort, loadPolicy, seedFromPolicy } from './policy/index.ts';
import { dataFolder } from './store/data-folder.ts';
import { docwrightCommand } from './cli/advice.ts';
import { Store } from './store/store.ts';
import type { RenderChildLauncher } from './convert-pool/render-launcher.ts';

export interface ServeOptions {
  dataDir: string;
  /** Port to listen on (default: the `port` setting). 0 picks a free port (tests). */
  port?: number;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Plain HTTP instead of HTTPS; only on loopback. */
  http?: boolean;
  /** Team server: the explicit opt-in to listen beyond loopback (--allow-remote, or the allow_remote policy). */
  allowRemote?: boolean;
  /** The admin's certificate and key (PEM files), served instead of the generated localhost certificate. */
  tlsCert?: string;
  tlsKey?: string;
  /** Host names accepted in the Host header besides loopback and the certificate's names (--public-host). */
  publicHosts?: string[];
  logger?: boolean;
  /** Every start says the key secret's notices, with the keychain's own words (else once per data directory). */
  verbose?: boolean;
  /** How the conversion workers' SVG render children start (default: Node child processes; the desktop app gives
   * Electron's utility processes, main/render-launcher.ts). */
  renderLauncher?: RenderChildLauncher;
}

/** What `docwright status` and other local processes read to find the running server (never a key). */
export interface Discovery {
  url: string;
  host: string;
  port: number;
  pid: number;
  https: boolean;
  fingerprint: string | null;
  cert_path: string | null;
  keychain: 'keychain' | 'file';
  started_at: string;
  version: string;
}

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  discovery: Discovery;
  /** The link that opens the UI with this launch's session: once, within minutes (server/auth/authenticator.ts). */
  uiLink: string;
  /** A fresh session link (the previous one dies), e.g. for a second browser. */
  newUiLink(): string;
  adminToken: string;
  /** A warning to show (e.g. the keychain fallback). */
  warnings: string[];
  /** Closes: answers the requests in flight, then removes the discovery file, admin token, link and lock. */
  close(): Promise<void>;
  /**
   * For a process about to exit without closing (asked to stop again while it closes): removes at once the files a
   * client would find and trust (discovery, admin token, link); the lock names a process that is gone, which the
   * next start sees.
   */
  abandon(): void;
}

export { ServeError };

/**
 * The key secret's warning as a start says it: a notice (the keychain fallback) once per data directory, in words;
 * with `verbose` at every start, with the keychain library's own words. Other warnings at every start.
 */
async function secretWarning(store: Store, secret: LoadedSecret, verbose: boolean): Promise<string | undefined> {
  if (secret.warning === undefined) return undefined;
  if (verbose) return secret.detail ? `${secret.warning} The keychain said: ${secret.detail}.` : secret.warning;
  if (secret.notice === undefined) return secret.warning;
  if (!(await store.firstNotice(secret.notice))) return undefined;
  const why = secret.detail ? `; ${docwrightCommand('serve --verbose')} says why` : '';
  return `${secret.warning} Said once for this data folder${why}.`;
}

/**
 * Starts the server: takes the data directory, loads the key-hashing secret from the keychain, generates or loads
 * the certificate, listens, and writes the discovery file and the CLI's admin token (both removed on close).
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  // The organisation's policy (server/policy/): an invalid file stops the start, naming it and the setting; a
  // locked host/http/allow_remote wins over the options (one that contradicts it is refused), an unlocked one is the default.
  const policy = loadPolicy();
  const { host, http, allowRemote } = listenAddress(policy, options);
  // Team server (server/http/listen.ts): checked, with the admin's certificate, before the data directory is touched.
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined))
    throw new ServeError('--cert and --key go together: give both PEM files.');
  checkListen({ host, http, allowRemote, certificate: options.tlsCert !== undefined });
  const adminCertificate =
    options.tlsCert !== undefined && options.tlsKey !== undefined
      ? loadAdminCertificate(options.tlsCert, options.tlsKey)
      : undefined;
  const publicHosts = (options.publicHosts ?? []).map((name) => {
    const parsed = hostName(name);
    if (!parsed) throw new ServeError(`--public-host ${name} is not a host name or IP address.`);
    return parsed;
  });
  const store = await Store.open(options.dataDir);
  const folder = dataFolder(options.dataDir);
  try {
    applyPolicy(store, policy);
    const seeded = await seedFromPolicy(store, policy);
    const secret = await loadSecret(options.dataDir);
    const keychainWarning = await secretWarning(store, secret, options.verbose ?? false);
    const tls = http ? undefined : (adminCertificate ?? (await loadOrCreateCertificate(folder.certificate)));
    const adminToken = randomBytes(32).toString('base64url');
    const uiToken = randomBytes(32).toString('base64url');
    const port = listenPort(policy, options.port, store.settings().port);
    const hostNames = allowedHostNames({ host, certificateNames: adminCertificate?.names ?? [], publicHosts });
    const app = await buildApp({
      store,
      secret: secret.secret,
      adminToken,
      uiToken,
      allowedHosts: hostNames,
      https: !http,
      policy,
      team: !isLoopback(host),
      logger: options.logger ?? false,
      ...(options.renderLauncher ? { convert: { renderLauncher: options.renderLauncher } } : {}),
      ...(tls
        ? {
            httpsOptions: { cert: tls.cert, key: tls.key },
            certificate: { fingerprint: tls.fingerprint, path: tls.certPath },
          }
        : {}),
    });
    try {
      await app.listen({ host: isIP(host) === 6 ? host : host === 'localhost' ? '127.0.0.1' : host, port });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES') {
        throw new ServeError(
          `Port ${port} is not available (${code}); another program uses it. Choose another: ${docwrightCommand('serve --port N')}, or ${docwrightCommand('config set port N')}.`,
        );
      }
      if (code === 'EADDRNOTAVAIL')
        throw new ServeError(
          `Cannot listen on ${host}: it is not an address of this computer (see ip address); use 0.0.0.0 for all of them.`,
        );
      throw error;
    }
    const address = app.server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    const urlHost = localUrlHost(host);
    const url = `${tls ? 'https' : 'http'}://${urlHost}:${actualPort}`;
    await folder.writeAdminToken(adminToken);
    const discovery: Discovery = {
      url,
      host,
      port: actualPort,
      pid: process.pid,
      https: Boolean(tls),
      fingerprint: tls?.fingerprint ?? null,
      cert_path: tls?.certPath ?? null,
      keychain: secret.store,
      started_at: new Date().toISOString(),
      version: packageJson.version,
    };
    await folder.writeDiscovery(`${JSON.stringify(discovery, null, 2)}\n`);
    const purge = setInterval(() => void store.purgeExpired(new Date()).catch(() => undefined), 3_600_000);
    purge.unref();
    await store.purgeExpired(new Date());
    // No conversion worker starts before the first conversion, and each goes when it has had nothing to do a while
    // (ConvertPool's idleMs): a server at rest holds only its event loop.
    let closed = false;
    return {
      app,
      store,
      discovery,
      uiLink: `${url}/auth/session?token=${uiToken}`,
      newUiLink: () => `${url}/auth/session?token=${app.authenticator.newLinkToken()}`,
      adminToken,
      warnings: [
        ...seeded.warnings,
        ...(keychainWarning !== undefined ? [keychainWarning] : []),
        ...(adminCertificate?.warnings ?? []),
        ...publicHosts
          .filter((n) => adminCertificate && !adminCertificate.names.some((c) => nameCovers(c, n)))
          .map(
            (n) =>
              `--public-host ${n} is not among the certificate's names; clients that check the certificate will refuse it.`,
          ),
        ...(isLoopback(host) ? [] : [networkWarning(host, actualPort, hostNames)]),
      ],
      async close() {
        if (closed) return;
        closed = true;
        clearInterval(purge);
        await app.close();
        // What a client finds and trusts: removed when the server stops, however it stops.
        folder.removeClientFiles();
        store.close();
      },
      abandon() {
        folder.abandonClientFiles();
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}
