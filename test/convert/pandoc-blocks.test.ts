// pandoc's block syntax of issue 33 item 6: definition lists and line blocks (pandoc's dialect only: they change how
// GFM reads ordinary lines) and HTML comments (dropped, or Word comments when the mapping asks: `comments: "word"`).
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplateRead, suggestRules } from '../../server/convert/index.ts';
import type { Root } from 'mdast';
import { toDocx } from '../../server/convert/compile/index.ts';
import { boundNesting } from '../../server/convert/parse/flatten.ts';
import { part, partNames, validateDocx } from '../helpers/docx.ts';

const created = new Date('2026-01-02T03:04:05Z');

/** The body of a conversion's document.xml, its warnings, and the .docx (validated against the schema). */
async function converted(
  markdown: string,
  options: { dialect?: 'gfm' | 'pandoc'; mapping?: Record<string, unknown> } = {},
): Promise<{ body: string; warnings: string[]; docx: Uint8Array }> {
  const result = await convert({ markdown, created, ...options });
  const { ok, report } = await validateDocx(result.docx);
  expect(ok, report).toBe(true);
  const xml = part(result.docx, 'word/document.xml');
  return {
    body: xml.slice(xml.indexOf('<w:body>'), xml.lastIndexOf('<w:sectPr')),
    warnings: result.warnings,
    docx: result.docx,
  };
}

/** The paragraphs of a body: each one's style id and its text (w:br as a newline). */
function paragraphs(body: string): { style: string | undefined; text: string; xml: string }[] {
  return [...body.matchAll(/<w:p>([\s\S]*?)<\/w:p>|<w:p [^>]*>([\s\S]*?)<\/w:p>/g)].map((m) => {
    const xml = m[1] ?? m[2] ?? '';
    const style = /<w:pStyle w:val="([^"]+)"/.exec(xml)?.[1];
    const text = [...xml.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:br\/>/g)]
      .map((t) => (t[0] === '<w:br/>' ? '\n' : (t[1] ?? '')))
      .join('');
    return { style, text, xml };
  });
}

const DEFINITIONS = [
  'Apple',
  ': A pomaceous fruit of the genus *Malus*.',
  '',
  'Orange',
  ': The fruit of an evergreen tree',
  'of the genus Citrus (a lazy line).',
  '',
  'Term with two definitions',
  '',
  ': The first, loose.',
  '',
  ': The second, with a second paragraph.',
  '',
  '    Its second paragraph, indented.',
  '',
  'A paragraph after the list.',
].join('\n');

describe('definition lists', () => {
  it("in pandoc's dialect: each term in the term style, each definition's paragraphs in the definition style", async () => {
    const { body, warnings } = await converted(DEFINITIONS, { dialect: 'pandoc' });
    expect(warnings).toEqual([]);
    expect(paragraphs(body).map(({ style, text }) => [style, text])).toEqual([
      ['DefinitionTerm', 'Apple'],
      ['Definition', 'A pomaceous fruit of the genus Malus.'],
      ['DefinitionTerm', 'Orange'],
      ['Definition', 'The fruit of an evergreen tree of the genus Citrus (a lazy line).'],
      ['DefinitionTerm', 'Term with two definitions'],
      ['Definition', 'The first, loose.'],
      ['Definition', 'The second, with a second paragraph.'],
      ['Definition', 'Its second paragraph, indented.'],
      ['BodyText', 'A paragraph after the list.'],
    ]);
  });

  it('in GFM (the default) the lines stay the paragraphs GFM reads', async () => {
    const { body } = await converted(DEFINITIONS);
    const texts = paragraphs(body).map((p) => p.text);
    expect(texts[0]).toBe('Apple : A pomaceous fruit of the genus Malus.');
    expect(body).not.toContain('DefinitionTerm');
  });

  it('without the keys mapped: the term bold, the definition indented one step', async () => {
    const { body, warnings } = await converted('Term\n: Its definition.', {
      dialect: 'pandoc',
      mapping: { paragraph: 'Body Text' },
    });
    expect(warnings).toEqual([]);
    const [term, definition] = paragraphs(body);
    expect(term?.xml).toContain('<w:b/>');
    expect(definition?.xml).toContain('<w:ind w:left="720"/>');
    expect(definition?.text).toBe('Its definition.');
  });

  it('a mapped style the template lacks: missing_style, built-in formatting', async () => {
    const { warnings } = await converted('Term\n: Its definition.', {
      dialect: 'pandoc',
      mapping: { definition_term: 'No Such Term', definition: 'No Such Definition' },
    });
    expect(warnings).toEqual(['missing_style: No Such Term', 'missing_style: No Such Definition']);
  });

  it('nested 5,000 deep: the nesting bounded as for quotes and lists, compiled without a stack overflow', () => {
    // The tree a definition holding a quote holding the next list gives, 5,000 times (parsing that much takes minutes).
    const root: Root = { type: 'root', children: [] };
    let blocks = root.children as unknown[];
    for (let i = 0; i < 5000; i++) {
      const description = { type: 'defListDescription', spread: false, children: [] as unknown[] };
      blocks.push({
        type: 'defList',
        children: [{ type: 'defListTerm', children: [{ type: 'text', value: `term ${i}` }] }, description],
      });
      blocks = description.children;
    }
    blocks.push({ type: 'paragraph', children: [{ type: 'text', value: 'the innermost text' }] });
    boundNesting(root);
    // The lists nested in one another, counted through their definitions.
    let depth = 0;
    for (let node: { type?: string; children?: unknown[] } | undefined = root; node;) {
      if (node.type === 'defList') depth += 1;
      node = (node.children ?? []).find((c) => /^defList(Description)?$/.test((c as { type: string }).type)) as
        typeof node | undefined;
    }
    expect(depth).toBeLessThan(60);
    const stats = { headings: 0, paragraphs: 0, lists: 0, tables: 0, code_blocks: 0, images: 0 };
    const compiled = toDocx(
      { tree: root, stats, maxListDepth: 0, warnings: [], warningDetails: [], dialect: 'pandoc' },
      {
        styles: { heading: {}, tableHeaderRow: true, titleBlock: {}, bibliography: 'Bibliography' },
        textWidthTwips: 9000,
      },
    );
    expect(compiled.children).toHaveLength(5001);
  });

  it("pandoc's `~` marker, which is not read, stays text with a warning and its line", async () => {
    const result = await convert({ markdown: 'Intro.\n\nTerm\n~ Its definition.\n', created, dialect: 'pandoc' });
    expect(result.warningDetails).toEqual([
      {
        warning: "syntax_as_text: ~ definition (pandoc's ~ marker is not read; a definition starts with :)",
        line: 4,
        count: 1,
      },
    ]);
    const gfm = await convert({ markdown: 'Term\n~ Its definition.\n', created });
    expect(gfm.warnings).toEqual([]);
  });

  it("the automatic mapping finds pandoc's style names", () => {
    const rules = suggestRules(defaultTemplateRead().styles);
    expect(rules).toMatchObject({ definition_term: 'Definition Term', definition: 'Definition' });
  });
});

