// The proof that chunked parsing (server/convert/parse/chunks.ts) is exact: on every CommonMark and GFM spec example,
// alone, between headings and concatenated section by section, on both spec documents themselves, on every fixture,
// corpus document and bench document, the tree parsed in pieces (cut wherever the scanner allows) is the tree parsed
// whole, positions included.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeFrontMatterFence, parseTree } from '../../server/convert/parse/index.ts';
import { cutPoints, splitChunks } from '../../server/convert/parse/chunks.ts';
import { generateMarkdown } from '../../bench/generate.ts';
import { EXTRA_CORPUS, SHARED_CORPUS } from '../corpus/run.ts';

interface Example {
  markdown: string;
  section: string;
}

const require = createRequire(import.meta.url);
const commonmark = (require('commonmark-spec') as { tests: Example[] }).tests.map((e) => ({
  markdown: e.markdown.replace(/→/g, '\t'),
  section: e.section,
}));
const commonmarkSpec = readFileSync(require.resolve('commonmark-spec/spec.txt'), 'utf8');
const gfmSpec = readFileSync(join(import.meta.dirname, '../fixtures/gfm-spec/spec.txt'), 'utf8');

/** The examples of a spec document: the blocks fenced by 32 backticks and `example`, markdown before the `.` line. */
function examplesOf(spec: string): Example[] {
  const out: Example[] = [];
  let section = '';
  const lines = spec.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^#{1,6} /.test(line)) section = line.replace(/^#+ /, '');
    if (!line.startsWith('```````````````````````````````` example')) continue;
    const markdown: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== '.'; i++) markdown.push(lines[i] ?? '');
    out.push({ markdown: `${markdown.join('\n')}\n`.replace(/→/g, '\t'), section });
    while (i < lines.length && !(lines[i] ?? '').startsWith('````````````````````````````````')) i++;
  }
  return out;
}
const gfm = examplesOf(gfmSpec);

let cuts = 0;
/** Parsed whole and in the smallest pieces allowed: the same tree. */
function expectSameTree(markdown: string, label: string): void {
  const text = normalizeFrontMatterFence(markdown);
  cuts += splitChunks(text, 0).length - 1;
  const whole = JSON.stringify(parseTree(text, Infinity));
  const chunked = JSON.stringify(parseTree(text, 0));
  if (chunked === whole) return;
  let at = 0;
  while (chunked[at] === whole[at]) at += 1;
  // Where they part, not two whole trees.
  expect(chunked.slice(Math.max(0, at - 300), at + 200), label).toBe(whole.slice(Math.max(0, at - 300), at + 200));
}

function bySection(examples: readonly Example[]): Map<string, Example[]> {
  const sections = new Map<string, Example[]>();
  for (const e of examples) sections.set(e.section, [...(sections.get(e.section) ?? []), e]);
  return sections;
}

function files(dir: string, pattern: RegExp): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => pattern.test(f))
        .sort()
        .map((f) => join(dir, f))
    : [];
}

