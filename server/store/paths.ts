import { homedir } from 'node:os';
import { join } from 'node:path';

/** The per-user data directory: DOCWRIGHT_HOME, else the OS's application-data folder. */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.DOCWRIGHT_HOME) return env.DOCWRIGHT_HOME;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Docwright');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Docwright');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'docwright');
}

/**
 * Every file and folder inside a data directory: the one place that names them (test/store/data-folder-owner.test.ts
 * checks that nothing else does, and that a running server writes nothing else). Other modules reach them through
 * data-folder.ts or the Store.
 */
export function dataPaths(dataDir: string) {
  return {
    database: join(dataDir, 'db.json'),
    templates: join(dataDir, 'templates'),
    outputs: join(dataDir, 'outputs'),
    /** Conversion records: small lowdb files, one month and at most a few hundred records each. */
    conversions: join(dataDir, 'conversions'),
    lock: join(dataDir, 'docwright.lock'),
    discovery: join(dataDir, 'server.json'),
    tls: join(dataDir, 'tls'),
    /** The generated localhost certificate (0644) and its key (0600), in tls/ (0700). */
    tlsCert: join(dataDir, 'tls', 'localhost-cert.pem'),
    tlsKey: join(dataDir, 'tls', 'localhost-key.pem'),
    /** The API keys' hashing secret where no keychain is used (0600). */
    secret: join(dataDir, 'secret.key'),
    /** Says that the secret is in the OS keychain, so an unreachable keychain is an error, not a new secret. */
    keychainMarker: join(dataDir, 'secret.in-keychain'),
    adminToken: join(dataDir, 'admin.token'),
    /** The session link, when the output it would be printed to is no terminal (0600, removed on stop). */
    uiLink: join(dataDir, 'ui-link'),
    /** The notices already given for this data directory (e.g. the keychain fallback), each said once. */
    notices: join(dataDir, 'notices.json'),
    /** Electron's own profile (cookies, cache, its logs on Linux and Windows) when the data directory is DOCWRIGHT_HOME. */
    electronProfile: join(dataDir, 'electron'),
  };
}
