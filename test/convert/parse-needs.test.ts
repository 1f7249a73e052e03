// The proof that a text parsed with only the GFM constructs it can hold (server/convert/parse/index.ts, NEEDS) gives the
// tree the whole of GFM gives, positions included: on every CommonMark and GFM spec example, on the spec documents,
// on every fixture and corpus document, and on random documents of the characters each construct needs and of
// near misses, each document leaving some of them out.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gfmNeeds, parseTree, parseWithEveryConstruct, type Dialect } from '../../server/convert/parse/index.ts';
import { EXTRA_CORPUS, SHARED_CORPUS } from '../corpus/run.ts';

const require = createRequire(import.meta.url);
const commonmark = (require('commonmark-spec') as { tests: { markdown: string }[] }).tests.map((e) =>
  e.markdown.replace(/→/g, '\t'),
);
const commonmarkSpec = readFileSync(require.resolve('commonmark-spec/spec.txt'), 'utf8');
const gfmSpec = readFileSync(join(import.meta.dirname, '../fixtures/gfm-spec/spec.txt'), 'utf8');
/** The GFM spec's examples: the markdown of each block fenced by 32 backticks and `example`, before its `.` line. */
const gfm = [...gfmSpec.matchAll(/^`{32} example[^\n]*\n([\s\S]*?)^\.$/gm)].map((m) =>
  (m[1] ?? '').replace(/→/g, '\t'),
);

/** Parsed whole with every GFM construct (and pandoc's, in its dialect). */
function fullTree(markdown: string, dialect: Dialect): string {
  return JSON.stringify(parseWithEveryConstruct(markdown, dialect));
}

let reduced = 0;
function expectSameTree(markdown: string, label: string, dialect: Dialect = 'gfm'): void {
  if (gfmNeeds(markdown).size < 8) reduced += 1;
  const ours = JSON.stringify(parseTree(markdown, Infinity, { math: true, dialect }));
  const full = fullTree(markdown, dialect);
  if (ours === full) return;
  let at = 0;
  while (ours[at] === full[at]) at += 1;
  expect(ours.slice(Math.max(0, at - 300), at + 200), `${label}: ${JSON.stringify(markdown)}`).toBe(
    full.slice(Math.max(0, at - 300), at + 200),
  );
}

/** A seeded generator (mulberry32): the same documents on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the constructs start or end with, their near misses, and the markdown around them. */
const TOKENS = [
  'a',
  'b c',
  'é',
  '1',
  ' ',
  '  ',
  '    ',
  '\t',
  '\n',
  '\n\n',
  '\r\n',
  '@',
  'a@b.c',
  'x@',
  '@y.z',
  'mailto:',
  'xmpp:',
  'mailto:a@b.c',
  '.',
  ',',
  '_',
  '+',
  '-',
  'www.',
  'WwW.',
  'www',
  'w',
  'h',
  'http',
  'http://',
  'HTTPS://',
  'https:/',
  'http://a.b/c?d=(e)',
  'www.a.b/c)',
  '|',
  '\\|',
  ':',
  ':-',
  '-:',
  ':-:',
  '---',
  ' - ',
  '--',
  '=',
  '===',
  '~',
  '~~',
  '\\~',
  '[^',
  '[^1]',
  '[^1]: note',
  '^[',
  '^[a]',
  '^a^',
  '^[a `]` b]',
  '~x~',
  '\\ ',
  '[ ^',
  '^',
  '[',
  ']',
  '](',
  ')',
  '(',
  '![',
  ']:',
  '[x]',
  '[ ] ',
  '[X]',
  '> ',
  '- ',
  '* ',
  '1. ',
  '# ',
  '```',
  '`',
  '*',
  '**',
  '_',
  '<',
  '>',
  '<a@b.c>',
  '<http://a>',
  '\\',
  '&amp;',
  '&#64;',
  '$',
  '$$',
  '\\$',
  '$x$',
  '$ ',
  '$$\n',
  '\\text{',
  '}',
  '9',
];

describe('GFM constructs left out where the text cannot hold them give the same tree', () => {
  it('picks only what a text can hold', () => {
    expect([...gfmNeeds('# Title\n\nPlain *text*, [a link](/x) and `code`.\n')]).toEqual([]);
    expect([...gfmNeeds('a@b.c www.x.y http://z ~s~ [^1] | x |')]).toEqual([
      'email',
      'www',
      'protocol',
      'footnote',
      'strikethrough',
      'table',
      'caret',
    ]);
    expect([...gfmNeeds('2^10^ and ^[a note]')]).toEqual(['caret']);
    expect([...gfmNeeds('a\n:-\n')]).toEqual(['table']);
    expect([...gfmNeeds('[x](HTTPS://example.org)')]).toEqual(['protocol']);
    expect([...gfmNeeds('costs $5')]).toEqual(['math']);
    expect([...gfmNeeds('costs $5', false)]).toEqual([]);
  });

  it('every CommonMark and GFM spec example, and the spec documents', () => {
    for (const [i, markdown] of commonmark.entries()) expectSameTree(markdown, `CommonMark example ${i + 1}`);
    expect(gfm.length).toBeGreaterThan(600);
    for (const [i, markdown] of gfm.entries()) expectSameTree(markdown, `GFM example ${i + 1}`);
    expectSameTree(commonmarkSpec, 'CommonMark spec.txt');
    expectSameTree(gfmSpec, 'GFM spec.txt');
    expect(reduced).toBeGreaterThan(500);
  });

  it('every fixture and corpus document', () => {
    const dirs = [
      join(import.meta.dirname, '../fixtures/elements'),
      ...[SHARED_CORPUS, EXTRA_CORPUS].map((r) => join(r, 'docs')),
    ];
    let count = 0;
    for (const dir of dirs.filter((d) => existsSync(d)))
      for (const entry of readdirSync(dir).sort()) {
        const path = dir.endsWith('elements') ? join(dir, entry, 'input.md') : join(dir, entry);
        if (!path.endsWith('.md') || !existsSync(path)) continue;
        expectSameTree(readFileSync(path, 'utf8'), path);
        count += 1;
      }
    expect(count).toBeGreaterThan(20);
  });

  it('4,000 random documents of the characters the constructs need and their near misses', () => {
    const next = random(17);
    const before = reduced;
    for (let doc = 0; doc < 4000; doc++) {
      // Each document draws on part of the tokens, so that each construct's characters are missing from some.
      const tokens = TOKENS.filter(() => next() < 0.35);
      if (tokens.length === 0) continue;
      let text = '';
      const length = 5 + Math.floor(next() * 60);
      for (let i = 0; i < length; i++) text += tokens[Math.floor(next() * tokens.length)] ?? '';
      expectSameTree(text, `random document ${doc}`);
    }
    expect(reduced - before).toBeGreaterThan(2000);
  });

  it("1,500 random documents in pandoc's dialect (subscript's single tilde, strikethrough's two)", () => {
    const next = random(33);
    const before = reduced;
    for (let doc = 0; doc < 1500; doc++) {
      const tokens = TOKENS.filter(() => next() < 0.35);
      if (tokens.length === 0) continue;
      let text = '';
      const length = 5 + Math.floor(next() * 60);
      for (let i = 0; i < length; i++) text += tokens[Math.floor(next() * tokens.length)] ?? '';
      expectSameTree(text, `random pandoc document ${doc}`, 'pandoc');
    }
    expect(reduced - before).toBeGreaterThan(700);
  });
});