describe('chunked parsing gives the whole-document tree', () => {
  it('has the spec examples', () => {
    expect(commonmark.length).toBeGreaterThan(600);
    expect(gfm.length).toBeGreaterThan(600);
  });

  for (const [name, examples] of [
    ['CommonMark', commonmark],
    ['GFM', gfm],
  ] as const) {
    it(`${name}: every example alone, and between headings that refer to definitions on the other side`, () => {
      const before = cuts;
      for (const [i, e] of examples.entries()) {
        expectSameTree(e.markdown, `${name} example ${i + 1}`);
        expectSameTree(
          `# Before [foo] [^1]\n\n${e.markdown}\n\n# After [foo] [bar][] ![baz] [^1] [^n]\n\ntext\n`,
          `${name} example ${i + 1} between headings`,
        );
        expectSameTree(
          `[foo]: /before\n\n[^n]: a note\n\n# Heading\n\n${e.markdown}\n\n# Heading [foo] [^n]\n\n${e.markdown}`,
          `${name} example ${i + 1} after definitions`,
        );
      }
      expect(cuts - before).toBeGreaterThan(examples.length);
    });

    it(`${name}: each section's examples one after another, a heading between each`, () => {
      const before = cuts;
      for (const [section, list] of bySection(examples)) {
        const text = list.map((e, i) => `# Example ${i + 1} [foo] [^1]\n\n${e.markdown}`).join('\n\n');
        expectSameTree(text, `${name} section ${section}`);
        expectSameTree(list.map((e) => e.markdown).join('\n# h\n\n'), `${name} section ${section}, tight`);
      }
      expect(cuts - before).toBeGreaterThan(examples.length / 2);
    });
  }

  it('the two spec documents themselves', () => {
    expectSameTree(commonmarkSpec, 'CommonMark spec.txt');
    expectSameTree(gfmSpec, 'GFM spec.txt');
    // Both cut only before their introduction's numbered list, whose items hold fences four columns in: past those
    // the cutting ends (a fence in an item may keep blank lines that a piece's end would change).
    expect(cutPoints(gfmSpec).length).toBeGreaterThan(2);
  });

  it('footnotes, definitions and front matter across pieces', () => {
    const cases = [
      '---\ntitle: x\n\n# not a heading\n...\n\n# A [^a] [b]\n\n[^a]: note\n\n# B [^a] [B]\n\n[b]: /u\n',
      '# A\n\n> [Foo\n> bar]: /u\n\n# B [foo bar] [FOO   BAR]\n',
      '# A\n\n- [^x]: in a list\n\n# B [^x]\n\n    [^y]: code\n\n# C [^y]\n',
      '# A [^1]\n\n[^1]: a\n\n    more\n\n# B\n\n[^1]: second\n\n# C [^1]\n',
      '# A\n\n```\n\n# in code\n```\n\n# B\n\n<!--\n\n# in a comment\n-->\n\n# C\n\n<div>\n```\n</div>\n\n# D\n\n```\n\n# E\n```\n',
      '# A\n\n- a\n  ```\n\n# B\n\n```\n\n# in code\n```\n',
      '# A\n\n<span>x</span>\n```\n\n# in code\n```\n\n# B\n\n\t```\n\n# C\n',
      '\uFEFF---\ntitle: x\n\n# yaml comment\n---\n\n# A [^a]\n\n[^a]: note\n\n# B [^a]\n',
      '\uFEFF# A [^a]\n\n[^a]: note\n\n# B [^a]\n',
      '# A\n\n<!-->\n\n# B\n\n<pre>\n\n# C\n</pre>\n\n# D [x]\n\n[x]: <\n>\n\n# E\n',
      // A fence left open in a list item or a note ends with it; at the end of a piece it would keep the blank lines.
      '- ~~~\n  a\n\n\n#\n',
      '[^b]: ~~~\n    a\n\n\n# B [^b]\n',
      '1. ```\n   a\n\n\n# B\n',
      '> - ```\n>   a\n\n\n# B\n',
      '* <pre>\n\n\n# B\n',
      '- <div>\n  a\n\n\n# B\n\n[^n]: <https://x.example> text\n\n# C [^n]\n',
      // ...and four columns in or more, or after a tab, where a wide, empty or nested item or a note puts it.
      '-\n    ~~~\n\n#\n',
      '1)\n    1) <!--\n\n#\n',
      '[^a]:\n\t- ~~~\n\n# B [^a]\n',
      '-   a\n\n    ~~~\n    x\n\n\n# h\n',
      '10. a\n\n    ~~~\n    x\n\n\n# h\n',
      '[^1]:\n    ~~~\n    x\n\n\n# h\n\n[^1]\n',
      '- a\n\n  - b\n\n      ~~~\n      x\n\n\n# h\n',
      '-   a\n\n    <!--\n\n\n# h\n',
    ];
    for (const [i, text] of cases.entries()) {
      expectSameTree(text, `case ${i + 1}`);
      expectSameTree(text.replace(/\n/g, '\r\n'), `case ${i + 1} (CRLF)`);
    }
  });

  it('every fixture, corpus document and bench document', () => {
    const docs = [
      ...files(join(import.meta.dirname, '../fixtures/elements'), /^/).map((d) => join(d, 'input.md')),
      ...[SHARED_CORPUS, EXTRA_CORPUS].flatMap((root) => files(join(root, 'docs'), /\.md$/)),
    ].filter((p) => existsSync(p));
    expect(docs.length).toBeGreaterThan(20);
    for (const path of docs) expectSameTree(readFileSync(path, 'utf8'), path);
    for (const size of [10, 120]) expectSameTree(generateMarkdown(size * 1024), `bench ${size} KB`);
    // Still cut all along (a rule that ended the cutting at a note starting `<https://…>` left 26 cuts of 443).
    expect(cutPoints(generateMarkdown(1200 * 1024)).length).toBeGreaterThan(400);
  });
});
