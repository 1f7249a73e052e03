// Issue 15 items 6–8 on the command line (a real process, real files): a mapping file carries the character styles
// and the thematic_break / task_list options; lists keep Word's nine levels; a bad option is refused in words.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { part, validateDocx } from './helpers/docx.ts';

const bin = resolve(import.meta.dirname, '../bin/docwright.js');
let dir: string;

/** Runs `docwright ARGS` in the test's folder; never rejects. */
function docwright(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('close', (code) => {
      done({ code: code ?? -1, stderr: err });
    });
  });
}

/** An awesome list's shape, five levels deep, then one ten levels deep. */
const AWESOME = [
  '# Awesome',
  '',
  '- Programming languages',
  '  - Compiled',
  '    - Systems',
  '      - Rust',
  '        - [The Book](https://doc.rust-lang.org/book/)',
  '- Tools',
  '',
  'Deep:',
  '',
  ...Array.from({ length: 10 }, (_, i) => `${'  '.repeat(i)}- level ${i + 1}`),
  '',
  '---',
  '',
  '- [ ] to do',
  '- [x] done with `code`',
  '',
].join('\n');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dw-cli-options-'));
  writeFileSync(join(dir, 'awesome.md'), AWESOME);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('docwright convert with mapping options', () => {
  it('keeps lists to level 9, warns only beyond it, and applies the mapping file’s options and styles', async () => {
    writeFileSync(
      join(dir, 'mapping.json'),
      JSON.stringify({ rules: { inline_code: 'Verbatim Char', thematic_break: 'none', task_list: 'checkbox' } }),
    );
    const { code, stderr } = await docwright(['convert', 'awesome.md', '-o', 'out.docx', '-m', 'mapping.json']);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('warning: list_depth_exceeded: 10');
    const docx = new Uint8Array(readFileSync(join(dir, 'out.docx')));
    const { ok, report } = await validateDocx(docx);
    expect(ok, report).toBe(true);
    const xml = part(docx, 'word/document.xml');
    const levels = [...xml.matchAll(/<w:ilvl w:val="(\d+)"\/>/g)].map((m) => Number(m[1]));
    // The awesome list's five levels, then the deep list's nine with its tenth item at the ninth.
    expect(levels.slice(0, 6)).toEqual([0, 1, 2, 3, 4, 0]);
    expect(levels.slice(6, 16)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 8]);
    expect(xml).not.toContain('w:type="page"');
    expect(xml).toContain('\u2610 ');
    expect(xml).toContain('<w:rStyle w:val="VerbatimChar"/>');
  });

  it('without a mapping: SPEC’s page break and plain task items', async () => {
    const { code } = await docwright(['convert', 'awesome.md', '-o', 'plain.docx', '-q']);
    expect(code).toBe(0);
    const xml = part(new Uint8Array(readFileSync(join(dir, 'plain.docx'))), 'word/document.xml');
    // The page break: the next paragraph starts a page (docs/elements.md), or its own paragraph before a table.
    expect(xml).toMatch(/<w:pageBreakBefore\/>|<w:br w:type="page"\/>/);
    expect(xml).not.toContain('\u2610');
  });

  it('refuses a bad option in words, naming the field and the values', async () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ task_list: 'boxes' }));
    const { code, stderr } = await docwright(['convert', 'awesome.md', '-o', 'bad.docx', '-m', 'bad.json']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/^docwright: Invalid mapping: rules\.task_list must be one of "plain", "checkbox"/);
  });
});
