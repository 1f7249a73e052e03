// The citation syntax as the parser's pass reads it (server/convert/citations/syntax.ts), and what convert() makes of
// a bibliography's sources: CSL YAML in the front matter, a CSL style file beside the markdown, refusals.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Root } from 'mdast';
import { describe, expect, it } from 'vitest';
import { citationsOf, findCitations, type Citation } from '../../server/convert/citations/syntax.ts';
import { convert, filesSource } from '../../server/convert/index.ts';
import { parseMarkdown } from '../../server/convert/parse/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const REFS = readFileSync(resolve(import.meta.dirname, '../fixtures/citations/refs.bib'), 'utf8');

/** The citations of one paragraph of markdown, as kind, keys and the text each replaces. */
function cited(markdown: string): { mode: string; value: string; items: Citation['items'] }[] {
  const tree: Root = parseMarkdown(markdown).tree;
  findCitations(tree, markdown);
  return citationsOf(tree).map(({ mode, value, items }) => ({ mode, value, items }));
}

/** The text of a document's body, its runs joined, a paragraph a line. */
function bodyText(docx: Uint8Array): string {
  return [...part(docx, 'word/document.xml').matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:p[ >]/g)]
    .map((m) => m[1] ?? '\n')
    .join('')
    .replaceAll('&amp;', '&');
}

describe('the citation syntax', () => {
  it('reads bracketed citations with prefixes, locators, suffixes and a left-out author', () => {
    expect(cited('A [see @doe2020, p. 33; -@smith2019, chap. 2, and more].')).toEqual([
      {
        mode: 'normal',
        value: '[see @doe2020, p. 33; -@smith2019, chap. 2, and more]',
        items: [
          { key: 'doe2020', prefix: 'see', suffix: '', label: 'page', locator: '33', suppressAuthor: false },
          {
            key: 'smith2019',
            prefix: '',
            suffix: ', and more',
            label: 'chapter',
            locator: '2',
            suppressAuthor: true,
          },
        ],
      },
    ]);
  });

  it('reads narrative citations, ending a key before its trailing punctuation, and braced keys', () => {
    const found = cited('As @doe2020. said, and @{odd key} [p. 4]; @smith2019: yes.');
    expect(found.map((c) => [c.mode, c.value, c.items[0]?.key])).toEqual([
      ['narrative', '@doe2020', 'doe2020'],
      ['narrative', '@{odd key} [p. 4]', 'odd key'],
      ['narrative', '@smith2019', 'smith2019'],
    ]);
    expect(found[1]?.items[0]).toMatchObject({ label: 'page', locator: '4' });
  });

  it('leaves alone emails, escaped @, cross-references, links, code and brackets without a key', () => {
    const markdown =
      'Mail jane@example.org or a.b@c.de; \\@doe2020 and [\\@doe2020]; @fig:plot, [@tbl:data], [@eq:one; @sec:two], ' +
      '@lst:code; [a link @doe2020](https://example.org); `@doe2020`; [no key here].\n';
    expect(cited(markdown)).toEqual([]);
  });

  it('a bracket with one item that is not a citation is no citation (pandoc: every item needs a key)', () => {
    expect(cited('[@doe2020; and something]').map((c) => c.mode)).toEqual(['narrative']);
  });
});

