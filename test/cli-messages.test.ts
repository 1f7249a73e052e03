// What the command line says, as a user reads it: real `node bin/docwright.js` processes, real files. The template
// commands confirm and list styles as Word shows them, `config get` prints what `config set` prints, a piped
// conversion says why its images are placeholders, and the README's example converts to one title.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { part, validateDocx } from './helpers/docx.ts';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'bin', 'docwright.js');
const dir = mkdtempSync(join(tmpdir(), 'dw-cli-messages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `docwright ARGS` in the scratch folder with its own data directory, optionally with standard input. */
function docwright(args: string[], options: { stdin?: string; cwd?: string } = {}): Promise<Result> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: options.cwd ?? dir,
      env: { ...process.env, DOCWRIGHT_HOME: join(dir, 'data'), DOCWRIGHT_KEYCHAIN: 'off' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

describe('docwright template', () => {
  it('default -o says what it wrote, as every other command confirms', async () => {
    const { code, stdout, stderr } = await docwright(['template', 'default', '-o', 'mine.docx']);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^Wrote mine\.docx \(\d+\.\d KB\): the built-in template "Docwright Default"\n$/);
    const { ok, report } = await validateDocx(new Uint8Array(readFileSync(join(dir, 'mine.docx'))));
    expect(ok, report).toBe(true);
  });

  it("styles shows the names as Word's UI does, sorted by type and name, with the id where it differs", async () => {
    const { code, stdout } = await docwright(['template', 'styles']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const rows = lines.map((line) => /^(\S+)\s+(.+?)(?:\s+\(id (\S+)\))?$/.exec(line));
    expect(rows.every(Boolean), stdout).toBe(true);
    const parsed = rows.map((m) => ({ type: m?.[1] ?? '', name: m?.[2] ?? '', id: m?.[3] }));
    // Word stores its built-in styles in lower case ("heading 1", "toc 1") and shows them capitalised.
    const names = parsed.map((row) => row.name);
    expect(names).toEqual(expect.arrayContaining(['Heading 1', 'TOC 1', 'Footnote Text', 'Caption', 'Footer']));
    expect(names.filter((name) => /^[a-z]/.test(name))).toEqual([]);
    // Paragraph styles first, then character, table and numbering styles; by name within each, numbers in order.
    const order = ['paragraph', 'character', 'table', 'numbering'];
    const sorted = [...parsed].sort(
      (a, b) => order.indexOf(a.type) - order.indexOf(b.type) || a.name.localeCompare(b.name, 'en', { numeric: true }),
    );
    expect(parsed).toEqual(sorted);
    // The id only where it is more than the name without its spaces: "Normal Table" is TableNormal.
    expect(parsed.find((row) => row.name === 'Normal Table')).toEqual({
      type: 'table',
      name: 'Normal Table',
      id: 'TableNormal',
    });
    expect(parsed.find((row) => row.name === 'Heading 1')?.id).toBeUndefined();
  });

  it('styles --json keeps the stored name and adds the one Word shows', async () => {
    const { code, stdout } = await docwright(['template', 'styles', '--json']);
    expect(code).toBe(0);
    const styles = JSON.parse(stdout) as { name: string; word_name: string; id: string; type: string }[];
    expect(styles.find((s) => s.id === 'Heading1')).toEqual({
      name: 'heading 1',
      word_name: 'Heading 1',
      id: 'Heading1',
      type: 'paragraph',
    });
  });
});

describe('docwright config', () => {
  it('get prints every setting as set does (key = value), unlimited and none in words', async () => {
    const { code, stdout } = await docwright(['config', 'get']);
    expect(code).toBe(0);
    expect(stdout).toBe(
      'plan = team\nmonthly_quota = unlimited\nretention_days = 30\nport = 47823\nmcp_output_dir = none\n',
    );
    expect((await docwright(['config', 'set', 'retention_days', '7'])).stdout).toBe('retention_days = 7\n');
    expect((await docwright(['config', 'get'])).stdout).toContain('\nretention_days = 7\n');
  });

  it('get --json gives the settings to a program', async () => {
    const { code, stdout } = await docwright(['config', 'get', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ plan: 'team', monthly_quota: null, mcp_output_dir: null });
  });
});

describe('a conversion from standard input', () => {
  it('says why its images are placeholders, naming each by its alt text', async () => {
    const markdown = '# Notes\n\n![The org chart](chart.png)\n\n![](diagram.svg)\n';
    const { code, stderr } = await docwright(['convert', '-', '-o', 'piped.docx'], { stdin: markdown });
    expect(code).toBe(0);
    const warnings = stderr.split('\n').filter((line) => line.startsWith('warning: '));
    expect(warnings).toEqual([
      'warning: line 3: image_placeholder: images are not embedded from standard input: The org chart',
      'warning: line 5: image_placeholder: images are not embedded from standard input: diagram.svg',
    ]);
    const { ok, report } = await validateDocx(new Uint8Array(readFileSync(join(dir, 'piped.docx'))));
    expect(ok, report).toBe(true);
  });

  it('with --no-images keeps the engine own words (the user asked for placeholders)', async () => {
    const { stderr } = await docwright(['convert', '-', '-o', 'no-images.docx', '--no-images'], {
      stdin: '![The org chart](chart.png)\n',
    });
    expect(stderr).toContain('warning: line 1: image_placeholder: The org chart\n');
  });
});

describe('warnings of a conversion', () => {
  // The engine knows where each warning comes from (the API gives it as warning_details[].line); the command line says
  // it too, so the user finds the place without searching the document.
  it('name the line each first came from, alone and in a batch', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'lines.md'), '# Results\n\nAs @fig:nowhere shows.\n\n<!-- never closed\n');
    const alone = await docwright(['convert', 'lines.md', '-o', 'lines.docx']);
    expect(alone.code).toBe(0);
    const warnings = alone.stderr.split('\n').filter((line) => line.startsWith('warning: '));
    expect(warnings).toEqual([
      expect.stringMatching(/^warning: line 5: comment_unclosed: /),
      'warning: line 3: broken_reference: fig:nowhere',
    ]);
    writeFileSync(join(dir, 'other.md'), '# Other\n');
    const batch = await docwright(['convert', 'lines.md', 'other.md', '-o', 'lines-out']);
    expect(batch.code).toBe(0);
    expect(batch.stderr).toContain('warning: lines.md: line 3: broken_reference: fig:nowhere\n');
  });
});

describe("the README's example", () => {
  it('converts examples/welcome.md to a document that carries its title once', async () => {
    const out = join(dir, 'welcome.docx');
    const { code, stderr } = await docwright(['convert', 'examples/welcome.md', '-o', out], { cwd: root });
    expect(code, stderr).toBe(0);
    const docx = new Uint8Array(readFileSync(out));
    const { ok, report } = await validateDocx(docx);
    expect(ok, report).toBe(true);
    const xml = part(docx, 'word/document.xml');
    expect(xml.split('Welcome to Docwright').length - 1).toBe(1);
    // The README quotes the line this conversion prints.
    const line = stderr.split('\n').find((l) => l.startsWith('Wrote '));
    const counts = line?.replace(/^Wrote .*?: /, '') ?? '';
    const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain(counts);
  });
});
