import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { isIP } from 'node:net';
import packageJson from '../package.json' with { type: 'json' };
import type { FastifyInstance } from 'fastify';
import { loadSecret } from './auth/secret.ts';
import { buildApp } from './http/app.ts';
import { loadOrCreateCertificate } from './http/tls.ts';
import { writeFileAtomic } from './store/files.ts';
import { dataPaths } from './store/paths.ts';
import { Store } from './store/store.ts';

export interface ServeOptions {
  dataDir: string;
  /** Port to listen on (default: the `port` setting). 0 picks a free port (tests). */
  port?: number;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Plain HTTP instead of HTTPS; only on loopback. */
  http?: boolean;
  logger?: boolean;
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
  /** The link that opens the UI with this launch's session. */
  uiLink: string;
  adminToken: string;
  /** A warning to show (e.g. the keychain fallback). */
  warnings: string[];
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Thrown for a configuration the server refuses to start with. */
export class ServeError extends Error {
  override name = 'ServeError';
}

/**
 * Starts the server: takes the data directory, loads the key-hashing secret from the keychain, generates or loads
 * the certificate, listens, and writes the discovery file and the CLI's admin token (both removed on close).
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) {
    throw new ServeError(`Refusing to listen on ${host}: Docwright serves only this computer (127.0.0.1, localhost, ::1).`);
  }
  const store = await Store.open(options.dataDir);
  const paths = dataPaths(options.dataDir);
  try {
    const secret = await loadSecret(options.dataDir);
    const tls = options.http ? undefined : await loadOrCreateCertificate(paths.tls);
    const adminToken = randomBytes(32).toString('base64url');
    const uiToken = randomBytes(32).toString('base64url');
    const port = options.port ?? store.settings().port;
    const hostNames = ['127.0.0.1', 'localhost', '[::1]'];
    const app = await buildApp({
      store,
      secret: secret.secret,
      adminToken,
      uiToken,
      allowedHosts: hostNames,
      https: !options.http,
      logger: options.logger ?? false,
      ...(tls ? { httpsOptions: { cert: tls.cert, key: tls.key }, certificate: { fingerprint: tls.fingerprint, path: tls.certPath } } : {}),
    });
    try {
      await app.listen({ host: isIP(host) === 6 ? host : host === 'localhost' ? '127.0.0.1' : host, port });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES') {
        throw new ServeError(`Port ${port} is not available (${code}); another program uses it. Choose another: docwright serve --port N, or docwright config set port N.`);
      }
      throw error;
    }
    const address = app.server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    const urlHost = isIP(host) === 6 ? `[${host}]` : '127.0.0.1';
    const url = `${tls ? 'https' : 'http'}://${urlHost}:${actualPort}`;
    await writeFileAtomic(paths.adminToken, adminToken, 0o600);
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
    await writeFileAtomic(paths.discovery, `${JSON.stringify(discovery, null, 2)}\n`, 0o644);
    const purge = setInterval(() => void store.purgeExpired(new Date()).catch(() => undefined), 3_600_000);
    purge.unref();
    await store.purgeExpired(new Date());
    let closed = false;
    return {
      app,
      store,
      discovery,
      uiLink: `${url}/auth/session?token=${uiToken}`,
      adminToken,
      warnings: secret.warning ? [secret.warning] : [],
      async close() {
        if (closed) return;
        closed = true;
        clearInterval(purge);
        await app.close();
        rmSync(paths.discovery, { force: true });
        rmSync(paths.adminToken, { force: true });
        store.close();
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}
