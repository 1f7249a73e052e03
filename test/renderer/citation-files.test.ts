// The app's bibliographies and styles (renderer/src/lib/citation-files.ts): which files a markdown is sent with, what
// its front matter names, the checks before sending, and the API's limits the app repeats.
import { describe, expect, test } from 'vitest';
import { BUNDLED_STYLES as SERVER_STYLES, CITATION_LIMITS } from '../../server/convert/citations/index.ts';
import {
  BUNDLED_STYLES,
  checkBibliography,
  chooseCitations,
  CITATION_FILE_LIMITS,
  citationKind,
  describeBibliography,
  frontMatterNames,
  joinBibliographies,
} from '../../renderer/src/lib/citation-files.ts';
import { dragMessage, summarise } from '../../renderer/src/lib/drag-summary.ts';

const BIB = '@string{acm = "ACM"}\n@article{a, title = {A}}\n\n@book{b, title = {B}}\n';
const none = { bibliography: undefined, csl: undefined };
const files = (...paths: string[]) => new Map(paths.map((p) => [p, p]));

describe('the limits and styles are the API’s', () => {
  test('the same numbers as the server’s CITATION_LIMITS and bundled styles', () => {
    expect(CITATION_FILE_LIMITS).toEqual({
      bibliographyBytes: CITATION_LIMITS.bibliographyChars,
      entries: CITATION_LIMITS.entries,
      styleBytes: CITATION_LIMITS.styleChars,
    });
    expect(BUNDLED_STYLES).toEqual(SERVER_STYLES);
  });
});

describe('frontMatterNames', () => {
  test('a file, a list, a flow list, quoted; none without front matter', async () => {
    expect(await frontMatterNames('---\nbibliography: refs.bib\ncsl: ieee.csl\n---\n# A\n')).toEqual({
      bibliography: ['refs.bib'],
      csl: 'ieee.csl',
    });
    expect(await frontMatterNames('---\nbibliography:\n  - a.bib\n  - "b b.json"\n...\n')).toEqual({
      bibliography: ['a.bib', 'b b.json'],
      csl: undefined,
    });
    expect((await frontMatterNames('---\r\nbibliography: [a.bib, b.yaml]\r\n---\r\n')).bibliography).toEqual([
      'a.bib',
      'b.yaml',
    ]);
    expect(await frontMatterNames('# A\n\nbibliography: refs.bib\n')).toEqual({ bibliography: [], csl: undefined });
    // YAML that cannot be read names nothing (the server warns it).
    expect(await frontMatterNames('---\nbibliography: [a.bib\n---\n')).toEqual({ bibliography: [], csl: undefined });
  });
});

describe('chooseCitations', () => {
  const names = (bibliography: string[], csl?: string) => ({ bibliography, csl });

  test('the front matter’s names pick among the dropped files, by path, else by name', () => {
    expect(chooseCitations('t.md', names(['refs.bib']), files('refs.bib', 'other.bib'), none).bibliography).toEqual([
      'refs.bib',
    ]);
    expect(chooseCitations('t.md', names(['./bib/refs.bib']), files('bib/refs.bib', 'refs.bib'), none)).toEqual({
      bibliography: ['bib/refs.bib'],
      csl: undefined,
    });
    // Dropped loose, a file named with a folder is found by its name.
    expect(chooseCitations('t.md', names(['bib/refs.bib']), files('refs.bib'), none).bibliography).toEqual([
      'refs.bib',
    ]);
  });

  test('without names, every dropped bibliography (joined later) and the one dropped style; else the page’s', () => {
    expect(chooseCitations('t.md', names([]), files('a.bib', 'b.bib', 'x.csl'), none)).toEqual({
      bibliography: ['a.bib', 'b.bib'],
      csl: 'x.csl',
    });
    expect(chooseCitations('t.md', names([]), files(), { bibliography: 'page', csl: 'page.csl' })).toEqual({
      bibliography: ['page'],
      csl: 'page.csl',
    });
    // The files dropped with the markdown win over the page's.
    expect(chooseCitations('t.md', names([]), files('own.bib'), { bibliography: 'page', csl: undefined })).toEqual({
      bibliography: ['own.bib'],
      csl: undefined,
    });
  });

  test('a named file that did not come is said, never silently left out', () => {
    expect(() => chooseCitations('t.md', names(['refs.bib']), files(), none)).toThrow(
      /t\.md names the bibliography refs\.bib in its front matter: drop it with the markdown/,
    );
    expect(() => chooseCitations('t.md', names(['a.bib', 'b.bib']), files('a.bib'), none)).toThrow(
      /but b\.bib did not come with it/,
    );
    // Another file given instead is used in its place, as the API's bibliography field is.
    expect(chooseCitations('t.md', names(['refs.bib']), files('mine.bib'), none).bibliography).toEqual(['mine.bib']);
    expect(chooseCitations('t.md', names(['refs.bib']), files(), { bibliography: 'page', csl: undefined })).toEqual({
      bibliography: ['page'],
      csl: undefined,
    });
  });

  test('styles: the named one, the only one, the page’s; a bundled name needs no file; several unnamed are said', () => {
    expect(chooseCitations('t.md', names([], 'b.csl'), files('a.csl', 'b.csl'), none).csl).toBe('b.csl');
    expect(() => chooseCitations('t.md', names([]), files('a.csl', 'b.csl'), none)).toThrow(/Several CSL styles/);
    expect(chooseCitations('t.md', names(['r.bib'], 'apa.csl'), files('r.bib'), none).csl).toBeUndefined();
    expect(chooseCitations('t.md', names(['r.bib'], 'vancouver'), files('r.bib'), none).csl).toBeUndefined();
    expect(() => chooseCitations('t.md', names(['r.bib'], 'ieee.csl'), files('r.bib'), none)).toThrow(
      /names the CSL style ieee\.csl/,
    );
  });
});

