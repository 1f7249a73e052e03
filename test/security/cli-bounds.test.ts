// The command line bounds a conversion as the server does (security issue, item 7): in its own process and through
// the running server of its data folder (issue 31), with the server's time and memory limits (its environment's, else
// 30 s and 1024 MB), the API's document_too_complex message as a one-sentence error and exit status 1, and
// --time-limit / --memory-limit for a user who means to wait longer or use more.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMarkdown } from '../../bench/generate.ts';
import { killAllChildren, runCli, startServe } from '../helpers/docwright-process.ts';
import { validateDocx } from '../helpers/docx.ts';

const temp = mkdtempSync(join(tmpdir(), 'dw-cli-bounds-'));

afterAll(async () => {
  await killAllChildren();
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
  DOCWRIGHT_CONVERT_TIMEOUT_MS: String(ms),
  ...extra,
});

const TIME_ERROR = (seconds: string) =>
  `docwright: ${nested}: the conversion took longer than ${seconds} s; split the document or simplify its nesting, or raise the limit with --time-limit SECONDS.\n`;

describe('docwright convert in its own process', () => {
  it("stops a conversion past the server's time limit with the API's message and exit status 1", async () => {
    const output = join(temp, 'env.docx');
    const result = await runCli(['convert', nested, '-o', output], {
      env: withTimeout(1000),
      timeoutMs: 120_000,
    });
    expect(result.stderr).toBe(TIME_ERROR('1'));
    expect(result.code).toBe(1);
    expect(existsSync(output)).toBe(false);
  });

  it('takes its time limit from --time-limit SECONDS, which also raises it', async () => {
    const output = join(temp, 'flag.docx');
    const stopped = await runCli(['convert', nested, '-o', output, '--time-limit', '0.5'], {
      env: withTimeout(600_000),
      timeoutMs: 120_000,
    });
    expect(stopped.stderr).toBe(TIME_ERROR('0.5'));
    expect(stopped.code).toBe(1);
    const raised = await runCli(['convert', nested, '-o', output, '-q', '--time-limit', '600'], {
      env: withTimeout(1000),
      timeoutMs: 300_000,
    });
    expect(raised.stderr).toBe('warning: list_depth_exceeded: 400\n');
    expect(raised.code).toBe(0);
    const { ok, report } = await validateDocx(readFileSync(output));
    expect(ok, report).toBe(true);
  });

  it('stops a conversion past --memory-limit MB with the same message', async () => {
    const result = await runCli(['convert', large, '-o', join(temp, 'memory.docx'), '--memory-limit', '32'], {
      env: withTimeout(600_000),
      timeoutMs: 120_000,
    });
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

describe('docwright convert through the running server', () => {
  it("is refused at the server's limit with the same message, alone and in a batch whose other files are written", async () => {
    const data = join(temp, 'data-served');
    // The server's limit is 1 s; the command line's own environment has the default 30 s: the refusal is the server's.
    await startServe([], { env: withTimeout(1000, { DOCWRIGHT_HOME: data, DOCWRIGHT_KEYCHAIN: 'off' }) });
    const env = { ...process.env, DOCWRIGHT_HOME: data, DOCWRIGHT_KEYCHAIN: 'off' };
    const result = await runCli(['convert', nested, '-o', join(temp, 'served.docx')], { env, timeoutMs: 120_000 });
    expect(result.stderr).toBe(TIME_ERROR('1'));
    expect(result.code).toBe(1);
    expect(existsSync(join(temp, 'served.docx'))).toBe(false);
    const small = join(temp, 'small.md');
    writeFileSync(small, '# Small\n');
    const out = join(temp, 'served-batch');
    const batch = await runCli(['convert', nested, small, '-o', out], { env, timeoutMs: 120_000 });
    expect(batch.code).toBe(1);
    const lines = batch.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(TIME_ERROR('1').trimEnd());
    expect(lines[1]).toMatch(/^Wrote .*small\.docx .*; converted by the running server \(pid \d+\)$/);
    const { ok, report } = await validateDocx(readFileSync(join(out, 'small.docx')));
    expect(ok, report).toBe(true);
  }, 240_000);
});
