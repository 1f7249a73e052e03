// The V8 flags a one-shot `docwright convert` sets on itself (bin/convert-flags.mjs, set by bin/docwright.js): for
// `convert` only, and never over a flag the user gave Node. Their effect (peak RSS, time) is the bench's to show.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
import { BIN } from './helpers/docwright-process.ts';

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
  const MB = 1024 * 1024;
  const sizes: Record<string, number> = {
    'big.md': LARGE_INPUT_BYTES,
    'small.md': LARGE_INPUT_BYTES - 1,
    'huge.md': 5 * MB,
  };
  const size = (path: string): number => {
    const bytes = sizes[path];
    if (bytes === undefined) throw new Error('ENOENT');
    return bytes;
  };
  const off = { DOCWRIGHT_DAEMON: '0' };
  const flags = (
    args: string[],
    env: NodeJS.ProcessEnv = off,
    execArgv: string[] = [],
    platform: NodeJS.Platform = 'linux',
  ) => convertNodeFlags(args, execArgv, size, env, platform);

  it('finds the input among the options', () => {
    expect(convertInput(['convert', 'a.md'])).toBe('a.md');
    expect(convertInput(['--data-dir', 'convert', 'convert', '-o', 'x.docx', '-t', 't.dotx', 'a.md'])).toBe('a.md');
    expect(convertInput(['convert', '--mapping', 'm.json', '-q', '--output=o.docx', 'a.md'])).toBe('a.md');
    expect(convertInput(['convert', '-qo', 'out.docx', 'a.md'])).toBe('a.md');
    expect(convertInput(['convert', '--data-dir', 'd', 'a.md'])).toBe('a.md');
    expect(convertInput(['convert', '--', '-b.md'])).toBe('-b.md');
    for (const args of [['convert', '-'], ['convert', '--', '-'], ['convert'], ['serve', 'a.md'], []])
      expect(convertInput(args)).toBeUndefined();
  });

  it('from 512 KB, for a file this process converts, never over a flag the user gave Node', () => {
    expect(LARGE_CONVERT_NODE_FLAGS).toEqual(['--max-semi-space-size=16']);
    expect(flags(['convert', 'big.md'])).toEqual(['--max-semi-space-size=16']);
    expect(flags(['convert', '-o', 'big.md', 'small.md'])).toEqual([]);
    expect(flags(['convert', 'missing.md'])).toEqual([]);
    expect(flags(['convert', '-'])).toEqual([]);
    expect(flags(['serve', 'big.md'])).toEqual([]);
    for (const extra of ['--help', '-h', '--version', '-V']) expect(flags(['convert', 'big.md', extra])).toEqual([]);
    expect(flags(['convert', 'big.md'], off, ['--max-semi-space-size=64'])).toEqual([]);
    expect(flags(['convert', 'big.md'], off, ['--max_semi_space_size=64'])).toEqual([]);
    expect(flags(['convert', 'big.md'], { ...off, NODE_OPTIONS: '--max-semi-space-size=64' })).toEqual([]);
  });

  it('not where the conversion daemon may convert it', () => {
    expect(flags(['convert', 'big.md'], {})).toEqual([]);
    expect(flags(['convert', 'big.md'], { DOCWRIGHT_DAEMON: 'on' })).toEqual([]);
    expect(flags(['convert', '--no-daemon', 'big.md'], {})).toEqual(['--max-semi-space-size=16']);
    expect(flags(['convert', 'big.md'], { DOCWRIGHT_DAEMON: 'Off ' })).toEqual(['--max-semi-space-size=16']);
    expect(flags(['convert', 'big.md'], {}, [], 'win32')).toEqual(['--max-semi-space-size=16']);
    // Over the daemon's 4 MB the command line converts it itself.
    expect(flags(['convert', 'huge.md'], {})).toEqual(['--max-semi-space-size=16']);
  });

  it('not when a path names an inherited file descriptor (an exec gives the numbers to other files)', () => {
    for (const path of ['/dev/fd/5', '/dev/stdout', '/proc/self/fd/7', '/proc/123/fd/3', '/proc/thread-self/fd/4'])
      expect(flags(['convert', 'big.md', '-o', path]), path).toEqual([]);
    expect(flags(['convert', 'big.md', `--output=/dev/fd/5`])).toEqual([]);
    // Glued to a short option, and other spellings of the same names.
    for (const arg of ['-o/dev/fd/3', '-qo/dev/fd/3', '-t/dev/fd/4', '-m/proc/self/fd/4'])
      expect(flags(['convert', 'big.md', arg]), arg).toEqual([]);
    for (const path of ['//dev/fd/5', '/dev//fd/5', '/dev/./fd/5', '/./dev/fd/5', '/proc/self/root/dev/fd/5'])
      expect(flags(['convert', 'big.md', '-o', path]), path).toEqual([]);
    expect(flags(['convert', 'big.md', '-o', '../'.repeat(40) + 'dev/fd/5'])).toEqual([]);
    // A path that reaches a held descriptor another way (a link to /dev/fd/5): what `opened` says.
    const held = (path: string) => path === 'link.docx';
    expect(convertNodeFlags(['convert', 'big.md', '-o', 'link.docx'], [], size, off, 'linux', held)).toEqual([]);
    expect(convertNodeFlags(['convert', 'big.md', '-o', 'out.docx'], [], size, off, 'linux', held)).toEqual([
      '--max-semi-space-size=16',
    ]);
    expect(flags(['convert', 'big.md', '-o', '/home/dev/fd/out.docx'])).toEqual(['--max-semi-space-size=16']);
  });

  // Every Node process the launcher runs appends its own flags to a file (a module given through NODE_OPTIONS).
  const dir = mkdtempSync(join(tmpdir(), 'dw-large-flags-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    "import { appendFileSync } from 'node:fs';\nappendFileSync(process.env.DW_PROBE_LOG, JSON.stringify(process.execArgv) + '\\n');\n",
  );
  /** Converts a file of `bytes` with --no-daemon; `output` is the -o argument (`fd3`: a file given as descriptor 3). */
  const processes = async (name: string, bytes: number, output?: string | string[]): Promise<string[][]> => {
    const input = join(dir, name);
    writeFileSync(input, 'Some words of a paragraph.\n\n'.repeat(Math.ceil(bytes / 28)).slice(0, bytes));
    const log = join(dir, `${name}.log`);
    const target = output ?? join(dir, `${name}.docx`);
    const fd = openSync(join(dir, `${name}.fd3.docx`), 'w');
    try {
      const outputArgs = Array.isArray(target) ? target : ['-o', target];
      const child = spawn(process.execPath, [BIN, 'convert', '--no-daemon', '-q', input, ...outputArgs], {
        env: { ...process.env, NODE_OPTIONS: `--import=${probe}`, DW_PROBE_LOG: log },
        stdio: ['ignore', 'ignore', 'pipe', fd],
      });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const [code] = (await once(child, 'close')) as [number | null];
      expect(stderr).toBe('');
      expect(code).toBe(0);
    } finally {
      closeSync(fd);
    }
    return readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string[]);
  };
  const flagged = (runs: string[][]): boolean[] => runs.map((run) => run.includes('--max-semi-space-size=16'));

  it('runs the command again with 16 MB semi-spaces for a file of 512 KB', async () => {
    const runs = flagged(await processes('large.md', LARGE_INPUT_BYTES));
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs[0]).toBe(false);
    expect(runs.slice(1).every(Boolean)).toBe(true);
  }, 130_000);

  it('converts a smaller file in the first process', async () => {
    expect(flagged(await processes('smaller.md', LARGE_INPUT_BYTES - 1))).not.toContain(true);
  }, 130_000);

  it('converts in the first process when the output is an inherited descriptor (/dev/fd/3)', async () => {
    const link = join(dir, 'fd3-link.docx');
    symlinkSync('/dev/fd/3', link);
    const outputs: [string, string | string[]][] = [
      ['to-fd.md', '/dev/fd/3'],
      ['glued.md', ['-o/dev/fd/3']],
      ['slashes.md', '//dev/./fd/3'],
      ['linked.md', link],
    ];
    for (const [name, output] of outputs) {
      expect(flagged(await processes(name, LARGE_INPUT_BYTES, output)), name).not.toContain(true);
      const written = readFileSync(join(dir, `${name}.fd3.docx`));
      expect(written.subarray(0, 2).toString('latin1'), name).toBe('PK');
      expect(written.byteLength, name).toBeGreaterThan(10_000);
    }
  }, 130_000);
});
