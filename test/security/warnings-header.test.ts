// Issue 12, X-Warnings bounded: 2,000 distinct unsupported tags gave a 51 KB header (3,000 one that common
// clients cannot read). The header keeps the first 20 warnings and a count, under 4 KB; the full list stays in the
// record (the JSON response and GET /api/v1/conversions/:id). Format: docs/api.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, openEnv, type Env } from './support.ts';

let env: Env;
beforeAll(async () => {
  env = await openEnv();
});
afterAll(async () => env?.close());

const tags = (n: number, prefix = 'x') =>
  Array.from({ length: n }, (_, i) => `<${prefix}${i}>t</${prefix}${i}>`).join(' ');

async function binary(markdown: string) {
  const res = await env.send('POST', '/api/v1/convert', env.auth, { markdown, ...builtin });
  expect(res.statusCode, res.body).toBe(200);
  return res;
}

describe('X-Warnings is bounded; the full list stays in the record', () => {
  for (const count of [2_000, 3_000]) {
    it(`${count} distinct unsupported tags: header under 4 KB, the first 20 and "truncated: …", X-Warnings-Total; the record has all ${count}`, async () => {
      const res = await binary(`${tags(count)}\n`);
      const header = String(res.headers['x-warnings']);
      expect(Buffer.byteLength(header)).toBeLessThan(4096);
      const shown = JSON.parse(header) as string[];
      expect(shown).toHaveLength(21);
      expect(shown.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => `unsupported_html: x${i}`));
      const id = String(res.headers['x-conversion-id']);
      expect(shown[20]).toBe(
        `truncated: ${count - 20} more warnings; the full list is in GET /api/v1/conversions/${id}`,
      );
      expect(res.headers['x-warnings-total']).toBe(String(count));
      const record = await env.send('GET', `/api/v1/conversions/${id}`, env.auth);
      expect(record.json<{ warnings: string[] }>().warnings).toHaveLength(count);
      const json = await env.send('POST', '/api/v1/convert', env.auth, {
        markdown: `${tags(count)}\n`,
        ...builtin,
        response_format: 'json',
      });
      expect(json.json<{ warnings: string[] }>().warnings).toHaveLength(count);
    });
  }

  it('long and non-ASCII warnings: each cut to its bound, the header ASCII-only and under 4 KB', async () => {
    const res = await binary(`${Array.from({ length: 30 }, (_, i) => `<t${i}${'a'.repeat(3000)}>`).join(' ')}\n`);
    const header = String(res.headers['x-warnings']);
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(Buffer.byteLength(header)).toBeLessThan(4096);
    const shown = JSON.parse(header) as string[];
    for (const w of shown) expect(Array.from(w).length).toBeLessThanOrEqual(200 /* characters, docs/api.md */);
    expect(shown.at(-1)).toMatch(/^truncated: \d+ more warnings; /);
    expect(res.headers['x-warnings-total']).toBe('30');
  });

  it('a few warnings are sent exactly as before: the whole JSON array, no X-Warnings-Total', async () => {
    // <kbd> and <sup> are printed since raw HTML is parsed (issue 14); <marquee> and <blink> still are not.
    const res = await binary('<marquee>a</marquee> <blink>b</blink>\n');
    expect(JSON.parse(String(res.headers['x-warnings']))).toEqual([
      'unsupported_html: marquee',
      'unsupported_html: blink',
    ]);
    expect(res.headers['x-warnings-total']).toBeUndefined();
  });
});
