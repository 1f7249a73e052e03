// Input that is not text: binary data, or bytes that were not UTF-8, still converts (what could be read is kept) but
// says so on every surface (the CLI, the API, MCP and the app all hand the engine the same decoded string).
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { validateDocx } from '../helpers/docx.ts';

/** Bytes decoded as every surface decodes them: UTF-8, invalid sequences replaced by U+FFFD. */
const decoded = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

describe('input that is not text', () => {
  it('binary data gives a valid document and the warning not_text', async () => {
    // A deterministic "binary" file: a PNG's signature, then bytes of a linear congruential generator.
    let seed = 42;
    const noise = Array.from({ length: 400 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) >> 23);
    const bytes = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, ...noise]);
    const result = await convert({ markdown: decoded(bytes) });
    expect(result.warnings.filter((w) => w.startsWith('not_text:'))).toHaveLength(1);
    expect(result.warnings.some((w) => w.startsWith('invalid_utf8:'))).toBe(false);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('text with bytes that are not UTF-8 (Latin-1) gives invalid_utf8 with how many were replaced', async () => {
    const latin1 = Buffer.from('# Caf\xe9\n\nNa\xefve r\xe9sum\xe9.\n', 'latin1');
    const result = await convert({ markdown: decoded(latin1) });
    expect(result.warnings).toEqual([
      'invalid_utf8: 4 characters were not valid UTF-8 and were replaced by \u{FFFD} (save the file as UTF-8)',
    ]);
  });

  it('binary data without a NUL (many control characters among bytes that are not UTF-8) is not_text too', async () => {
    const bytes = Uint8Array.from(
      { length: 300 },
      (_, i) => [0x01, 0x9c, 0xff, 0x1b, 0x41, 0xc3, 0x02, 0x88][i % 8] ?? 0,
    );
    expect((await convert({ markdown: decoded(bytes) })).warnings.map((w) => w.split(':')[0])).toEqual(['not_text']);
  });

  it('is not said of ordinary text, tabs, form feeds, non-Latin scripts, or a stray control character', async () => {
    expect((await convert({ markdown: '# Héllo\n\n\tcode\f\n\nПривет, 世界, 👋\r\n' })).warnings).toEqual([]);
    expect((await convert({ markdown: 'Bad \u0001chars here and \u001f end.' })).warnings).toEqual([]);
  });
});
