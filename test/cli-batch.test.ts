// Batch conversion (issue 31): `docwright convert a.md b.md docs/*.md -o out/` and `docwright convert docs/ -o out/`
// convert many files in one run, one line per file (the file written, or the error in one sentence), exit status 1
// when any failed while the others are still written; a folder gives its own .md files (not its subfolders'); two
// inputs that would write the same output never overwrite one another.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { part, validateDocx } from './helpers/docx.ts';
import { runCli } from './helpers/docwright-process.ts';

const temp = mkdtempSync(join(tmpdir(), 'dw-batch-'));
afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
});

const env = { ...process.env, DOCWRIGHT_HOME: join(temp, 'data'), DOCWRIGHT_KEYCHAIN: 'off' };
const convert = (args: string[]) => runCli(['convert', ...args], { env, timeoutMs: 180_000 });

function write(path: string, text: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

async function expectDocument(path: string, text: string): Promise<void> {
  const docx = new Uint8Array(readFileSync(path));
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
  expect(part(docx, 'word/document.xml')).toContain(text);
}

const WROTE = String.raw`Wrote (.+) \([\d.]+ KB\): \d+ headings?, .*; (no warnings|\d+ warnings?)`;

describe('docwright convert with several inputs', () => {
  it('writes one document per file into -o FOLDER, one line each, in order', async () => {
    const a = write(join(temp, 'files', 'a.md'), '# Alpha\n');
    const b = write(join(temp, 'files', 'b.md'), '# Beta\n\n- one\n- two\n');
    const c = write(join(temp, 'files', 'c.markdown'), '# Gamma\n');
    const out = join(temp, 'out1');
    const result = await convert([a, b, c, '-o', `${out}/`]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.map((line) => new RegExp(`^${WROTE}$`).exec(line)?.[1])).toEqual(
      ['a', 'b', 'c'].map((n) => join(out, `${n}.docx`)),
    );
    await expectDocument(join(out, 'a.docx'), 'Alpha');
    await expectDocument(join(out, 'b.docx'), 'Beta');
    await expectDocument(join(out, 'c.docx'), 'Gamma');
  }, 240_000);

  it('goes on past a file that fails: its error in one sentence, the others written, exit status 1', async () => {
    const a = write(join(temp, 'mixed', 'a.md'), '# Alpha\n');
    const missing = join(temp, 'mixed', 'missing.md');
    const c = write(join(temp, 'mixed', 'c.md'), '# Gamma\n');
    const out = join(temp, 'out2');
    const result = await convert([a, missing, c, '-o', `${out}/`]);
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^${WROTE}$`));
    expect(lines[1]).toBe(`docwright: cannot read ${missing}: there is no such file.`);
    expect(lines[2]).toMatch(new RegExp(`^${WROTE}$`));
    await expectDocument(join(out, 'a.docx'), 'Alpha');
    await expectDocument(join(out, 'c.docx'), 'Gamma');
    expect(existsSync(join(out, 'missing.docx'))).toBe(false);
  }, 240_000);

  it("converts a folder's .md files (not its subfolders', not other files) into -o, made when missing", async () => {
    const docs = join(temp, 'docs');
    write(join(docs, 'intro.md'), '# Intro\n');
    write(join(docs, 'guide.md'), '# Guide\n');
    write(join(docs, 'notes.txt'), 'not markdown');
    write(join(docs, 'sub', 'deep.md'), '# Deep\n');
    const out = join(temp, 'out3');
    const result = await convert([docs, '-o', out]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    // In name order.
    expect(lines.map((line) => new RegExp(`^${WROTE}$`).exec(line)?.[1])).toEqual([
      join(out, 'guide.docx'),
      join(out, 'intro.docx'),
    ]);
    await expectDocument(join(out, 'intro.docx'), 'Intro');
    expect(existsSync(join(out, 'deep.docx'))).toBe(false);
    expect(existsSync(join(out, 'notes.docx'))).toBe(false);
  }, 240_000);

  it("never overwrites one input's document with another's of the same name", async () => {
    const first = write(join(temp, 'same', 'one', 'readme.md'), '# First\n');
    const second = write(join(temp, 'same', 'two', 'readme.md'), '# Second\n');
    const out = join(temp, 'out4');
    const result = await convert([first, second, '-o', out]);
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${WROTE}$`));
    expect(lines[1]).toBe(
      `docwright: ${second} was not converted: its document ${join(out, 'readme.docx')} is also that of ${first}; convert them into different folders.`,
    );
    await expectDocument(join(out, 'readme.docx'), 'First');
  }, 240_000);

  it('writes each document beside its input without -o', async () => {
    const a = write(join(temp, 'beside', 'a.md'), '# Alpha\n');
    const b = write(join(temp, 'beside', 'more', 'b.md'), '# Beta\n');
    const result = await convert([a, b, '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    await expectDocument(join(temp, 'beside', 'a.docx'), 'Alpha');
    await expectDocument(join(temp, 'beside', 'more', 'b.docx'), 'Beta');
  }, 240_000);

  it.each([
    [
      ['a.md', 'b.md', '-o', 'out.docx'],
      'with several inputs, -o names a folder, not the file out.docx; see `docwright convert --help`.',
    ],
    [['a.md', '-'], 'standard input (-) is converted alone, not with other inputs; see `docwright convert --help`.'],
  ])('refuses %j in one sentence', async (args, message) => {
    const dir = join(temp, 'usage');
    write(join(dir, 'a.md'), '# A\n');
    write(join(dir, 'b.md'), '# B\n');
    writeFileSync(join(dir, 'out.docx'), 'kept');
    const result = await runCli(
      ['convert', ...args.map((a) => (a.endsWith('.md') || a.endsWith('.docx') ? join(dir, a) : a))],
      {
        env,
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`docwright: ${message.replace('out.docx', join(dir, 'out.docx'))}\n`);
    expect(readFileSync(join(dir, 'out.docx'), 'utf8')).toBe('kept');
  });
});
