// Seeded markdown fuzz cases: mutations of the CommonMark spec examples and of examples/welcome.md (insert, delete,
// duplicate and splice chunks, random unicode with control characters and lone surrogates, deep nesting), and
// random documents of markdown tokens. The same seed and count give the same cases.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import fc from 'fast-check';

const { tests: specExamples } = createRequire(import.meta.url)('commonmark-spec') as { tests: { markdown: string }[] };
const welcome = readFileSync(resolve(import.meta.dirname, '../../examples/welcome.md'), 'utf8');

/** The documents mutations start from: every spec example (tabs restored), the welcome document and its blocks. */
export const BASES: readonly string[] = [
  ...specExamples.map((e) => e.markdown.replace(/→/g, '\t')),
  welcome,
  ...welcome.split(/\n{2,}/),
];

const TOKENS = [
  '*',
  '**',
  '***',
  '_',
  '__',
  '`',
  '``',
  '```',
  '~~~',
  '~',
  '~~',
  '[',
  ']',
  '(',
  ')',
  '![',
  '](',
  '<',
  '>',
  '#',
  '## ',
  '###### ',
  '- ',
  '+ ',
  '* ',
  '1. ',
  '2) ',
  '> ',
  '|',
  '| --- |',
  ':-:',
  '---',
  '***\n',
  '===',
  '\n',
  '\n\n',
  '  \n',
  '  ',
  '    ',
  '\t',
  '\\',
  '&amp;',
  '&#x0;',
  '&#1114112;',
  '&nbsp',
  '[^1]',
  '[^1]: note',
  '[a]: /url "t"',
  '<div>',
  '</div>',
  '<br>',
  '<script>',
  '<!--',
  '-->',
  '<?php',
  ']]>',
  '<![CDATA[',
  'http://a.b/c?d=e',
  'www.a.b',
  'a@b.c',
  'mailto:a@b.c',
  '| a | b |\n|---|---|\n| c | d |\n',
  '- [ ] ',
  '- [x] ',
  '---\ntitle: t\n---\n',
  '$$',
  '\r',
  '\r\n',
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000b',
  '\u000c',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\u200b',
  '\u200d',
  '\u202e',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '😀',
  '👩‍👩‍👧',
  'é',
  'e\u0301',
  'ß',
  'ﬁ',
  'İ',
  'ǅ',
  '\u0130',
  'א',
  '中文',
  'word ',
  'a',
  '1',
  ' ',
];

/** Characters XML 1.0 forbids, C0/C1 controls and lone surrogates, one code unit each. */
const hostileChar = fc
  .oneof(
    fc.integer({ min: 0, max: 0x1f }),
    fc.integer({ min: 0x7f, max: 0x9f }),
    fc.integer({ min: 0xd800, max: 0xdfff }),
    fc.constantFrom(0xfffe, 0xffff, 0xfeff, 0x202e),
  )
  .map((code) => String.fromCharCode(code));

const chunk: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...TOKENS), weight: 6 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 8 }), weight: 2 },
  { arbitrary: fc.string({ unit: hostileChar, minLength: 1, maxLength: 4 }), weight: 1 },
  {
    arbitrary: fc.tuple(fc.nat(BASES.length - 1), fc.nat(), fc.integer({ min: 1, max: 60 })).map(([i, at, length]) => {
      const base = BASES[i] ?? '';
      const start = base.length ? at % base.length : 0;
      return base.slice(start, start + length);
    }),
    weight: 3,
  },
);

type Mutation =
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'duplicate'; at: number; length: number; times: number }
  | { kind: 'splice'; at: number; base: number; from: number; length: number }
  | { kind: 'nest'; at: number; prefix: string; depth: number; close: boolean };

/** Prefixes nested `depth` times: containers at a line start, inline openers anywhere (closed after, or not). */
const NESTERS = [
  '> ',
  '- ',
  '* ',
  '+ ',
  '1. ',
  '> - ',
  '- > ',
  '  - ',
  '*',
  '_',
  '**',
  '~~',
  '[',
  '![',
  '<',
  '`',
  '(',
  '|',
];

function mutation(maxDepth: number): fc.Arbitrary<Mutation> {
  return fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: chunk }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 80 }) }),
    fc.record({
      kind: fc.constant('duplicate' as const),
      at: fc.nat(),
      length: fc.integer({ min: 1, max: 40 }),
      times: fc.integer({ min: 1, max: 12 }),
    }),
    fc.record({
      kind: fc.constant('splice' as const),
      at: fc.nat(),
      base: fc.nat(BASES.length - 1),
      from: fc.nat(),
      length: fc.integer({ min: 1, max: 200 }),
    }),
    fc.record({
      kind: fc.constant('nest' as const),
      at: fc.nat(),
      prefix: fc.constantFrom(...NESTERS),
      depth: fc.integer({ min: 2, max: maxDepth }),
      close: fc.boolean(),
    }),
  );
}

const CLOSERS: Record<string, string> = { '[': ']', '![': '](x)', '<': '>', '(': ')' };

function apply(text: string, m: Mutation): string {
  const at = text.length ? m.at % (text.length + 1) : 0;
  switch (m.kind) {
    case 'insert':
      return text.slice(0, at) + m.text + text.slice(at);
    case 'delete':
      return text.slice(0, at) + text.slice(at + m.length);
    case 'duplicate':
      return text.slice(0, at) + text.slice(at, at + m.length).repeat(m.times + 1) + text.slice(at + m.length);
    case 'splice': {
      const base = BASES[m.base] ?? '';
      const from = base.length ? m.from % base.length : 0;
      return text.slice(0, at) + base.slice(from, from + m.length) + text.slice(at);
    }
    case 'nest': {
      if (/[ >]$/.test(m.prefix) || m.prefix.endsWith('. ')) {
        // A container prefix: at the start of the line `at` is in.
        const line = text.lastIndexOf('\n', at - 1) + 1;
        return text.slice(0, line) + m.prefix.repeat(m.depth) + text.slice(line);
      }
      const closer = m.close ? (CLOSERS[m.prefix] ?? m.prefix).repeat(m.depth) : '';
      const end = Math.min(text.length, at + 20);
      return text.slice(0, at) + m.prefix.repeat(m.depth) + text.slice(at, end) + closer + text.slice(end);
    }
  }
}

export interface FuzzOptions {
  seed: number;
  count: number;
  /** Deepest nesting a mutation adds (default 300). */
  maxDepth?: number;
}

export interface FuzzCase {
  index: number;
  origin: 'mutated' | 'random';
  markdown: string;
}

/** The fuzz cases of a seed: about three mutated documents for each random one. */
export function fuzzCases(options: FuzzOptions): FuzzCase[] {
  const maxDepth = options.maxDepth ?? 300;
  const mutated = fc
    .record({ base: fc.nat(BASES.length - 1), mutations: fc.array(mutation(maxDepth), { minLength: 1, maxLength: 6 }) })
    .map(({ base, mutations }) => ({
      origin: 'mutated' as const,
      markdown: mutations.reduce(apply, BASES[base] ?? ''),
    }));
  const random = fc
    .array(chunk, { minLength: 1, maxLength: 80 })
    .map((chunks) => ({ origin: 'random' as const, markdown: chunks.join('') }));
  const arbitrary = fc.oneof({ arbitrary: mutated, weight: 3 }, { arbitrary: random, weight: 1 });
  return fc.sample(arbitrary, { seed: options.seed, numRuns: options.count }).map((c, index) => ({ index, ...c }));
}
