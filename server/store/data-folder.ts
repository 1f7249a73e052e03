import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import { tempPathFor, writeFileAtomic } from './files.ts';
import { lockOwner } from './lock.ts';
import { dataPaths } from './paths.ts';
import { dataDirPermissionProblem } from './permissions.ts';

/** The files of the generated localhost certificate (tls/): read together, written together. */
export interface CertificateFiles {
  /** Where the certificate is (for `docwright cert`, the discovery file and curl --cacert). */
  readonly certPath: string;
  /** The certificate and key as stored; undefined when either is missing or unreadable. */
  read(): { cert: string; key: string } | undefined;
  /** Stores a new certificate (0644) and its key (0600) in tls/ (0700), each atomically. */
  write(cert: string, key: string): Promise<void>;
}

/** The file of the API keys' hashing secret and the marker that says it is in the keychain (server/auth/secret.ts). */
export interface SecretFiles {
  /** secret.key's path, for messages. */
  readonly file: string;
  /** secret.in-keychain's path, for messages. */
  readonly marker: string;
  hasFile(): boolean;
  hasMarker(): boolean;
  /** secret.key's text; undefined when there is none (other errors are thrown as the system gave them). */
  read(): string | undefined;
  /** Writes the marker (0600), once. */
  mark(text: string): void;
  /**
   * Publishes `text` as secret.key (0600, flushed) unless one exists: never replaces one. Undefined when it published
   * `text`; else what `adopt` makes of the secret another process published meanwhile.
   */
  create<T>(text: string, adopt: () => T | undefined): T | undefined;
}

/**
 * A data directory as the modules outside the store see it: named parts, each opened, written or removed here (the
 * Store holds the records, templates and outputs). None of them builds a path under the folder.
 */
export class DataFolder {
  private readonly paths: ReturnType<typeof dataPaths>;

  constructor(readonly root: string) {
    this.paths = dataPaths(root);
  }

  /** The session link's file, for messages (`the link in …`). */
  get uiLinkFile(): string {
    return this.paths.uiLink;
  }

  /** Electron's profile folder when the data directory is DOCWRIGHT_HOME (main/launch-options.ts). */
  get electronProfile(): string {
    return this.paths.electronProfile;
  }

  /**
   * Why a file found here cannot be trusted, or undefined: the folder belongs to another user, or the group or
   * everyone may write to it, so another user could have written its discovery file, lock and admin token (the
   * server refuses to start on such a folder; a client must not follow what it names).
   */
  untrusted(): string | undefined {
    if (!existsSync(this.root)) return undefined;
    return dataDirPermissionProblem(this.root);
  }

  /** The running server's discovery file (server.json), or undefined when there is none. */
  readDiscovery(): string | undefined {
    if (!existsSync(this.paths.discovery)) return undefined;
    return readFileSync(this.paths.discovery, 'utf8');
  }

  /** Writes the discovery file (0644: it holds no secret), atomically. */
  writeDiscovery(text: string): Promise<void> {
    return writeFileAtomic(this.paths.discovery, text, 0o644);
  }

  /** The running server's admin token (throws when there is none). */
  readAdminToken(): string {
    return readFileSync(this.paths.adminToken, 'utf8').trim();
  }

  /** Writes the CLI's admin token (0600), atomically. */
  writeAdminToken(token: string): Promise<void> {
    return writeFileAtomic(this.paths.adminToken, token, 0o600);
  }

  /** Writes the session link (0600), atomically. */
  writeUiLink(text: string): Promise<void> {
    return writeFileAtomic(this.paths.uiLink, text, 0o600);
  }

  /** The pid in the data directory's lock file, if any. */
  lockOwner(): number | undefined {
    return lockOwner(this.paths.lock);
  }

  /** What a client finds and trusts (discovery file, admin token, session link): removed when the server stops. */
  removeClientFiles(): void {
    for (const path of this.clientFiles()) rmSync(path, { force: true });
  }

  /** removeClientFiles for a process on its way out: each file that can be removed is, whatever fails. */
  abandonClientFiles(): void {
    for (const path of this.clientFiles()) {
      try {
        rmSync(path, { force: true });
      } catch {
        // Nothing more can be done on the way out; the lock tells the next start this server is gone.
      }
    }
  }

  private clientFiles(): string[] {
    return [this.paths.discovery, this.paths.adminToken, this.paths.uiLink];
  }

  /** The generated localhost certificate's files (tls/). */
  get certificate(): CertificateFiles {
    const { tls, tlsCert, tlsKey } = this.paths;
    return {
      certPath: tlsCert,
      read() {
        if (!existsSync(tlsCert) || !existsSync(tlsKey)) return undefined;
        try {
          return { cert: readFileSync(tlsCert, 'utf8'), key: readFileSync(tlsKey, 'utf8') };
        } catch {
          return undefined;
        }
      },
      async write(cert, key) {
        mkdirSync(tls, { recursive: true, mode: 0o700 });
        await writeFileAtomic(tlsKey, key, 0o600);
        await writeFileAtomic(tlsCert, cert, 0o644);
      },
    };
  }

  /** The key secret's file and keychain marker. */
  get secret(): SecretFiles {
    const { secret: file, keychainMarker: marker } = this.paths;
    return {
      file,
      marker,
      hasFile: () => existsSync(file),
      hasMarker: () => existsSync(marker),
      read() {
        try {
          return readFileSync(file, 'utf8');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
          throw error;
        }
      },
      mark(text) {
        if (existsSync(marker)) return;
        mkdirSync(dirname(marker), { recursive: true, mode: 0o700 });
        writeFileSync(marker, text, { mode: 0o600 });
      },
      create(text, adopt) {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        const temp = tempPathFor(file);
        const fd = openSync(temp, 'wx', 0o600);
        try {
          writeSync(fd, text);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        try {
          // link, unlike rename, refuses to replace a secret.key that another process published meanwhile.
          linkSync(temp, file);
        } catch (error) {
          const published = (error as NodeJS.ErrnoException).code === 'EEXIST' ? adopt() : undefined;
          if (published !== undefined) return published;
          if (existsSync(file)) throw error;
          renameSync(temp, file); // file systems without hard links
          return undefined;
        } finally {
          if (existsSync(temp)) unlinkSync(temp);
        }
        return undefined;
      },
    };
  }
}

/** The data directory at `dir` (resolved: the keychain account and the lock name it by its absolute path). */
export function dataFolder(dir: string): DataFolder {
  return new DataFolder(resolve(dir));
}
