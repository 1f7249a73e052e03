import { createHash, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { AsyncEntry, type EntryOptions } from '@napi-rs/keyring';
import { dataFolder, type SecretFiles } from '../store/data-folder.ts';

// The secret that API keys are hashed with (HMAC-SHA256), one per data directory.
// It lives in the OS keychain (service "Docwright", account `hmac-secret:<sha256(dataDir), 16 hex>`).
// Where no keychain is reachable (e.g. Linux without a D-Bus session or Secret Service), it lives in
// `<dataDir>/secret.key`, readable only by the user (mode 0600), and a warning says so.
// For the README: set DOCWRIGHT_KEYCHAIN=off to skip the keychain and always use `<dataDir>/secret.key`
// (headless servers, containers, CI). Deleting the secret invalidates every API key.

export const KEYCHAIN_SERVICE = 'Docwright';

const SECRET_BYTES = 32;
const BASE64_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;
// @napi-rs/keyring falls back to the kernel keyring on Linux, which forgets the secret at reboot.
const ENTRY_OPTIONS: EntryOptions = { linux: { store: 'secret-service' } };

export interface LoadSecretOptions {
  /** 'off' skips the keychain and uses `<dataDir>/secret.key`; so does DOCWRIGHT_KEYCHAIN=off. */
  keychain?: 'auto' | 'off';
}

export interface LoadedSecret {
  secret: Buffer;
  store: 'keychain' | 'file';
  /** Why the secret is not (only) in the keychain, in words; meant for the log and the UI. Never contains the secret. */
  warning?: string;
  /** The keychain library's own words for why it could not be reached (a D-Bus error, say): for --verbose. */
  detail?: string;
  /** Names the warning's situation where it need be said only once per data directory (serve.ts). */
  notice?: 'keychain-off' | 'keychain-unreachable' | 'secret-file-kept';
}

/** The keychain account that holds the secret of this data directory. */
export function keychainAccount(dataDir: string): string {
  const digest = createHash('sha256').update(resolve(dataDir)).digest('hex');
  return `hmac-secret:${digest.slice(0, 16)}`;
}

/** Read the API key hashing secret for a data directory, creating it on first use; never replaces one. */
export async function loadSecret(dataDir: string, options: LoadSecretOptions = {}): Promise<LoadedSecret> {
  const files = dataFolder(dataDir).secret;
  const { file, marker } = files;
  const turnedOff =
    options.keychain === 'off'
      ? "keychain: 'off'"
      : process.env.DOCWRIGHT_KEYCHAIN === 'off'
        ? 'DOCWRIGHT_KEYCHAIN=off'
        : undefined;
  if (turnedOff) {
    return {
      ...fromFile(
        files,
        `OS keychain turned off (${turnedOff}); the API key secret is kept in ${file}, ${protection()}.`,
      ),
      notice: 'keychain-off',
    };
  }

  const account = keychainAccount(dataDir);
  const where = `keychain entry "${KEYCHAIN_SERVICE}" / "${account}"`;
  let entry: AsyncEntry;
  let stored: string | null;
  try {
    entry = new AsyncEntry(KEYCHAIN_SERVICE, account, ENTRY_OPTIONS);
    stored = await entry.getPassword();
  } catch (error) {
    // The secret is known to be in the keychain: a file secret now would silently invalidate every key.
    if (files.hasMarker() && !files.hasFile()) throw keychainLocked(error, marker);
    return unreachable(files, error);
  }

  if (stored !== null) {
    const secret = decode(stored, where);
    markKeychain(files);
    if (!files.hasFile()) return { secret, store: 'keychain' };
    return {
      secret,
      store: 'keychain',
      warning: `${file} is ignored because the OS keychain holds the API key secret; keys created while that file was in use no longer verify.`,
    };
  }

  const existing = readSecretFile(files);
  if (existing) {
    return {
      secret: existing,
      store: 'file',
      warning: `The API key secret is still kept in ${file} (${protection()}), created when the OS keychain was unavailable; it stays in use so existing API keys keep working.`,
      notice: 'secret-file-kept',
    };
  }

  let kept: string | null;
  try {
    await entry.setPassword(randomBytes(SECRET_BYTES).toString('base64'));
    // Read back: proves the keychain kept it, and adopts the secret of a process that raced us here.
    kept = await entry.getPassword();
    if (kept === null) throw new Error('the keychain did not keep the secret');
  } catch (error) {
    return unreachable(files, error);
  }
  markKeychain(files);
  return { secret: decode(kept, where), store: 'keychain' };
}

function markKeychain(files: SecretFiles): void {
  files.mark('The API key secret of this data directory is kept in the OS keychain.\n');
}

function keychainLocked(error: unknown, marker: string): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(
    `The API key secret is kept in the OS keychain, which cannot be reached now (${reason}). Unlock the keychain (or start the D-Bus session) and try again. Deleting ${marker} would make a new secret and invalidate every API key.`,
  );
}

/** The secret from its file where the keychain cannot be reached: why in words, the keychain's own words apart. */
function unreachable(files: SecretFiles, error: unknown): LoadedSecret {
  return {
    ...fromFile(
      files,
      `The OS keychain could not be reached, so the API key secret is kept in ${files.file}, ${protection()}; API keys work as usual. To use the keychain, unlock it and restart Docwright.`,
    ),
    detail: (error instanceof Error ? error.message : String(error)).replace(/\.$/, ''),
    notice: 'keychain-unreachable',
  };
}

function protection(): string {
  return process.platform === 'win32' ? 'inside your user profile' : 'readable only by your user (mode 0600)';
}

function decode(text: string, where: string): Buffer {
  const trimmed = text.trim();
  if (!BASE64_32_BYTES.test(trimmed)) {
    throw new Error(
      `${where} does not hold a valid API key secret (expected ${SECRET_BYTES} bytes in base64); fix or remove it (removing it invalidates every API key)`,
    );
  }
  return Buffer.from(trimmed, 'base64');
}

function readSecretFile(files: SecretFiles): Buffer | undefined {
  let text: string | undefined;
  try {
    text = files.read();
  } catch (error) {
    throw new Error(
      `cannot read the API key secret ${files.file}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return text === undefined ? undefined : decode(text, files.file);
}

function fromFile(files: SecretFiles, warning: string): LoadedSecret {
  const secret = readSecretFile(files) ?? createSecretFile(files);
  return { secret, store: 'file', warning };
}

/** A new secret in secret.key, or the one another process published there first. */
function createSecretFile(files: SecretFiles): Buffer {
  const secret = randomBytes(SECRET_BYTES);
  return files.create(`${secret.toString('base64')}\n`, () => readSecretFile(files)) ?? secret;
}