describe('convert() with citations', () => {
  it('takes CSL YAML references from the front matter, dates as pandoc writes them', async () => {
    const markdown =
      '---\nreferences:\n  - id: lee\n    type: book\n    title: A Title\n    author: [{family: Lee, given: Min}]\n' +
      '    issued: 2022-03-01\n---\n\nSee [@lee].\n';
    const result = await convert({ markdown });
    expect(result.warnings).toEqual([]);
    expect(bodyText(result.docx)).toContain('See (Lee, 2022).\nReferences\nLee, M. (2022). A Title.');
  });

  it('a CSL style file the front matter names beside the markdown, read through the files given', async () => {
    const styles = (await import('@citation-js/plugin-csl/lib/styles.json', { with: { type: 'json' } })) as {
      default: Record<string, string>;
    };
    const files = new Map([
      ['refs.bib', new TextEncoder().encode(REFS)],
      ['styles/numbers.csl', new TextEncoder().encode(styles.default.vancouver ?? '')],
    ]);
    const result = await convert({
      markdown: '---\nbibliography: refs.bib\ncsl: styles/numbers.csl\n---\n\nA [@smith2019] and [@doe2020].\n',
      images: filesSource(files),
    });
    expect(bodyText(result.docx)).toContain('A (1) and (2).');
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('styles sent as XML are not kept: each conversion’s engine goes with it (citation-js kept every one, for ever)', async () => {
    const styles = (await import('@citation-js/plugin-csl/lib/styles.json', { with: { type: 'json' } })) as {
      default: Record<string, string>;
    };
    const { citationJs } = await import('../../server/convert/citations/citation-js.ts');
    const registry = citationJs().csl.styles as unknown as { list(): string[] };
    const before = registry.list().length;
    for (let n = 0; n < 3; n++) {
      // Three distinct styles (a comment apart), each formatting as the numeric style it is.
      const csl = (styles.default.vancouver ?? '').replace('<info>', `<info><!-- ${String(n)} -->`);
      const result = await convert({ markdown: 'A [@smith2019] and [@doe2020].\n', bibliography: { text: REFS }, csl });
      expect(bodyText(result.docx)).toContain('A (1) and (2).');
    }
    expect(registry.list().length).toBe(before);
  });

  it('refuses a style that is not CSL, and a bibliography over its entry cap, in one sentence', async () => {
    const markdown = 'A [@doe2020].\n';
    await expect(convert({ markdown, bibliography: { text: REFS }, csl: '<style>not csl</style>' })).rejects.toThrow(
      /^the CSL style sent is not a CSL style \(its <style> is not in CSL's namespace/,
    );
    const many = Array.from({ length: 10_001 }, (_, i) => `@misc{k${String(i)}, title = {T}}`).join('\n');
    await expect(convert({ markdown, bibliography: { text: many } })).rejects.toThrow(
      'the bibliography has 10001 entries, more than 10000',
    );
  });

  it.each(['vancouver', 'apa'])(
    'data a style cannot read (a name that is no text) is the bibliography’s error, not the server’s (%s)',
    async (csl) => {
      const bibliography = {
        text: JSON.stringify([{ id: 'root', type: 'book', author: [{ family: 'x', given: {} }], title: 'T' }]),
      };
      await expect(convert({ markdown: 'See [@root].\n', bibliography, csl })).rejects.toMatchObject({
        code: 'bibliography_invalid',
      });
    },
  );

  it('a document ending in its own References heading gets no second one: the bibliography goes under it', async () => {
    const markdown = '# Intro\n\nAs [@doe2020] showed.\n\n# References\n';
    const result = await convert({ markdown, bibliography: { text: REFS } });
    expect(result.warnings).toEqual([]);
    expect(bodyText(result.docx).match(/References/g)).toHaveLength(1);
    expect(part(result.docx, 'word/document.xml')).toContain('w:val="Bibliography"');
  });

  it('a document without a bibliography: @names stay text unwarned, a bracketed citation stays text with a warning', async () => {
    const markdown = 'Thanks @octocat and [@doe2020].\n';
    const result = await convert({ markdown });
    // Nothing a user wrote goes unsaid (issue 33, item 8): [@doe2020] is plainly a citation no bibliography formats.
    expect(result.warningDetails).toEqual([
      {
        warning:
          'syntax_as_text: [@doe2020] (citations are formatted only with a bibliography (front matter bibliography:, or sent with the request))',
        line: 1,
        count: 1,
      },
    ]);
    expect(bodyText(result.docx)).toContain('Thanks @octocat and [@doe2020].');
  });
});
