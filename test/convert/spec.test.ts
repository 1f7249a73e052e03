import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { convert, type ConversionStats } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

/** One example of the CommonMark spec, as the `commonmark-spec` package extracts it. */
interface SpecExample {
  markdown: string;
  html: string;
  section: string;
  number: number;
}

// The package is CommonJS without types: load it through require and type what we use.
const { tests: commonmarkExamples } = createRequire(import.meta.url)('commonmark-spec') as { tests: SpecExample[] };

/** The spec writes tabs as `→` in its examples. */
const specMarkdown = (example: SpecExample) => example.markdown.replace(/→/g, '\t');

const STAT_FIELDS = ['code_blocks', 'headings', 'images', 'lists', 'paragraphs', 'tables'];

function expectStats(stats: ConversionStats, label: string): void {
  expect(Object.keys(stats).sort(), label).toEqual(STAT_FIELDS);
  for (const field of STAT_FIELDS) {
    const value = (stats as unknown as Record<string, unknown>)[field];
    expect(Number.isInteger(value) && (value as number) >= 0, `${label}: stats.${field} = ${String(value)}`).toBe(true);
  }
}

async function expectValid(docx: Uint8Array, label: string): Promise<void> {
  const { ok, report } = await validateDocx(docx);
  expect(ok, `${label} is not schema-valid:\n${report.slice(0, 4000)}`).toBe(true);
}

