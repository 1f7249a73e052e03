// `docwright convert` with citations (docs/captions-references.md): the front matter's bibliography and style are read beside
// the markdown file, confined to its folder as images are; a bibliography that cannot be read is one sentence.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killAllChildren, runCli, startServe } from './helpers/docwright-process.ts';
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

/** The bundled Vancouver style's XML, as a user's own .csl file would hold a style. */
async function vancouverXml(): Promise<string> {
  const styles = (await import('@citation-js/plugin-csl/lib/styles.json', { with: { type: 'json' } })) as {
    default: Record<string, string>;
  };
  return styles.default.vancouver ?? '';
}

/** A folder elsewhere (not the markdown's) holding a shared export: refs.bib and extra.json (CSL JSON). */
function shared(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dw-cli-zotero-'));
  copyFileSync(REFS, join(dir, 'refs.bib'));
  const lee = { id: 'lee2022', type: 'book', title: 'A Title', author: [{ family: 'Lee', given: 'Min' }] };
  writeFileSync(join(dir, 'extra.json'), JSON.stringify([{ ...lee, issued: { 'date-parts': [[2022]] } }]));
  return dir;
}

/** The flags giving shared()'s two bibliographies and a Vancouver .csl file, all in a folder of their own. */
async function sharedFlags(): Promise<string[]> {
  const from = shared();
  const style = join(from, 'numbers.csl');
  writeFileSync(style, await vancouverXml());
  return ['--bibliography', join(from, 'refs.bib'), '--bibliography', join(from, 'extra.json'), '--csl', style];
}

