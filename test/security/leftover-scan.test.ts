// The scan for syntax left as text (server/convert/parse/leftover-syntax.ts) runs on every text that holds its
// character, with or without a bibliography: hostile text must cost it linear time. A citation's pattern that let a
// bracket's words hold `[` backtracked cubically: 12 KB of `[` and ` @a` held a conversion for its whole 30 s limit
// (attack review of issue 34). Bounded generously (a linear scan takes milliseconds).
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';

describe('the leftover-syntax scan on hostile text', () => {
  it.each([
    ['brackets, then keys with no closing bracket', `${'['.repeat(3000)}${' @a'.repeat(3000)}`],
    ['one bracket, keys and words with no closing bracket', `[${' x @a'.repeat(3000)}`],
    ['many open brackets each before a key', '[see @a '.repeat(2000)],
  ])(
    '%s: converted in linear time, the text kept',
    async (_name, markdown) => {
      const started = performance.now();
      const result = await convert({ markdown });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(result.stats.paragraphs).toBe(1);
    },
    60_000,
  );

  it('still names a citation left as text', async () => {
    const result = await convert({ markdown: 'As [see @doe2020, p. 3] and [[@knuth]] say.\n' });
    expect(result.warnings.filter((w) => w.startsWith('syntax_as_text: [')).length).toBe(2);
  });
});

describe('a hostile bibliography', () => {
  // Its format was told with `^\s*@…` under /m, which scans every run of blank lines again from each line: 20,000
  // newlines took 0.4 s, 4 MB of them (the API's limit) hours. Its entries were counted at a line's start only, so
  // 600,000 on one line were parsed (20 s) before the count after parsing refused them.
  it('of blank lines is told and read in linear time', async () => {
    const started = performance.now();
    await expect(
      convert({ markdown: 'As [@a] says.\n', bibliography: { text: `${'\n'.repeat(2_000_000)}x: 1\n` } }),
    ).rejects.toThrow(/not a list of references/);
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 60_000);

  it('of more entries than the limit on one line is refused before it is parsed', async () => {
    const started = performance.now();
    await expect(
      convert({ markdown: 'As [@k] says.\n', bibliography: { text: ` ${'@a{k,}'.repeat(20_000)}` } }),
    ).rejects.toThrow(/20000 entries, more than 10000/);
    expect(performance.now() - started).toBeLessThan(5_000);
  }, 60_000);
});

describe('labels sharing a long beginning', () => {
  // Each bookmark name of ours (`_Ref_eq_…`, 40 characters at most) was made unique by probing `_2`, `_3`, … from 2:
  // labels that share their first 40 characters cost n²/2 probes (10,000 equations 22.5 s against 4.9 s with short
  // labels; attack review). Compared with short labels in the same minutes, not timed alone.
  it('get their bookmarks in the time short labels take', async () => {
    const time = async (label: (k: number) => string): Promise<number> => {
      const markdown = Array.from({ length: 10_000 }, (_, k) => `$$x$$ {#eq:${label(k)}}`).join('\n\n');
      const started = performance.now();
      const result = await convert({ markdown });
      expect(result.stats.paragraphs).toBe(10_000);
      return performance.now() - started;
    };
    const short = await time((k) => `e${String(k)}`);
    const long = await time((k) => `${'a'.repeat(40)}${String(k)}`);
    expect(long / short, `short labels ${short.toFixed(0)} ms, long ${long.toFixed(0)} ms`).toBeLessThan(2.5);
  }, 180_000);
});