/** Runs `fn` over `items` with at most `limit` running at once (the validator is an external process). */
async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await fn(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const SEPARATOR = '\n\n---\n\n';
const BATCH_SIZE = 50;

function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface GfmCase {
  name: string;
  markdown: string;
  /** Stats the example must give (only the fields listed). */
  stats?: Partial<ConversionStats>;
  /** Strings document.xml must contain. */
  document?: (string | RegExp)[];
  /** Strings footnotes.xml must contain. */
  footnotes?: string[];
  /** Strings document.xml must not contain: what a case named for what must not happen asserts. */
  absent?: (string | RegExp)[];
  /** Strings footnotes.xml must not contain. */
  absentFootnotes?: string[];
}

/** Representative examples of the GFM extensions (no package carries the GFM spec's examples). */
const GFM_CASES: GfmCase[] = [
  // Tables
  {
    name: 'table',
    markdown: '| foo | bar |\n| --- | --- |\n| baz | bim |',
    stats: { tables: 1 },
    document: ['<w:tbl>', 'baz', 'bim', '<w:tblHeader/>'],
  },
  {
    name: 'table alignment',
    markdown: '| abc | defghi |\n:-: | -----------:\nbar | baz',
    stats: { tables: 1 },
    document: ['<w:jc w:val="center"/>', '<w:jc w:val="right"/>'],
  },
  {
    name: 'table escaped pipes',
    markdown: '| f\\|oo  |\n| ------ |\n| b `\\|` az |\n| b **\\|** im |',
    stats: { tables: 1 },
    document: ['f|oo', 'b ', 'im'],
  },
  {
    name: 'table ended by a block',
    markdown: '| abc | def |\n| --- | --- |\n| bar | baz |\n> bar',
    stats: { tables: 1, paragraphs: 1 },
    document: ['bar'],
  },
  {
    name: 'table ended by a blank line',
    markdown: '| abc | def |\n| --- | --- |\n| bar | baz |\nbar\n\nbar',
    stats: { tables: 1, paragraphs: 1 },
  },
  {
    name: 'not a table: header and delimiter differ',
    markdown: '| abc | def |\n| --- |\n| bar |',
    stats: { tables: 0, paragraphs: 1 },
    document: ['| abc | def |'],
    absent: ['<w:tbl>'],
  },
  {
    name: 'table rows with missing and extra cells',
    markdown: '| abc | def |\n| --- | --- |\n| bar |\n| bar | baz | boo |',
    stats: { tables: 1 },
    document: ['bar'],
  },
  {
    name: 'table without body rows',
    markdown: '| abc | def |\n| --- | --- |',
    stats: { tables: 1 },
    document: ['abc', 'def'],
  },
  {
    name: 'table with inline content',
    markdown:
      '| **b** | *i* | `c` | [l](https://example.com/t) | ~~s~~ |\n|---|---|---|---|---|\n| 1 | 2 | 3 | 4 | 5 |',
    stats: { tables: 1 },
    // The built-in mapping gives strong and emphasis the built-in template's character styles (bold, italic).
    document: ['<w:rStyle w:val="Strong"/>', '<w:rStyle w:val="Emphasis"/>', '<w:strike/>', '<w:hyperlink'],
  },
  {
    name: 'table inside a list and a quote',
    markdown: '- item\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n\n> | q | r |\n> |---|---|\n> | 3 | 4 |',
    stats: { tables: 2, lists: 1 },
  },
  // Task lists
  { name: 'task list', markdown: '- [ ] foo\n- [x] bar', stats: { lists: 1 }, document: ['foo', 'bar', '<w:numPr>'] },
  {
    name: 'nested task list',
    markdown: '- [x] foo\n  - [ ] bar\n  - [x] baz\n- [ ] bim',
    stats: { lists: 2 },
    document: ['<w:ilvl w:val="1"/>', 'baz', 'bim'],
  },
  { name: 'ordered task list', markdown: '1. [x] done\n2. [ ] open', stats: { lists: 1 }, document: ['done', 'open'] },
  // Strikethrough
  { name: 'strikethrough', markdown: '~~Hi~~ Hello, ~there~ world!', document: ['<w:strike/>', 'Hi', 'there'] },
  {
    name: 'strikethrough across a paragraph break does not match',
    markdown: 'This ~~has a\n\nnew paragraph~~.',
    stats: { paragraphs: 2 },
    document: ['This ~~has a', 'new paragraph~~.'],
    absent: ['<w:strike/>'],
  },
  {
    name: 'three tildes do not strike',
    markdown: 'This will ~~~not~~~ strike.',
    document: ['~~~not~~~'],
    absent: ['<w:strike/>'],
  },
  {
    name: 'strikethrough nested in emphasis',
    markdown: '***~~all three~~***',
    // One character style a run: Strong's, with the emphasis as direct italics.
    document: ['<w:rStyle w:val="Strong"/>', '<w:i/>', '<w:strike/>', 'all three'],
  },
  // Autolinks (extended)
  { name: 'www autolink', markdown: 'www.commonmark.org', document: ['<w:hyperlink', 'www.commonmark.org'] },
  {
    name: 'autolink with trailing punctuation',
    markdown: 'Visit www.commonmark.org/help for more information.',
    document: ['<w:hyperlink', 'www.commonmark.org/help'],
  },
  { name: 'autolink with parentheses', markdown: 'www.google.com/search?q=(business))+ok', document: ['<w:hyperlink'] },
  {
    name: 'autolink entity-like suffix',
    markdown: 'www.google.com/search?q=commonmark&hl;',
    document: ['<w:hyperlink'],
  },
  {
    name: 'url autolinks',
    markdown: 'http://commonmark.org\n\n(Visit https://encrypted.google.com/search?q=Markup+(business))',
    document: ['<w:hyperlink'],
  },
  {
    name: 'email autolinks',
    markdown: "foo@bar.baz\n\nhello@mail+xyz.example isn't valid, but hello+xyz@mail.example is.",
    document: ['<w:hyperlink', 'foo@bar.baz'],
  },
  {
    name: 'mailto and xmpp autolinks',
    markdown: 'mailto:foo@bar.baz\n\nxmpp:foo@bar.baz/txt@bin.com',
    document: ['<w:hyperlink'],
  },
  {
    name: 'angle autolink with odd characters',
    markdown: '<https://example.com/a b>\n\n<https://example.com/ü?x="y">',
    document: ['example.com'],
  },
  // Footnotes
  {
    name: 'footnote',
    markdown: 'Here is a footnote reference[^1].\n\n[^1]: Here is the footnote.',
    footnotes: ['Here is the footnote.'],
    document: ['<w:footnoteReference'],
  },
  {
    name: 'long footnote with blocks',
    markdown:
      'Text[^long].\n\n[^long]: First paragraph.\n\n    Second paragraph with `code`.\n\n    ```\n    code block\n    ```\n\n    - a list item',
    footnotes: ['First paragraph.', 'Second paragraph with ', 'code block', 'a list item'],
  },
  {
    name: 'undefined footnote reference stays text',
    markdown: 'Missing[^nope] note.',
    document: ['[^nope]'],
    absent: ['<w:footnoteReference'],
  },
  {
    name: 'footnote referenced twice and in a list',
    markdown: '- one[^a]\n- two[^a]\n\n[^a]: Shared note.',
    stats: { lists: 1 },
    // One note; the second reference is a cross-reference to it (security issue item 4: a note is compiled once).
    document: [/<w:footnoteReference w:id="1"\/>[\s\S]*<w:fldSimple w:instr=" NOTEREF _DocwrightNote1 \\f \\h ">/],
    footnotes: ['Shared note.'],
  },
  {
    name: 'footnote reference inside a footnote',
    markdown: 'Outer[^o].\n\n[^o]: Inner[^i].\n\n[^i]: Deep.',
    footnotes: ['Inner', '[^i]'],
  },
  {
    name: 'duplicate footnote definitions: the first wins',
    markdown: 'X[^d].\n\n[^d]: First.\n\n[^d]: Second.',
    footnotes: ['First.'],
    absentFootnotes: ['Second.'],
    absent: ['Second.'],
  },
  {
    name: 'footnote in a heading and a table',
    markdown: '# Title[^h]\n\n| a[^h] |\n|---|\n| b |\n\n[^h]: Heading note.',
    stats: { headings: 1, tables: 1 },
    footnotes: ['Heading note.'],
  },
  // Disallowed raw HTML (tag filter) and front matter
  {
    name: 'tag filter',
    markdown:
      '<strong> <title> <style> <em>\n\n<blockquote>\n  <xmp> is disallowed.  <XMP> is also disallowed.\n</blockquote>',
    document: ['is disallowed.', 'is also disallowed.'],
    absent: [/&lt;\/?(title|style|xmp|strong|em|blockquote)/i],
  },
  {
    // Not printed as text; the built-in mapping prints title and author as a title block (docs/rtl-and-title.md).
    name: 'front matter',
    markdown: '---\ntitle: Spec\nauthor: Tester\n---\n\n# Body',
    stats: { headings: 1, paragraphs: 0 },
    document: ['Body', '<w:pStyle w:val="Title"/>', '<w:pStyle w:val="Author"/>'],
    absent: ['title: Spec', 'author: Tester', '---', '<w:pBdr>'],
  },
];

describe('CommonMark spec examples', () => {
  it('the package carries the whole spec', () => {
    expect(commonmarkExamples.length).toBeGreaterThanOrEqual(650);
    expect(commonmarkExamples.every((e) => typeof e.markdown === 'string')).toBe(true);
  });

  it('every example converts alone without an exception and with integer stats', async () => {
    const failures: string[] = [];
    for (const example of commonmarkExamples) {
      const label = `example ${example.number} (${example.section})`;
      try {
        const { docx, stats, warnings } = await convert({ markdown: specMarkdown(example) });
        expect(docx.length, label).toBeGreaterThan(0);
        expect(Array.isArray(warnings), label).toBe(true);
        expectStats(stats, label);
      } catch (error) {
        failures.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('counts what the examples hold', async () => {
    const stats = async (n: number) => {
      const example = commonmarkExamples.find((e) => e.number === n);
      if (!example) throw new Error(`no example ${n}`);
      return (await convert({ markdown: specMarkdown(example) })).stats;
    };
    const byMarkdown = async (markdown: string) => (await convert({ markdown })).stats;
    expect(await byMarkdown('# foo\n## foo\n### foo\n#### foo\n##### foo\n###### foo')).toMatchObject({ headings: 6 });
    expect(await byMarkdown('- a\n- b\n\n1. c\n   - d')).toMatchObject({ lists: 3, paragraphs: 4 });
    expect(await byMarkdown('```\ncode\n```\n\n    indented')).toMatchObject({ code_blocks: 2 });
    expect(await byMarkdown('![a](b.png) ![c][d]\n\n[d]: e.png')).toMatchObject({ images: 2 });
    // Example 1 of the spec is a tab-indented code block.
    expect(await stats(1)).toMatchObject({ code_blocks: 1, paragraphs: 0 });
  });

  const groups = batches(commonmarkExamples, BATCH_SIZE);
  it(`the examples in ${groups.length} documents of ${BATCH_SIZE} are schema-valid`, async () => {
    await eachLimited(groups, 3, async (group) => {
      const first = group[0]?.number ?? 0;
      const last = group[group.length - 1]?.number ?? 0;
      const { docx, stats } = await convert({ markdown: group.map(specMarkdown).join(SEPARATOR) });
      expectStats(stats, `examples ${first}–${last}`);
      await expectValid(docx, `the document of examples ${first}–${last}`);
    });
  });
});

describe('GFM extension examples', () => {
  it.each(GFM_CASES.map((c) => [c.name, c] as const))('%s converts', async (_name, c) => {
    const { docx, stats } = await convert({ markdown: c.markdown });
    expectStats(stats, c.name);
    if (c.stats) expect(stats).toMatchObject(c.stats);
    const document = part(docx, 'word/document.xml');
    for (const s of c.document ?? []) {
      if (typeof s === 'string') expect(document).toContain(s);
      else expect(document).toMatch(s);
    }
    for (const s of c.absent ?? []) {
      if (typeof s === 'string') expect(document).not.toContain(s);
      else expect(document).not.toMatch(s);
    }
    if (c.footnotes || c.absentFootnotes) {
      const footnotes = part(docx, 'word/footnotes.xml');
      for (const s of c.footnotes ?? []) expect(footnotes).toContain(s);
      for (const s of c.absentFootnotes ?? []) expect(footnotes).not.toContain(s);
    }
  });

  it('the GFM examples, one document each, are schema-valid', async () => {
    await eachLimited(GFM_CASES, 3, async (c) => {
      await expectValid((await convert({ markdown: c.markdown })).docx, `GFM case "${c.name}"`);
    });
  }, 300_000);

  it('the GFM examples in one document are schema-valid', async () => {
    const { docx, stats } = await convert({ markdown: GFM_CASES.map((c) => c.markdown).join(SEPARATOR) });
    expectStats(stats, 'all GFM cases');
    await expectValid(docx, 'the document of all GFM cases');
  });
});

const DEEP = 10_000;
const LONG = 15 * 60_000;

describe('pathological nesting and size', () => {
  it(
    `${DEEP} nested blockquotes give a valid document`,
    async () => {
      const { docx, warnings } = await convert({ markdown: `${'> '.repeat(DEEP)}deepquote` });
      expect(warnings).toEqual([]);
      expect(part(docx, 'word/document.xml')).toContain('deepquote');
      await expectValid(docx, 'the nested quotes');
    },
    LONG,
  );

  it(
    `indented nested lists (the indentation form, 300 levels) warn with their depth`,
    async () => {
      // Built by indentation, this form grows quadratically (10,000 levels would be 100 MB of spaces), so it runs at a
      // depth the parser handles in seconds; the 10,000-level lists below use the equivalent one-line form.
      const depth = 300;
      const markdown = Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- a${i}`).join('\n');
      const { docx, warnings, stats } = await convert({ markdown });
      expect(warnings).toEqual([`list_depth_exceeded: ${depth}`]);
      expect(stats).toMatchObject({ lists: depth, paragraphs: depth });
      const document = part(docx, 'word/document.xml');
      expect(document).toContain(`>a${depth - 1}<`);
      // Deeper items are shown at the last level Word has (the ninth).
      expect([...new Set([...document.matchAll(/<w:ilvl w:val="(\d+)"\/>/g)].map((m) => m[1]))].sort()).toEqual([
        '0',
        '1',
        '2',
        '3',
        '4',
        '5',
        '6',
        '7',
        '8',
      ]);
      await expectValid(docx, 'the indented nested list');
    },
    LONG,
  );

  it(
    `${DEEP} nested bullet list items give a valid document and list_depth_exceeded: ${DEEP}`,
    async () => {
      // `+ + + a` is the same tree as items each indented 2 more spaces: a list in an item, DEEP times. (With `-` the
      // parser also tries a thematic break at every marker, which is quadratic: about 2 minutes here.)
      const { docx, warnings, stats } = await convert({ markdown: `${'+ '.repeat(DEEP)}deepitem` });
      expect(warnings).toEqual([`list_depth_exceeded: ${DEEP}`]);
      expect(stats).toMatchObject({ lists: DEEP, paragraphs: 1 });
      const document = part(docx, 'word/document.xml');
      expect(document).toContain('deepitem');
      expect(document).not.toMatch(/<w:ilvl w:val="(9|\d{2,})"\/>/);
      await expectValid(docx, 'the nested bullet list');
    },
    LONG,
  );

  it(
    `${DEEP} nested ordered (1.) list items give a valid document and list_depth_exceeded: ${DEEP}`,
    async () => {
      const { docx, warnings, stats } = await convert({ markdown: `${'1. '.repeat(DEEP)}deepnumber` });
      expect(warnings).toEqual([`list_depth_exceeded: ${DEEP}`]);
      expect(stats).toMatchObject({ lists: DEEP, paragraphs: 1 });
      expect(part(docx, 'word/document.xml')).toContain('deepnumber');
      await expectValid(docx, 'the nested ordered list');
    },
    LONG,
  );

  it(
    `${DEEP} alternating quote/list nestings give a valid document`,
    async () => {
      const markdown = `${Array.from({ length: DEEP }, (_, i) => (i % 2 === 0 ? '> ' : '- ')).join('')}deepmix`;
      const { docx, warnings, stats } = await convert({ markdown });
      expect(warnings).toEqual([`list_depth_exceeded: ${DEEP / 2}`]);
      expect(stats).toMatchObject({ lists: DEEP / 2, paragraphs: 1 });
      expect(part(docx, 'word/document.xml')).toContain('deepmix');
      await expectValid(docx, 'the alternating nesting');
    },
    LONG,
  );

  it(
    '100,000 nested [ brackets convert',
    async () => {
      const { docx, stats } = await convert({ markdown: `${'['.repeat(100_000)}x` });
      expect(stats).toMatchObject({ paragraphs: 1 });
      expect(part(docx, 'word/document.xml')).toContain('[[[[x');
      await expectValid(docx, 'the brackets');
    },
    LONG,
  );

  it(
    'a 1 MB single line converts',
    async () => {
      // Prose with some inline markup: a line dense with markup (emphasis, code, link labels) takes the parser minutes.
      const unit =
        'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor **incididunt** ut labore et _dolore_ magna `aliqua`. ';
      const line = unit.repeat(Math.ceil(1_000_000 / unit.length));
      expect(line.length).toBeGreaterThanOrEqual(1_000_000);
      expect(line).not.toContain('\n');
      const { docx, stats } = await convert({ markdown: line });
      expect(stats).toMatchObject({ paragraphs: 1 });
      expect(part(docx, 'word/document.xml').match(/<w:rStyle w:val="Strong"\/>/g)?.length).toBe(
        Math.ceil(1_000_000 / unit.length),
      );
      await expectValid(docx, 'the 1 MB line');
    },
    LONG,
  );
});
