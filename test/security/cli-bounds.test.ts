// The command line bounds a conversion as the server does (security issue, item 7): in its own process
// (`--no-daemon`) and through the warm daemon, with the server's time and memory limits (its environment's, else
// 30 s and 1024 MB), the API's document_too_complex message as a one-sentence error and exit status 1, and
// --time-limit / --memory-limit for a user who means to wait longer or use more.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMarkdown } from '../../bench/generate.ts';
import { runCli } from '../helpers/docwright-process.ts';
import { validateDocx } from '../helpers/docx.ts';

const temp = mkdtempSync(join(tmpdir(), 'dw-cli-bounds-'));
const daemonDir = join(temp, 'daemon');

afterAll(async () => {
  await runCli(['daemon', 'stop'], { env: { ...process.env, DOCWRIGHT_DAEMON: '1', DOCWRIGHT_DAEMON_DIR: daemonDir } });
  rmSync(temp, { recursive: true, force: true });
});

// A list nested 400 deep, each item indented under the last: seconds of the parser's CPU (docs/security.md).
const nested = join(temp, 'nested.md');
writeFileSync(nested, Array.from({ length: 400 }, (_, i) => `${'  '.repeat(i)}- item ${String(i)}\n`).join(''));
const large = join(temp, 'large.md');
writeFileSync(large, generateMarkdown(1536 * 1024));

/** The environment of a command line whose conversions have the server's time limit set to MS. */
const withTimeout = (ms: number, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  DOCWRIGHT_DAEMON: '0',
  DOCWRIGHT_CONVERT_TIMEOUT_MS: String(ms),
  ...extra,
});

const TIME_ERROR = (seconds: string) =>
  `docwright: ${nested}: the conversion took longer than ${seconds} s; split the document or simplify its nesting, or raise the limit with --time-limit SECONDS.\n`;

describe('docwright convert in its own process', () => {
  it("stops a conversion past the server's time limit with the API's message and exit status 1", async () => {
    const output = join(temp, 'env.docx');
    const result = await runCli(['convert', nested, '-o', output, '--no-daemon'], {
      env: withTimeout(1000),
      timeoutMs: 120_000,
    });
    expect(result.stderr).toBe(TIME_ERROR('1'));
    expect(result.code).toBe(1);
    expect(existsSync(output)).toBe(false);
  });

  it('takes its time limit from --time-limit SECONDS, which also raises it', async () => {
    const output = join(temp, 'flag.docx');
    const stopped = await runCli(['convert', nested, '-o', output, '--no-daemon', '--time-limit', '0.5'], {
      env: withTimeout(600_000),
      timeoutMs: 120_000,
    });
    expect(stopped.stderr).toBe(TIME_ERROR('0.5'));
    expect(stopped.code).toBe(1);
    const raised = await runCli(['convert', nested, '-o', output, '-q', '--no-daemon', '--time-limit', '600'], {
      env: withTimeout(1000),
      timeoutMs: 300_000,
    });
    expect(raised.stderr).toBe('warning: list_depth_exceeded: 400\n');
    expect(raised.code).toBe(0);
    const { ok, report } = await validateDocx(readFileSync(output));
    expect(ok, report).toBe(true);
  });

  it('stops a conversion past --memory-limit MB with the same message', async () => {
    const result = await runCli(
      ['convert', large, '-o', join(temp, 'memory.docx'), '--no-daemon', '--memory-limit', '32'],
      { env: withTimeout(600_000), timeoutMs: 120_000 },
    );
    expect(result.stderr).toBe(
      `docwright: ${large}: the conversion needed more than 32 MB of memory; split the document or simplify its nesting, or raise the limit with --memory-limit MB.\n`,
    );
    expect(result.code).toBe(1);
  });

  it('refuses a limit that is not one, as a usage error', async () => {
    for (const args of [
      ['--time-limit', '0'],
      ['--time-limit', 'soon'],
      ['--memory-limit', '8'],
      ['--memory-limit', '1.5'],
    ]) {
      const result = await runCli(['convert', nested, '-o', join(temp, 'x.docx'), ...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(`^docwright: ${args[0] ?? ''} must be .*; see \`docwright convert --help\`\\.\n$`),
      );
    }
    expect(readdirSync(temp)).not.toContain('x.docx');
  });
});

describe('docwright convert through the daemon', () => {
  it('is refused by the daemon at the same limit, with the same message, and not converted again here', async () => {
    const env = withTimeout(1000, { DOCWRIGHT_DAEMON: '1', DOCWRIGHT_DAEMON_DIR: daemonDir });
    // A first conversion starts the daemon (with this environment: the same limits) and converts here.
    const start = join(temp, 'start.md');
    writeFileSync(start, '# Start\n');
    expect((await runCli(['convert', start, '-o', join(temp, 'start.docx'), '-q'], { env })).code).toBe(0);
    const end = Date.now() + 90_000;
    while (!/running: pid \d+, \d+ conversions?/.test((await runCli(['daemon', 'status'], { env })).stdout)) {
      if (Date.now() > end) throw new Error('the daemon did not start');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const result = await runCli(['convert', nested, '-o', join(temp, 'daemon.docx')], { env, timeoutMs: 120_000 });
    expect(result.stderr).toBe(TIME_ERROR('1'));
    expect(result.code).toBe(1);
    // The daemon answered it (its conversions count only those it served) and is still there for the next one.
    expect((await runCli(['daemon', 'status'], { env })).stdout).toMatch(/running: pid \d+, 0 conversions/);
  });
});
