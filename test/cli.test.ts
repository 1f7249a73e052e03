// The command line as a user runs it: a real process, real files.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { part, pdfText, validateDocx } from './helpers/docx.ts';

const run = promisify(execFile);
const bin = resolve(import.meta.dirname, '../bin/docwright.js');
let dir: string;

/** Runs `docwright ARGS`, optionally with standard input; never rejects. */
function docwright(args: string[], stdin?: string): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => done({ code: code ?? -1, stdout: Buffer.concat(out), stderr: err }));
    child.stdin.end(stdin ?? '');
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dw-cli-'));
  writeFileSync(
    join(dir, 'doc.md'),
    '# Report\n\nHello **world** with a [link](https://example.com).\n\n- one\n  - two\n    - three\n',
  );
});

describe('docwright convert', () => {
  it('converts with no other option into a schema-valid document that LibreOffice opens', async () => {
    const { code, stderr } = await docwright(['convert', 'doc.md', '-o', 'out.docx']);
    expect(stderr).toMatch(
      /^Wrote out\.docx \(\d+(\.\d)? KB\): 1 heading, 4 paragraphs, 3 lists, 0 tables, 0 code blocks, 0 images; no warnings\n$/,
    );
    expect(code).toBe(0);
    const docx = new Uint8Array(readFileSync(join(dir, 'out.docx')));
    const { ok, report } = await validateDocx(docx);
    expect(ok, report).toBe(true);
    const text = await pdfText(docx);
    for (const word of ['Report', 'Hello world', 'three']) expect(text).toContain(word);
  });

  it('writes INPUT.docx next to the input by default', async () => {
    const { code } = await docwright(['convert', 'doc.md']);
    expect(code).toBe(0);
    expect(existsSync(join(dir, 'doc.docx'))).toBe(true);
  });

  it('reads standard input with -', async () => {
    const { code } = await docwright(['convert', '-', '-o', 'stdin.docx'], '# From stdin\n');
    expect(code).toBe(0);
    expect(part(new Uint8Array(readFileSync(join(dir, 'stdin.docx'))), 'word/document.xml')).toContain('From stdin');
  });

  it('writes the document to standard output with -o -', async () => {
    const { code, stdout } = await docwright(['convert', '-', '-o', '-'], 'piped\n');
    expect(code).toBe(0);
    expect(stdout.subarray(0, 2).toString()).toBe('PK');
  });

  it('applies a template and a mapping file, printing warnings to standard error one per line', async () => {
    writeFileSync(
      join(dir, 'mapping.json'),
      JSON.stringify({ name: 'm', rules: { heading: { '1': 'Corp Body' }, paragraph: 'Nope' } }),
    );
    const template = resolve(import.meta.dirname, 'fixtures/templates/corporate.docx');
    const { code, stderr } = await docwright([
      'convert',
      'doc.md',
      '-o',
      'mapped.docx',
      '--template',
      template,
      '--mapping',
      'mapping.json',
    ]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/^warning: missing_style: Nope\nWrote mapped\.docx \(.*; 1 warning\n$/);
    const xml = part(new Uint8Array(readFileSync(join(dir, 'mapped.docx'))), 'word/document.xml');
    expect(xml).toContain('<w:pStyle w:val="CorpBody"/>');
  });

  it('accepts a bare rules object as the mapping', async () => {
    writeFileSync(join(dir, 'rules.json'), JSON.stringify({ paragraph: 'Body Text' }));
    const { code, stderr } = await docwright(['convert', 'doc.md', '-o', 'rules.docx', '-m', 'rules.json', '--quiet']);
    expect([code, stderr]).toEqual([0, '']);
  });

  it('says nothing on success with --quiet, but still prints warnings', async () => {
    expect(await docwright(['convert', 'doc.md', '-o', 'quiet.docx', '-q'])).toMatchObject({ code: 0, stderr: '' });
    const { code, stderr } = await docwright(['convert', '-', '-o', 'quiet-empty.docx', '--quiet'], '');
    expect([code, stderr]).toEqual([0, 'warning: empty_document: the markdown has no content\n']);
  });

  it('names standard output in its line when it writes there', async () => {
    const { code, stderr } = await docwright(['convert', '-', '-o', '-'], '# Title\n');
    expect(code).toBe(0);
    expect(stderr).toMatch(/^Wrote standard output \(.* KB\): 1 heading, 0 paragraphs, /);
  });

  it.each([
    ['empty', ''],
    ['whitespace-only', ' \n\t\n\n'],
  ])('turns %s input into a valid document with the warning empty_document', async (_, text) => {
    writeFileSync(join(dir, 'empty.md'), text);
    const { code, stderr } = await docwright(['convert', 'empty.md', '-o', 'empty.docx']);
    expect(code).toBe(0);
    expect(stderr.split('\n')[0]).toBe('warning: empty_document: the markdown has no content');
    expect(stderr).toContain('; 1 warning\n');
    const { ok, report } = await validateDocx(new Uint8Array(readFileSync(join(dir, 'empty.docx'))));
    expect(ok, report).toBe(true);
  });

  it('prints a version', async () => {
    const { code, stdout } = await docwright(['--version']);
    expect(code).toBe(0);
    expect(stdout.toString()).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('shows an example for each command in --help', async () => {
    const { stdout } = await docwright(['--help']);
    const help = stdout.toString();
    for (const command of ['convert', 'template', 'serve', 'mcp', 'keys', 'config', 'cert', 'status']) {
      expect(help, command).toMatch(new RegExp(`^  docwright ${command}\\b`, 'm'));
    }
  });

  it.each([
    [['convert', 'missing.md'], /^docwright: cannot read missing\.md: there is no such file\.\n$/],
    [
      ['convert', 'doc.md', '--template', 'doc.md'],
      /^docwright: template doc\.md: this file is not a Word template \(\.docx or \.dotx\): it is not a zip package\.\n$/,
    ],
    [
      ['convert', 'doc.md', '--template', 'nope.docx'],
      /^docwright: cannot read template nope\.docx: there is no such file\.\n$/,
    ],
    [['convert', 'doc.md', '--mapping', 'doc.md'], /^docwright: mapping doc\.md is not valid JSON/],
    [
      ['convert', 'doc.md', '-o', 'x.docx', '--mapping', 'bad-shape.json'],
      /^docwright: Invalid mapping: rules\.heading\.9 is not a heading level/,
    ],
    // A folder is converted as its .md files (a batch): one without any is a failed input.
    [['convert', 'empty'], /^docwright: the folder empty holds no \.md files\.\n$/],
    // Endless or huge files are refused past the API's limits, not read into memory (5 GB before).
    [
      ['convert', 'doc.md', '--template', '/dev/zero'],
      /^docwright: template \/dev\/zero is larger than 50 MB \(the API's limit too\)\.\n$/,
    ],
    [
      ['convert', 'doc.md', '--mapping', '/dev/zero'],
      /^docwright: mapping \/dev\/zero is larger than 1 MB \(the API's limit too\)\.\n$/,
    ],
    [['convert', 'doc.md', '--template', '.'], /^docwright: cannot read template \.: it is a folder, not a file\.\n$/],
    [
      ['convert', 'doc.md', '-o', 'no/such/folder/out.docx'],
      /^docwright: cannot write no\/such\/folder\/out\.docx: the folder no\/such\/folder does not exist\.\n$/,
    ],
  ])('refuses bad input %j with a one-line error and a non-zero exit', async (args, message) => {
    writeFileSync(join(dir, 'bad-shape.json'), JSON.stringify({ heading: { '9': 'x' } }));
    mkdirSync(join(dir, 'empty'), { recursive: true });
    const { code, stderr } = await docwright(args);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('docwright template', () => {
  it('writes the built-in template, a valid document with a footer, the same bytes every time', async () => {
    await run(process.execPath, [bin, 'template', 'default', '-o', join(dir, 'a.docx')]);
    await run(process.execPath, [bin, 'template', 'default', '-o', join(dir, 'b.docx')]);
    const a = readFileSync(join(dir, 'a.docx'));
    expect(a.equals(readFileSync(join(dir, 'b.docx')))).toBe(true);
    const { ok, report } = await validateDocx(new Uint8Array(a));
    expect(ok, report).toBe(true);
    expect(part(new Uint8Array(a), 'word/footer1.xml')).toContain('PAGE');
  });

  it("lists a template's styles by the names a mapping uses", async () => {
    const { stdout } = await run(process.execPath, [bin, 'template', 'styles', '--json']);
    const styles = JSON.parse(stdout) as { name: string; type: string }[];
    for (const name of ['heading 1', 'Body Text', 'List Bullet', 'List Number', 'Code Block', 'Quote']) {
      expect(styles.find((s) => s.name === name)?.type).toBe('paragraph');
    }
    expect(styles.find((s) => s.name === 'Docwright Table')?.type).toBe('table');
  });
});
