// `docwright convert` with citations (docs/captions-references.md): the front matter's bibliography and style are read beside
// the markdown file, confined to its folder as images are; a bibliography that cannot be read is one sentence.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/docwright-process.ts';
import { part, validateDocx } from './helpers/docx.ts';

const REFS = resolve(import.meta.dirname, 'fixtures/citations/refs.bib');

/** A folder holding doc.md (with `front` as its front matter) and refs.bib. */
function folder(front: string, body = 'Markdown is old [@doe2020, p. 33]; @smith2019 agrees [@nobody].\n'): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'dw-cli-cite-')), 'doc');
  mkdirSync(dir);
  copyFileSync(REFS, join(dir, 'refs.bib'));
  writeFileSync(join(dir, 'doc.md'), `---\n${front}\n---\n\n${body}`);
  return dir;
}

/** The text of a document's body, its runs joined. */
function bodyText(docx: Uint8Array): string {
  return [...part(docx, 'word/document.xml').matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:p[ >]|<w:tab\/>/g)]
    .map((m) => m[1] ?? (m[0] === '<w:tab/>' ? '\t' : '\n'))
    .join('')
    .replaceAll('&amp;', '&');
}

describe('docwright convert with citations', () => {
  it('reads the bibliography the front matter names beside the markdown file, whatever the current folder', async () => {
    const dir = folder('bibliography: refs.bib');
    const out = join(dir, 'out.docx');
    const { code, stderr } = await runCli(['convert', join(dir, 'doc.md'), '-o', out]);
    expect(stderr).toContain('warning: line 5: citation_missing: nobody');
    expect(code).toBe(0);
    const docx = new Uint8Array(readFileSync(out));
    const text = bodyText(docx);
    expect(text).toContain('Markdown is old (Doe & Roe, 2020, p. 33); Smith (2019) agrees [@nobody].');
    expect(text).toContain('\nReferences\nDoe, J., & Roe, R. (2020). The Art of Markdown. Example Press.');
    expect(part(docx, 'word/styles.xml')).toContain('w:styleId="Bibliography"');
    const { ok, report } = await validateDocx(docx);
    expect(ok, report).toBe(true);
  });

  it('a numeric style by name, and a subfolder path', async () => {
    const dir = folder('bibliography: sources/refs.bib\ncsl: vancouver');
    mkdirSync(join(dir, 'sources'));
    copyFileSync(REFS, join(dir, 'sources/refs.bib'));
    const out = join(dir, 'out.docx');
    const { code } = await runCli(['convert', join(dir, 'doc.md'), '-o', out]);
    expect(code).toBe(0);
    const text = bodyText(new Uint8Array(readFileSync(out)));
    expect(text).toContain('Markdown is old (1); (2) agrees');
    expect(text).toContain('1.\tDoe J, Roe R. The Art of Markdown.');
  });

  it('refuses a bibliography outside the markdown file’s folder, in one sentence', async () => {
    const dir = folder('bibliography: ../refs.bib');
    copyFileSync(REFS, join(dir, '../refs.bib'));
    const { code, stderr } = await runCli(['convert', join(dir, 'doc.md'), '-o', join(dir, 'out.docx')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/the bibliography \.\.\/refs\.bib is outside the markdown file's folder/);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a missing bibliography and an unreadable one are one sentence each, nothing written', async () => {
    const missing = folder('bibliography: none.bib');
    const first = await runCli(['convert', join(missing, 'doc.md'), '-o', join(missing, 'out.docx')]);
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/the bibliography none\.bib was not found beside the markdown file/);
    const broken = folder('bibliography: deep.bib');
    // Braces nested past any parser's stack: refused, not a crash or a hang.
    writeFileSync(join(broken, 'deep.bib'), `@book{a, title = {${'{'.repeat(200_000)}}}\n`);
    const second = await runCli(['convert', join(broken, 'doc.md'), '-o', join(broken, 'out.docx')]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/the bibliography deep\.bib is not valid BibTeX/);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a bibliography under the size caps that takes too long is stopped by the conversion time limit', async () => {
    const dir = folder('bibliography: big.bib');
    // 3.9 MB: one entry of 250,000 authors, under the 4 MiB and 10,000-entry caps, seconds of parsing.
    const authors = Array.from({ length: 250_000 }, (_, i) => `N${String(i)}, A.`).join(' and ');
    writeFileSync(join(dir, 'big.bib'), `@book{doe2020, author = {${authors}}, title = {T}, year = {2000}}\n`);
    const { code, stderr } = await runCli(['convert', join(dir, 'doc.md'), '-o', join(dir, 'out.docx')], {
      env: { ...process.env, DOCWRIGHT_CONVERT_TIMEOUT_MS: '800' },
      timeoutMs: 120_000,
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/the conversion took longer than 0\.8 s/);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(dir, 'out.docx'))).toBe(false);
  }, 150_000);
});