describe('checkBibliography', () => {
  test('BibTeX entries counted (not @string), CSL JSON and YAML lists and references mappings', async () => {
    const bib = await checkBibliography('refs.bib', BIB);
    expect(bib).toMatchObject({ format: 'bibtex', entries: 2 });
    expect(describeBibliography(bib)).toBe('refs.bib · BibTeX, 2 entries');
    expect(await checkBibliography('r.json', '[{"id": "a"}]')).toMatchObject({ format: 'csl-json', entries: 1 });
    expect(await checkBibliography('r.json', '{"references": [{"id": 1}, {"id": 2}]}')).toMatchObject({
      entries: 2,
    });
    expect(await checkBibliography('r.yml', 'references:\n  - id: a\n    title: A\n')).toMatchObject({
      format: 'csl-yaml',
      entries: 1,
    });
  });

  test('what is no bibliography is said in a sentence naming the file', async () => {
    await expect(checkBibliography('notes.bib', 'Just my notes.')).rejects.toThrow(
      'notes.bib is not a bibliography: it has no BibTeX entry (@article{key, …}).',
    );
    await expect(checkBibliography('r.json', '{"a": 1}')).rejects.toThrow(
      /r\.json is not a bibliography: it holds no list/,
    );
    await expect(checkBibliography('r.json', '[{"title": "x"}]')).rejects.toThrow(/its entry 1 has no id/);
    await expect(checkBibliography('r.json', '[{')).rejects.toThrow(/it is not valid CSL JSON/);
    await expect(checkBibliography('r.yaml', 'a: [b')).rejects.toThrow(/it is not valid CSL YAML/);
    await expect(checkBibliography('r.bib', '@article{a,}\0')).rejects.toThrow(/it is not text/);
    await expect(checkBibliography('r.json', '[]')).rejects.toThrow(/it has no entries/);
    const many = JSON.stringify(Array.from({ length: CITATION_LIMITS.entries + 1 }, (_, k) => ({ id: k })));
    await expect(checkBibliography('many.json', many)).rejects.toThrow(/many\.json has 10001 entries, more than/);
  });
});

describe('joinBibliographies', () => {
  test('BibTeX with BibTeX, CSL JSON with YAML; BibTeX with CSL is refused', async () => {
    const a = await checkBibliography('a.bib', BIB);
    const b = await checkBibliography('b.bib', '@misc{c, title = {C}}');
    expect(await joinBibliographies([a, b])).toMatchObject({ name: 'a.bib, b.bib', format: 'bibtex', entries: 3 });
    const json = await checkBibliography('c.json', '[{"id": "c"}]');
    const yaml = await checkBibliography('d.yaml', '- id: d\n');
    const joined = await joinBibliographies([json, yaml]);
    expect(joined).toMatchObject({ format: 'csl-json', entries: 2 });
    expect(JSON.parse(joined.text)).toEqual([{ id: 'c' }, { id: 'd' }]);
    await expect(joinBibliographies([a, json])).rejects.toThrow(/mix BibTeX and CSL/);
  });

  test('file kinds by extension', () => {
    expect(['a.bib', 'a.BibTeX', 'a.json', 'a.yml', 'a.csl', 'a.md'].map(citationKind)).toEqual([
      'bibtex',
      'bibtex',
      'csl-json',
      'csl-yaml',
      'csl',
      undefined,
    ]);
  });
});

describe('the drop zone while bibliographies hover', () => {
  test('they go with the markdown, or alone are kept for what is converted; never "skipped"', () => {
    const md = { kind: 'file', type: 'text/markdown' };
    const json = { kind: 'file', type: 'application/json' };
    expect(dragMessage(summarise([md, json]))).toEqual({
      action: 'Release to convert 1 file, with 1 bibliography or style file',
      skipped: '',
    });
    expect(dragMessage(summarise([json])).action).toBe(
      'Release to add this bibliography or style for the markdown you convert',
    );
  });
});
