// The attacker's review of `docwright convert`'s outputs: a document is never written over a file the same command
// reads, the template (-t) or one of its inputs, whatever path names it (a link, another spelling): that input is
// refused in one sentence and the file stays as it was; in a batch the other inputs are still written (exit 1).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateDocx } from '../helpers/docx.ts';
import { runCli } from '../helpers/docwright-process.ts';

const temp = mkdtempSync(join(tmpdir(), 'dw-output-clobber-'));
afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
});

const env = { ...process.env, DOCWRIGHT_HOME: join(temp, 'data'), DOCWRIGHT_KEYCHAIN: 'off' };
const convert = (args: string[]) => runCli(['convert', ...args], { env, timeoutMs: 120_000 });
const TEMPLATE = resolve(import.meta.dirname, '../fixtures/templates/corporate.docx');

describe('a document never replaces a file the command reads', () => {
  it('single: the template beside the input, of the same name', async () => {
    const dir = join(temp, 'single');
    mkdirSync(dir);
    writeFileSync(join(dir, 'letter.md'), '# Letter\n');
    copyFileSync(TEMPLATE, join(dir, 'letter.docx'));
    const before = readFileSync(join(dir, 'letter.docx'));
    const result = await convert([join(dir, 'letter.md'), '-t', join(dir, 'letter.docx')]);
    expect(readFileSync(join(dir, 'letter.docx')).equals(before)).toBe(true);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(
      /^docwright: .*letter\.md was not converted: its document .*letter\.docx is the template/,
    );
  }, 120_000);

  it('single: -o naming the template through a link', async () => {
    const dir = join(temp, 'linked');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.md'), '# A\n');
    copyFileSync(TEMPLATE, join(dir, 'corp.docx'));
    symlinkSync(join(dir, 'corp.docx'), join(dir, 'out.docx'));
    const before = readFileSync(join(dir, 'corp.docx'));
    const result = await convert([join(dir, 'a.md'), '-t', join(dir, 'corp.docx'), '-o', join(dir, 'out.docx')]);
    expect(readFileSync(join(dir, 'corp.docx')).equals(before)).toBe(true);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/is the template/);
  }, 120_000);

  it('single: an input whose document would be itself', async () => {
    const dir = join(temp, 'self');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.docx'), '# Not really a docx\n');
    const result = await convert([join(dir, 'notes.docx')]);
    expect(readFileSync(join(dir, 'notes.docx'), 'utf8')).toBe('# Not really a docx\n');
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/notes\.docx was not converted: its document .*notes\.docx is that input itself/);
  }, 120_000);

  it('batch: the template in the folder converted, the others written', async () => {
    const dir = join(temp, 'batch');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.md'), '# A\n');
    writeFileSync(join(dir, 'corp.md'), '# Corp\n');
    copyFileSync(TEMPLATE, join(dir, 'corp.docx'));
    const before = readFileSync(join(dir, 'corp.docx'));
    const result = await convert([dir, '-t', join(dir, 'corp.docx')]);
    expect(readFileSync(join(dir, 'corp.docx')).equals(before)).toBe(true);
    expect(result.code, result.stderr).toBe(1);
    const { ok, report } = await validateDocx(readFileSync(join(dir, 'a.docx')));
    expect(ok, report).toBe(true);
    expect(result.stderr).toMatch(/corp\.md was not converted: its document .*corp\.docx is the template/);
  }, 120_000);

  it('batch: an input that is the document of another', async () => {
    const dir = join(temp, 'other');
    mkdirSync(dir);
    writeFileSync(join(dir, 'x.md'), '# X\n');
    writeFileSync(join(dir, 'x.docx'), '# Markdown kept in a .docx name\n');
    const result = await convert([join(dir, 'x.md'), join(dir, 'x.docx'), '-o', join(temp, 'other-out')]);
    expect(readFileSync(join(dir, 'x.docx'), 'utf8')).toBe('# Markdown kept in a .docx name\n');
    // -o a folder: both documents are x.docx there, the second refused as that of the first; nothing in dir changes.
    expect(result.code, result.stderr).toBe(1);
    const beside = await convert([join(dir, 'x.md'), join(dir, 'x.docx')]);
    expect(readFileSync(join(dir, 'x.docx'), 'utf8')).toBe('# Markdown kept in a .docx name\n');
    expect(beside.code, beside.stderr).toBe(1);
    expect(beside.stderr).toMatch(/x\.md was not converted: its document .*x\.docx is the input .*x\.docx/);
  }, 120_000);
});
