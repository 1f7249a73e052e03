// What a new user runs into on the command line: output piped into `head` (a reader that goes away), a wrong
// command line (one sentence and where the help is, exit status 2), -o naming a folder, and the label and the floor
// of --time-limit. Real `node bin/docwright.js` processes, real files.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './helpers/docwright-process.ts';
import { validateDocx } from './helpers/docx.ts';

const root = resolve(import.meta.dirname, '..');
const welcome = join(root, 'examples', 'welcome.md');
const dir = mkdtempSync(join(tmpdir(), 'dw-cli-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { ...process.env, DOCWRIGHT_HOME: join(dir, 'data'), DOCWRIGHT_KEYCHAIN: 'off' };

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `docwright ARGS`; with `closedStdout`, its standard output is a pipe whose reader has gone away. */
function docwright(
  args: string[],
  options: { closedStdout?: boolean; stdin?: string; stdinAfterMs?: number } = {},
): Promise<Result> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env });
    let stdout = '';
    let stderr = '';
    // Closed before the child writes anything: its writes fail with EPIPE, as under `| head -1` once head is done.
    if (options.closedStdout) child.stdout.destroy();
    else child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code, signal) => done({ code: code ?? (signal ? 128 : -1), stdout, stderr }));
    if (options.stdinAfterMs === undefined) child.stdin.end(options.stdin ?? '');
    else setTimeout(() => child.stdin.end(options.stdin ?? ''), options.stdinAfterMs);
  });
}

describe('standard input from a slow writer', () => {
  it('waits for it: `curl … | docwright convert -` converts what arrives a while later', async () => {
    // A read of descriptor 0 while the pipe is still empty answered EAGAIN, which the command took for an error.
    const out = join(dir, 'slow.docx');
    const { code, stderr } = await docwright(['convert', '-', '-o', out, '--time-limit', '10'], {
      stdin: '# Hello\n\nSome text.\n',
      stdinAfterMs: 1500,
    });
    expect(stderr).toMatch(/^Wrote .*slow\.docx/);
    expect(code).toBe(0);
    const { ok, report } = await validateDocx(new Uint8Array(readFileSync(out)));
    expect(ok, report).toBe(true);
  });
});

describe('output into a pipe whose reader went away', () => {
  it.each([[['--help']], [['template', 'styles']], [['config', 'get']], [['convert', '-', '-o', '-']]])(
    '%j ends quietly with exit status 0',
    async (args) => {
      const { code, stderr } = await docwright(args, { closedStdout: true, stdin: '# Hello\n' });
      expect(stderr).not.toMatch(/EPIPE|Error|at /);
      expect(code).toBe(0);
    },
  );
});

describe('a wrong command line', () => {
  const see = ' see `docwright convert --help`.\n';
  it.each([
    [['convert', 'a.md', '-'], `docwright: standard input (-) is converted alone, not with other inputs;${see}`],
    [
      ['convert', 'a.md', '--time-limit', 'abc'],
      `docwright: --time-limit must be a number of seconds from 0.1 to 86400, not abc;${see}`,
    ],
    [
      ['convert', 'a.md', '--time-limit', '0'],
      `docwright: --time-limit must be a number of seconds from 0.1 to 86400, not 0;${see}`,
    ],
    [
      ['convert', 'a.md', '--time-limit', '1e-9'],
      `docwright: --time-limit must be a number of seconds from 0.1 to 86400, not 1e-9;${see}`,
    ],
    [
      ['convert', 'a.md', '--memory-limit', '8'],
      `docwright: --memory-limit must be a whole number of MB from 16 to 65536, not 8;${see}`,
    ],
    [['convert', 'a.md', '--colour'], `docwright: unknown option '--colour';${see}`],
    [['convert'], `docwright: missing required argument 'input';${see}`],
    [['frobnicate'], "docwright: unknown command 'frobnicate'; see `docwright --help`.\n"],
  ])('%j is one sentence and where the help is, exit status 2', async (args, message) => {
    const { code, stdout, stderr } = await docwright(args);
    expect(stderr).toBe(message);
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });
});

describe('convert -o naming a folder', () => {
  it('says that a folder given with a trailing slash does not exist', async () => {
    const missing = join(dir, 'nodir');
    const { code, stderr } = await docwright(['convert', welcome, '-o', `${missing}/`, '-q']);
    expect(stderr).toContain(`docwright: cannot write ${missing}/: the folder ${missing} does not exist.\n`);
    expect(stderr).not.toContain('is a folder, not a file');
    expect(code).toBe(1);
  });

  it("writes INPUT's name with .docx into an existing folder, as cp does", async () => {
    const out = join(dir, 'out');
    mkdirSync(out);
    const { code, stderr } = await docwright(['convert', welcome, '-o', out]);
    expect(stderr).toContain(`Wrote ${join(out, 'welcome.docx')} (`);
    expect(code).toBe(0);
    const { ok, report } = await validateDocx(new Uint8Array(readFileSync(join(out, 'welcome.docx'))));
    expect(ok, report).toBe(true);
  });

  it('refuses standard input into a folder: it has no name to give the file', async () => {
    const { code, stderr } = await docwright(['convert', '-', '-o', dir], { stdin: '# Hi\n' });
    expect(stderr).toBe(
      `docwright: cannot write standard input into the folder ${dir}: it has no name; give -o a file name.\n`,
    );
    expect(code).toBe(1);
  });
});

describe('--time-limit', () => {
  it('names the input file when a conversion takes longer, and standard input when it came from there', async () => {
    // A list nested 400 deep: seconds of the parser's CPU (test/security/cli-bounds.test.ts).
    const markdown = Array.from({ length: 400 }, (_, i) => `${'  '.repeat(i)}- item ${String(i)}\n`).join('');
    writeFileSync(join(dir, 'nested.md'), markdown);
    const tail =
      'the conversion took longer than 0.1 s; split the document or simplify its nesting, or raise the limit with --time-limit SECONDS.\n';
    const file = await docwright(['convert', 'nested.md', '-o', 'nested.docx', '--time-limit', '0.1']);
    expect(file.stderr).toBe(`docwright: nested.md: ${tail}`);
    expect(file.code).toBe(1);
    const piped = await docwright(['convert', '-', '-o', 'nested.docx', '--time-limit', '0.1'], { stdin: markdown });
    expect(piped.stderr).toBe(`docwright: standard input: ${tail}`);
    expect(piped.code).toBe(1);
  });
});

describe('docwright --help', () => {
  it('has an example of each command, as the README says', async () => {
    const { code, stdout } = await docwright(['--help']);
    expect(code).toBe(0);
    const commands = [...(/Commands:\n([\s\S]*?)\n\n/.exec(stdout)?.[1] ?? '').matchAll(/^ {2}(\w+)/gm)]
      .map((m) => m[1] ?? '')
      .filter((name) => name !== 'help');
    expect(commands.length).toBeGreaterThan(8);
    const examples = stdout.slice(stdout.indexOf('Examples'));
    for (const name of commands) expect(examples, name).toMatch(new RegExp(`^ {2}docwright ${name}\\b`, 'm'));
  });
});
