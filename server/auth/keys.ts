import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

// Format (GitHub's 2021 token scheme): `dw_` + 32 random base62 characters + 6 base62 characters of
// CRC32 over everything before them. 32 base62 characters carry about 190 bits; the checksum lets
// scanners and the server reject typos and forgeries offline, before any database lookup.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PREFIX = 'dw_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const DISPLAY_PREFIX_LENGTH = 10;

/** Total length of an API key: `dw_` + 32 random + 6 checksum characters. */
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);
// The largest multiple of 62 that fits in a byte; bytes at or above it are redrawn so every character is equally likely.
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += ALPHABET.charAt(byte % ALPHABET.length);
      if (out.length === length) break;
    }
  }
  return out;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET.charAt(value % ALPHABET.length) + out;
    value = Math.floor(value / ALPHABET.length);
  }
  return out;
}

/** Create a new API key and the prefix the UI may show after it is gone (`dw_` + 7 characters). */
export function generateKey(): { key: string; prefix: string } {
  const body = KEY_PREFIX + randomBase62(RANDOM_LENGTH);
  const key = body + checksum(body);
  return { key, prefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** Check prefix, length, alphabet and checksum, so malformed keys are rejected before any lookup. */
export function isWellFormed(key: string): boolean {
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) return false;
  const split = KEY_LENGTH - CHECKSUM_LENGTH;
  return checksum(key.slice(0, split)) === key.slice(split);
}

/** HMAC-SHA256 of the key under the stored secret, as hex: the only form in which a key is kept. */
export function hashKey(secret: Buffer, key: string): string {
  return createHmac('sha256', secret).update(key, 'utf8').digest('hex');
}

/** Compare two hashes in constant time; unequal lengths still cost one comparison and return false. */
export function keysEqual(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, 'utf8');
  const b = Buffer.from(bHex, 'utf8');
  if (a.length !== b.length) {
    timingSafeEqual(a, Buffer.alloc(a.length));
    return false;
  }
  return timingSafeEqual(a, b);
}
