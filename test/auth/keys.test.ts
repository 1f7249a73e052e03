import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, isWellFormed, KEY_LENGTH, keysEqual } from '../../server/auth/keys.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Replace the character at `index` with a different base62 character. */
function withCharChanged(key: string, index: number, shift = 1): string {
  const next = BASE62.charAt((BASE62.indexOf(key.charAt(index)) + shift) % BASE62.length);
  return key.slice(0, index) + next + key.slice(index + 1);
}

describe('generateKey', () => {
  it('makes dw_ + 32 random + 6 checksum base62 characters, and a 10-character display prefix', () => {
    const { key, prefix } = generateKey();
    expect(KEY_LENGTH).toBe(41);
    expect(key).toHaveLength(41);
    expect(key).toMatch(/^dw_[0-9A-Za-z]{38}$/);
    expect(prefix).toBe(key.slice(0, 10));
    expect(prefix).toMatch(/^dw_[0-9A-Za-z]{7}$/);
  });

  it('ends with the base62 CRC32 of everything before the checksum', () => {
    const { key } = generateKey();
    let crc = crc32(key.slice(0, 35));
    let digits = '';
    for (let i = 0; i < 6; i++) {
      digits = BASE62.charAt(crc % 62) + digits;
      crc = Math.floor(crc / 62);
    }
    expect(key.slice(35)).toBe(digits);
  });

  it('makes 1,000 unique, well-formed keys that use the whole alphabet', () => {
    const keys = Array.from({ length: 1000 }, () => generateKey().key);
    expect(new Set(keys).size).toBe(1000);
    for (const key of keys) expect(isWellFormed(key)).toBe(true);
    const used = new Set(keys.flatMap((key) => Array.from(key.slice(3, 35))));
    expect([...used].sort().join('')).toBe(Array.from(BASE62).sort().join(''));
  });
});

describe('isWellFormed', () => {
  const { key } = generateKey();

  it('rejects a key with any one character changed', () => {
    for (let index = 3; index < key.length; index++) {
      expect(isWellFormed(withCharChanged(key, index)), `changed at ${index}`).toBe(false);
    }
  });

  it('rejects a wrong prefix', () => {
    expect(isWellFormed(`dx_${key.slice(3)}`)).toBe(false);
    expect(isWellFormed(`DW_${key.slice(3)}`)).toBe(false);
    expect(isWellFormed(`dw-${key.slice(3)}`)).toBe(false);
    expect(isWellFormed(key.slice(3))).toBe(false);
  });

  it('rejects a wrong length', () => {
    expect(isWellFormed('')).toBe(false);
    expect(isWellFormed(key.slice(0, -1))).toBe(false);
    expect(isWellFormed(`${key}0`)).toBe(false);
    expect(isWellFormed(`${key.slice(0, 20)}0${key.slice(20)}`)).toBe(false);
  });

  it('rejects characters outside base62', () => {
    for (const bad of ['-', '_', '+', '/', '=', ' ', 'é', '\n']) {
      expect(isWellFormed(`${key.slice(0, 20)}${bad}${key.slice(21)}`), JSON.stringify(bad)).toBe(false);
    }
    expect(isWellFormed(` ${key}`)).toBe(false);
    expect(isWellFormed(`${key}\n`)).toBe(false);
  });

  it('rejects values that are not strings', () => {
    expect(isWellFormed(undefined as unknown as string)).toBe(false);
    expect(isWellFormed(42 as unknown as string)).toBe(false);
  });
});

describe('hashKey', () => {
  const secret = randomBytes(32);
  const { key } = generateKey();

  it('is a deterministic HMAC-SHA256 in hex', () => {
    expect(hashKey(secret, key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(secret, key)).toBe(hashKey(Buffer.from(secret), key));
  });

  it('depends on the secret and on the key', () => {
    expect(hashKey(randomBytes(32), key)).not.toBe(hashKey(secret, key));
    expect(hashKey(secret, generateKey().key)).not.toBe(hashKey(secret, key));
  });

  it('matches a known HMAC-SHA256 vector (RFC 4231 test case 2)', () => {
    expect(hashKey(Buffer.from('Jefe'), 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });
});

describe('keysEqual', () => {
  const secret = randomBytes(32);
  const a = hashKey(secret, generateKey().key);
  const b = hashKey(secret, generateKey().key);

  it('is true for equal hashes and false for different ones', () => {
    expect(keysEqual(a, a)).toBe(true);
    expect(keysEqual(a, b)).toBe(false);
    expect(keysEqual(a, a.toUpperCase())).toBe(false);
  });

  it('is false for different lengths, either way round, without throwing', () => {
    expect(keysEqual(a, a.slice(0, -1))).toBe(false);
    expect(keysEqual(a.slice(0, -1), a)).toBe(false);
    expect(keysEqual(a, '')).toBe(false);
    expect(keysEqual('', a)).toBe(false);
    expect(keysEqual('', '')).toBe(true);
  });
});
