// The V8 flags a one-shot `docwright convert` sets on itself (bin/convert-flags.mjs, set by bin/docwright.js): for
// `convert` only, and never over a flag the user gave Node. Their effect (peak RSS, time) is the bench's to show.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CONVERT_V8_FLAGS,
  LARGE_CONVERT_NODE_FLAGS,
  LARGE_INPUT_BYTES,
  convertInput,
  convertNodeFlags,
  convertV8Flags,
  isConvert,
} from '../bin/convert-flags.mjs';
import { runCli } from './helpers/docwright-process.ts';

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

describe('a large file converted by a process with a smaller young generation', () => {
  const sizes: Record<string, number> = { 'big.md': LARGE_INPUT_BYTES, 'small.md': LARGE_INPUT_BYTES - 1 };
  const size = (path: string): number => {
    const bytes = sizes[path];
    if (bytes === undefined) throw new Error('ENOENT');
    return bytes;
  };

  it('finds the input among the options', () => {
    expect(convertInput(['convert', 'a.md'])).toBe('a.md');
    expect(convertInput(['--data-dir', 'convert', 'convert', '-o', 'x.docx', '-t', 't.dotx', 'a.md'])).toBe('a.md');
    expect(convertInput(['convert', '--mapping', 'm.json', '-q', '--output=o.docx', 'a.md'])).toBe('a.md');
    expect(convertInput(['convert', '--', '-b.md'])).toBe('-b.md');
    for (const args of [['convert', '-'], ['convert', '--', '-'], ['convert'], ['serve', 'a.md'], []])
      expect(convertInput(args)).toBeUndefined();
  });

  it('from 512 KB, for a file only, never over a flag the user gave Node', () => {
    expect(LARGE_CONVERT_NODE_FLAGS).toEqual(['--max-semi-space-size=16']);
    expect(convertNodeFlags(['convert', 'big.md'], [], size)).toEqual(['--max-semi-space-size=16']);
    expect(convertNodeFlags(['convert', '-o', 'big.md', 'small.md'], [], size)).toEqual([]);
    expect(convertNodeFlags(['convert', 'missing.md'], [], size)).toEqual([]);
    expect(convertNodeFlags(['convert', '-'], [], size)).toEqual([]);
    expect(convertNodeFlags(['serve', 'big.md'], [], size)).toEqual([]);
    expect(convertNodeFlags(['convert', 'big.md'], ['--max-semi-space-size=64'], size)).toEqual([]);
  });

  // Every Node process the launcher runs appends its own flags to a file (a module given through NODE_OPTIONS).
  const dir = mkdtempSync(join(tmpdir(), 'dw-large-flags-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    "import { appendFileSync } from 'node:fs';\nappendFileSync(process.env.DW_PROBE_LOG, JSON.stringify(process.execArgv) + '\\n');\n",
  );
  const processes = async (name: string, bytes: number): Promise<string[][]> => {
    const input = join(dir, name);
    writeFileSync(input, 'Some words of a paragraph.\n\n'.repeat(Math.ceil(bytes / 28)).slice(0, bytes));
    const log = join(dir, `${name}.log`);
    const run = await runCli(['convert', '--no-daemon', '-q', input, '-o', join(dir, `${name}.docx`)], {
      env: { ...process.env, NODE_OPTIONS: `--import=${probe}`, DW_PROBE_LOG: log },
      timeoutMs: 120_000,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string[]);
  };

  it('runs the command again with 16 MB semi-spaces for a file of 512 KB', async () => {
    const runs = await processes('large.md', LARGE_INPUT_BYTES);
    expect(runs.at(-1)).toContain('--max-semi-space-size=16');
    expect(runs[0]).not.toContain('--max-semi-space-size=16');
  }, 130_000);

  it('converts a smaller file in the first process', async () => {
    const runs = await processes('smaller.md', LARGE_INPUT_BYTES - 1);
    expect(runs).toHaveLength(1);
    expect(runs[0]).not.toContain('--max-semi-space-size=16');
  }, 130_000);
});