describe('docwright convert --bibliography and --csl', () => {
  it('a bibliography from any folder and a bundled style by name, winning over the front matter’s', async () => {
    // The front matter names a file that is not there and APA: the command line's choices are used instead.
    const dir = folder('bibliography: none.bib\ncsl: apa');
    const out = join(dir, 'out.docx');
    const refs = join(shared(), 'refs.bib');
    const { code, stderr } = await runCli([
      'convert',
      join(dir, 'doc.md'),
      '-o',
      out,
      '--bibliography',
      refs,
      '--csl',
      'vancouver',
    ]);
    expect(code, stderr).toBe(0);
    const docx = new Uint8Array(readFileSync(out));
    expect(bodyText(docx)).toContain('Markdown is old (1); (2) agrees');
    expect(bodyText(docx)).toContain('1.\tDoe J, Roe R. The Art of Markdown.');
    const { ok, report } = await validateDocx(docx);
    expect(ok, report).toBe(true);
  });

  it('several bibliographies (BibTeX and CSL JSON) and a .csl file, for every file of a batch and for standard input', async () => {
    const dir = folder('title: One', 'Old [@doe2020]; new [@lee2022].\n');
    writeFileSync(join(dir, 'two.md'), 'Only [@lee2022] here.\n');
    const flags = await sharedFlags();
    const out = join(dir, 'out');
    const batch = await runCli(['convert', join(dir, 'doc.md'), join(dir, 'two.md'), '-o', out, ...flags]);
    expect(batch.code, batch.stderr).toBe(0);
    const one = new Uint8Array(readFileSync(join(out, 'doc.docx')));
    expect(bodyText(one)).toContain('Old (1); new (2).');
    expect(bodyText(one)).toContain('2.\tLee M. A Title. 2022.');
    expect(bodyText(new Uint8Array(readFileSync(join(out, 'two.docx'))))).toContain('Only (1) here.');
    // Piped: the markdown has no folder, the bibliography comes from the command line.
    const piped = join(dir, 'piped.docx');
    const stdin = await runCli(['convert', '-', '-o', piped, ...flags], {
      input: '---\nbibliography: refs.bib\n---\n\nOld [@doe2020].\n',
    });
    expect(stdin.code, stdin.stderr).toBe(0);
    const docx = new Uint8Array(readFileSync(piped));
    expect(bodyText(docx)).toContain('Old (1).');
    const { ok, report } = await validateDocx(docx);
    expect(ok, report).toBe(true);
  });

  it('a missing, unknown, too large or unreadable file and an unknown style are one sentence each, nothing written', async () => {
    const dir = folder('title: T');
    const out = join(dir, 'out.docx');
    const run = (flags: string[]) => runCli(['convert', join(dir, 'doc.md'), '-o', out, ...flags]);
    const cases: [string[], RegExp][] = [
      [
        ['--bibliography', join(dir, 'nope.bib')],
        /^docwright: cannot read the bibliography .*nope\.bib: there is no such file\.$/,
      ],
      [
        ['--bibliography', join(dir, 'doc.md')],
        /^docwright: the bibliography .*doc\.md is not a bibliography file: name a \.bib, \.bibtex, \.biblatex, \.json, \.yaml or \.yml file\.$/,
      ],
      [
        ['--csl', 'ieee'],
        /^docwright: the CSL style ieee is neither a file nor a bundled style \(apa, vancouver, harvard1\)\.$/,
      ],
      [['--csl', join(dir, 'refs.bib')], /^docwright: the CSL style .*refs\.bib is not a CSL style \(its XML\)\.$/],
    ];
    const big = join(dir, 'big.json');
    writeFileSync(big, `[${' '.repeat(4 * 1024 * 1024)}]`);
    cases.push([
      ['--bibliography', big],
      /^docwright: the bibliography .*big\.json is larger than 4 MB \(the API's limit too\)\.$/,
    ]);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '[{"id": ');
    cases.push([['--bibliography', broken], /^docwright: the bibliography .*broken\.json is not valid CSL JSON/]);
    for (const [flags, message] of cases) {
      const { code, stderr } = await run(flags);
      expect(stderr.trim(), flags.join(' ')).toMatch(message);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(code).toBe(1);
      expect(existsSync(out)).toBe(false);
    }
  });

  it('the front matter’s refusals say how to give a file from elsewhere, and which styles are bundled', async () => {
    const outside = folder('bibliography: ../refs.bib');
    const first = await runCli(['convert', join(outside, 'doc.md'), '-o', join(outside, 'out.docx')]);
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(
      /the bibliography \.\.\/refs\.bib is outside the markdown file's folder; give a file from elsewhere with --bibliography FILE/,
    );
    const style = folder('bibliography: refs.bib\ncsl: ieee');
    const second = await runCli(['convert', join(style, 'doc.md'), '-o', join(style, 'out.docx')]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /the CSL style ieee was not found beside the markdown file; the bundled styles are apa, vancouver and harvard1, else name a \.csl file \(--csl FILE on the command line\)/,
    );
    const piped = await runCli(['convert', '-', '-o', join(style, 'piped.docx')], {
      input: '---\nbibliography: refs.bib\n---\n\nOld [@doe2020].\n',
    });
    expect(piped.code).toBe(1);
    expect(piped.stderr).toMatch(/the bibliography refs\.bib cannot be read here: .*--bibliography FILE/);
    for (const result of [first, second, piped]) expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('through a running server: the bibliography and the style travel with the markdown', async () => {
    const data = mkdtempSync(join(tmpdir(), 'dw-cli-cite-data-'));
    const env: NodeJS.ProcessEnv = { ...process.env, DOCWRIGHT_HOME: data, DOCWRIGHT_KEYCHAIN: 'off' };
    delete env.DOCWRIGHT_DAEMON;
    const server = await startServe([], { env, timeoutMs: 60_000 });
    try {
      const dir = folder('bibliography: none.bib');
      const out = join(dir, 'served.docx');
      const flags = await sharedFlags();
      const result = await runCli(['convert', join(dir, 'doc.md'), '-o', out, ...flags], { env, timeoutMs: 120_000 });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(`converted by the running server (pid ${String(server.pid)})`);
      expect(result.stderr).toContain('warning: line 5: citation_missing: nobody');
      const docx = new Uint8Array(readFileSync(out));
      expect(bodyText(docx)).toContain('Markdown is old (1); (2) agrees');
      const { ok, report } = await validateDocx(docx);
      expect(ok, report).toBe(true);
      const status = await runCli(['status', '--json'], { env });
      expect(JSON.parse(status.stdout)).toMatchObject({ running: true, cli_conversions: 1 });
    } finally {
      await killAllChildren();
    }
  }, 180_000);
});