const LIMERICK = [
  '| The limerick packs laughs anatomical',
  '| In space that is quite economical.',
  '|    But the good ones I’ve seen',
  '|    So seldom are *clean*',
  '| And the clean ones so seldom are comical',
  '',
  '| The Right Honorable Most Venerable and Righteous Samuel L.',
  '  Constable, Jr.',
  '|',
  '| 200 Main St.',
].join('\n');

describe('line blocks', () => {
  it("in pandoc's dialect: one paragraph, a line break between lines, leading spaces kept", async () => {
    const { body, warnings } = await converted(LIMERICK, { dialect: 'pandoc' });
    expect(warnings).toEqual([]);
    expect(paragraphs(body).map((p) => p.text)).toEqual([
      'The limerick packs laughs anatomical\nIn space that is quite economical.\n   But the good ones I’ve seen\n   So seldom are clean\nAnd the clean ones so seldom are comical',
      'The Right Honorable Most Venerable and Righteous Samuel L. Constable, Jr.\n\n200 Main St.',
    ]);
    expect(body).toContain('<w:rStyle w:val="Emphasis"/>');
    expect(body).not.toContain('| ');
  });

  it("GFM tables stay tables in pandoc's dialect", async () => {
    const { body } = await converted('| a | b |\n|---|---|\n| 1 | 2 |', { dialect: 'pandoc' });
    expect(body).toContain('<w:tbl>');
  });

  it("in pandoc's dialect named by the front matter (markdown: pandoc), as by the request", async () => {
    const { body, warnings } = await converted('---\nmarkdown: pandoc\n---\n| one\n|   two\n');
    expect(warnings).toEqual([]);
    expect(paragraphs(body).map((p) => p.text)).toEqual(['one\n  two']);
  });

  it('in GFM (the default) the bars stay text', async () => {
    const { body } = await converted('| one\n| two');
    expect(paragraphs(body).map((p) => p.text)).toEqual(['| one | two']);
  });
});

const COMMENTS = [
  'Text <!-- an inline note --> more.',
  '',
  '<!-- a block comment',
  'over two lines -->',
  '',
  'After <!-- two',
  'lines --> end.',
].join('\n');

describe('HTML comments', () => {
  it('are dropped silently by default: no text of theirs, no warning, no comments part', async () => {
    const { body, warnings, docx } = await converted(COMMENTS);
    expect(warnings).toEqual([]);
    expect(body).not.toMatch(/note|block comment|two/);
    expect(paragraphs(body).map((p) => p.text)).toEqual(['Text  more.', 'After  end.']);
    expect(partNames(docx)).not.toContain('word/comments.xml');
  });

  it('become Word comments anchored where they stood with `comments: "word"`', async () => {
    const { body, warnings, docx } = await converted(COMMENTS, {
      mapping: { paragraph: 'Body Text', comments: 'word' },
    });
    expect(warnings).toEqual([]);
    const comments = part(docx, 'word/comments.xml');
    expect(comments).toContain('an inline note');
    expect(comments).toMatch(/a block comment[\s\S]*over two lines/);
    expect(comments).toMatch(/two[\s\S]*lines/);
    expect(body.match(/<w:commentReference /g)).toHaveLength(3);
    // The inline one between "Text " and " more.", the block one at the start of the paragraph after it.
    expect(body).toMatch(/Text <\/w:t><\/w:r><w:commentRangeStart w:id="(\d+)"\/>/);
    expect(paragraphs(body).map((p) => p.text)).toEqual(['Text  more.', 'After  end.']);
  });
});
