// The V8 flags a one-shot `docwright convert` sets on itself (bin/convert-flags.mjs, set by bin/docwright.js): for
// `convert` only, and never over a flag the user gave Node. Their effect (peak RSS, time) is the bench's to show.
import { describe, expect, it } from 'vitest';
import { CONVERT_V8_FLAGS, convertV8Flags, isConvert } from '../bin/convert-flags.mjs';
import { ONE_DOCUMENT_YOUNG_MB, poolOptions } from '../server/cli/convert-bounded.ts';

describe('the convert command flags', () => {
  it('bound the heap growth and raise the optimising thresholds', () => {
    expect(CONVERT_V8_FLAGS).toEqual([
      '--invocation-count-for-turbofan=30000',
      '--invocation-count-for-osr=8000',
      '--invocation-count-for-maglev=4000',
      '--heap-growing-percent=30',
    ]);
  });

  it('are set for convert only', () => {
    expect(convertV8Flags(['convert', 'a.md'], [])).toEqual([...CONVERT_V8_FLAGS]);
    expect(convertV8Flags(['--data-dir', '/tmp/d', 'convert', 'a.md'], [])).toEqual([...CONVERT_V8_FLAGS]);
    expect(isConvert(['--data-dir', 'convert', 'serve'])).toBe(false);
    for (const args of [['serve'], ['keys', 'list'], ['--help'], []]) expect(convertV8Flags(args, [])).toEqual([]);
  });

  it("leave out any the user gave Node's command line", () => {
    expect(convertV8Flags(['convert', 'a.md'], ['--heap-growing-percent=10'])).toEqual([
      '--invocation-count-for-turbofan=30000',
      '--invocation-count-for-osr=8000',
      '--invocation-count-for-maglev=4000',
    ]);
    expect(
      convertV8Flags(['convert', 'a.md'], ['--invocation-count-for-turbofan=5', '--max-old-space-size=100']),
    ).toEqual(['--invocation-count-for-osr=8000', '--invocation-count-for-maglev=4000', '--heap-growing-percent=30']);
  });
});

describe("the command line's conversion pool", () => {
  it("gives one document's worker a small young generation, a batch's workers the server's", () => {
    // One document: a young generation of 16 MB is RSS the conversion's peak does not hold (docs/performance.md).
    expect(poolOptions({}, 1, 1).youngMb).toBe(ONE_DOCUMENT_YOUNG_MB);
    expect(ONE_DOCUMENT_YOUNG_MB).toBe(16);
    // Many: each worker converts one after another, where the larger young generation pays (the pool's default).
    expect(poolOptions({}, 2, 20).youngMb).toBeUndefined();
    expect(poolOptions({}, 1, 3).youngMb).toBeUndefined();
  });
});
