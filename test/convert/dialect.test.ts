// The dialect in the engine (issue 33, items 6 and 7): the front matter's unknown `markdown:` warned with its line,
// an unknown option refused, and what GFM already reads (links and footnote calls after a caret, strikethrough) kept.
import { describe, expect, it } from 'vitest';
import { convert, ConvertInputError, type Dialect } from '../../server/convert/index.ts';
import { parseMarkdown } from '../../server/convert/parse/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

/** The tree's first block's children, positions left out. */
function inline(markdown: string, dialect?: Dialect): unknown {
  const { tree } = parseMarkdown(markdown, { math: true, ...(dialect ? { dialect } : {}) });
  return JSON.parse(
    JSON.stringify(tree.children[0], (key, value: unknown) => (key === 'position' ? undefined : value)),
  );
}

describe('the dialect in the engine', () => {
  it('an unknown front matter value is warned with its line, GFM used; a known one is not front_matter_ignored', async () => {
    const unknown = await convert({ markdown: '---\ntitle: T\nmarkdown: strict\n---\n\nH~2~O\n' });
    expect(unknown.warningDetails).toContainEqual(
      expect.objectContaining({
        warning: 'invalid_front_matter: markdown must be gfm or pandoc, not "strict" (gfm used)',
        line: 3,
      }),
    );
    expect(part(unknown.docx, 'word/document.xml')).toContain('<w:strike/>');
    const known = await convert({ markdown: '---\nmarkdown: pandoc\n---\n\nH~2~O\n' });
    expect(known.warnings).toEqual([]);
    const { ok, report } = await validateDocx(known.docx);
    expect(ok, report).toBe(true);
  });

  it('an unknown dialect asked for is a ConvertInputError', async () => {
    const refused = convert({ markdown: 'x', dialect: 'commonmark' as Dialect });
    await expect(refused).rejects.toBeInstanceOf(ConvertInputError);
    await expect(refused).rejects.toThrow('dialect must be "gfm" or "pandoc"');
  });

  it("GFM's readings after a caret stay: a link, a full or shortcut reference, a footnote call", () => {
    const link = { type: 'link', title: null, url: 'https://x.org', children: [{ type: 'text', value: 'a' }] };
    expect(inline('^[a](https://x.org)')).toEqual({
      type: 'paragraph',
      children: [{ type: 'text', value: '^' }, link],
    });
    const defined = '^[a]\n\n[a]: https://x.org';
    expect(inline(defined)).toMatchObject({ children: [{ value: '^' }, { type: 'linkReference' }] });
    expect(inline('^[a][b]\n\n[b]: https://x.org')).toMatchObject({
      children: [{ value: '^' }, { type: 'linkReference' }],
    });
    expect(inline('x^[^1]\n\n[^1]: note')).toMatchObject({
      children: [{ value: 'x^' }, { type: 'footnoteReference' }],
    });
    // Undefined, the same brackets are a note.
    expect(inline('^[a]')).toMatchObject({ children: [{ type: 'footnoteReference' }] });
  });

  it("pandoc's rules: no unescaped space, not empty; strikethrough's two tildes in both dialects", () => {
    expect(inline('a^b c^ ^^ ~~s~~', 'pandoc')).toMatchObject({
      children: [{ type: 'text', value: 'a^b c^ ^^ ' }, { type: 'delete' }],
    });
    expect(inline('H~2~O')).toMatchObject({ children: [{ value: 'H' }, { type: 'delete' }, { value: 'O' }] });
    expect(inline('H~2~O', 'pandoc')).toMatchObject({
      children: [{ value: 'H' }, { type: 'subscript' }, { value: 'O' }],
    });
    expect(inline('^a\\ b^')).toMatchObject({ children: [{ type: 'superscript', children: [{ value: 'a\u00a0b' }] }] });
  });

  it('inline notes share the numbering of [^1] notes, in document order', async () => {
    const result = await convert({ markdown: 'One^[inline] two[^n] three^[again].\n\n[^n]: numbered\n' });
    const notes = part(result.docx, 'word/footnotes.xml');
    const order = [...notes.matchAll(/<w:footnote w:id="(\d+)">.*?<w:t[^>]*>([^<]*)<\/w:t>/gs)].map((m) => m.slice(1));
    expect(order.filter(([id]) => Number(id) > 0)).toEqual([
      ['1', 'inline'],
      ['2', 'numbered'],
      ['3', 'again'],
    ]);
  });

  it('unclosed ^[ do not cost the paragraph once each (MAX_INNER_NOTES bounds a scan): 20,000 parse in seconds, not minutes', () => {
    const markdown = `${'^[a '.repeat(20_000)}^[a closed one]`;
    const started = performance.now();
    const { tree } = parseMarkdown(markdown);
    expect(performance.now() - started).toBeLessThan(10_000);
    // An opener whose scan meets more than MAX_INNER_NOTES others stays text, never lost.
    expect(JSON.stringify(tree)).toContain('^[a ^[a ');
  });
});
