// Acceptance of issue 14: no output loses text silently. Every visible word of real documents reaches the body or the
// footnotes, front matter closed by `...` is read as front matter, and what the compiler cannot print is named in a
// warning.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { DOMParser, type Node } from '@xmldom/xmldom';
import type { Nodes as HastNodes } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import { toText } from 'hast-util-to-text';
import type { RootContent } from 'mdast';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { describe, expect, it } from 'vitest';
import { toDocx } from '../../server/convert/compile/index.ts';
import { convert, DEFAULT_RULES, defaultTemplate, readTemplate, resolveStyles } from '../../server/convert/index.ts';
import { parseMarkdown } from '../../server/convert/parse/index.ts';
import { part } from '../helpers/docx.ts';

const corpus = resolve(import.meta.dirname, '../../../shared/corpus/docs');
const specTxt = join(createRequire(import.meta.url).resolve('commonmark-spec'), '../spec.txt');
const documents = [
  ...readdirSync(corpus)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(corpus, f)),
  specTxt,
];

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Word counts of a text: Unicode word segmentation (Chinese included), case-folded, invisible format marks ignored. */
function words(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  // Segmented a chunk at a time: segmenting one long string is slow in V8.
  for (const chunk of text
    .normalize('NFC')
    .replace(/\p{Cf}/gu, '')
    .split(/\s+/)) {
    for (const { segment, isWordLike } of segmenter.segment(chunk)) {
      if (!isWordLike) continue;
      const word = segment.toLowerCase();
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return counts;
}

/** Footnote call numbers and the screen-reader heading of GitHub's footnote section are not words of the text. */
function dropFootnoteChrome(node: HastNodes): void {
  if (!('children' in node)) return;
  node.children = node.children.filter((child) => {
    if (child.type !== 'element') return true;
    const { properties } = child;
    return !(
      properties.dataFootnoteRef !== undefined ||
      properties.dataFootnoteBackref !== undefined ||
      String(properties.className ?? '').includes('sr-only')
    );
  });
  for (const child of node.children) dropFootnoteChrome(child);
}

/** The visible words of markdown as a browser shows it (micromark's own HTML rendering), front matter aside. */
function visibleWords(markdown: string): Map<string, number> {
  const body = markdown.replace(/^---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/, '');
  const html = micromark(body, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
  const tree = fromHtml(html, { fragment: true });
  dropFootnoteChrome(tree);
  return words(toText(tree));
}

/** The text of a WordprocessingML part: its w:t elements, line breaks and tabs as spaces. */
function partText(xml: string): string {
  const out: string[] = [];
  // A walk over the DOM: xmldom's live node lists are slow to index on parts of this size.
  const stack: Node[] = [new DOMParser().parseFromString(xml, 'text/xml')];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.nodeName === 'w:t') out.push(node.textContent ?? '');
    else if (node.nodeName === 'w:br' || node.nodeName === 'w:tab' || node.nodeName === 'w:p') out.push(' ');
    for (let child = node.lastChild; child; child = child.previousSibling) stack.push(child);
  }
  return out.join('');
}

function outputText(docx: Uint8Array): string {
  let text = partText(part(docx, 'word/document.xml'));
  try {
    text += ` ${partText(part(docx, 'word/footnotes.xml'))}`;
  } catch {
    // No footnotes part: nothing to add.
  }
  return text;
}

/** Share of the visible words found in the output (each occurrence counted). */
function coverage(markdown: string, docx: Uint8Array): { share: number; missing: string[] } {
  const expected = visibleWords(markdown);
  const found = words(outputText(docx));
  let total = 0;
  let hits = 0;
  const missing: string[] = [];
  for (const [word, count] of expected) {
    const hit = Math.min(count, found.get(word) ?? 0);
    total += count;
    hits += hit;
    if (hit < count) missing.push(`${word}×${count - hit}`);
  }
  return { share: total === 0 ? 1 : hits / total, missing };
}

describe('no text lost silently: real documents', () => {
  for (const path of documents) {
    it(`${String(path.split('/').pop())}: every visible word reaches the output`, async () => {
      const markdown = readFileSync(path, 'utf8');
      const { docx } = await convert({ markdown, created: new Date(0) });
      const { share, missing } = coverage(markdown, docx);
      expect(share, `missing: ${missing.slice(0, 20).join(' ')}`).toBe(1);
    });
  }

  it("CommonMark's spec.txt: front matter closed by `...` becomes document properties, the body all stays", async () => {
    const result = await convert({ markdown: readFileSync(specTxt, 'utf8'), created: new Date(0) });
    expect(result.warnings.filter((w) => w.startsWith('invalid_front_matter'))).toEqual([]);
    // Title, author and date make the built-in mapping's title block; version and license have no place.
    expect(result.warnings).toContain('front_matter_ignored: version, license');
    expect(part(result.docx, 'docProps/core.xml')).toContain('<dc:title>CommonMark Spec</dc:title>');
    const body = partText(part(result.docx, 'word/document.xml'));
    expect(body.startsWith(' CommonMark Spec John MacFarlane')).toBe(true);
    expect(body).toContain(' Introduction');
    expect(body).not.toContain('title: CommonMark Spec');
  });
});

describe('no text lost silently: what the compiler cannot print is named', () => {
  const template = readTemplate(defaultTemplate());
  const { styles } = resolveStyles(DEFAULT_RULES, template.styles);

  it('a node type without a handler keeps its text and is named in a warning', () => {
    const parsed = parseMarkdown('Before.\n');
    // Node types of plugins the compiler does not know (math and inlineMath were these until math had handlers).
    const block = { type: 'plugin-block', value: 'E = mc^2' } as unknown as RootContent;
    const inline = { type: 'pluginInline', value: 'a + b' } as unknown as RootContent;
    parsed.tree.children.push(block, { type: 'paragraph', children: [inline as never] });
    const compiled = toDocx(parsed, { styles, textWidthTwips: template.textWidthTwips });
    expect(compiled.warnings).toEqual(['unsupported_node: plugin-block', 'unsupported_node: pluginInline']);
    expect(JSON.stringify(compiled.children)).toContain('E = mc^2');
    expect(JSON.stringify(compiled.children)).toContain('a + b');
  });

  it('a table inside a footnote keeps its text in the footnote, with a warning', async () => {
    const markdown = 'Text.[^n]\n\n[^n]: Note.\n\n    | a | b |\n    |---|---|\n    | cell one | cell two |\n';
    const result = await convert({ markdown, created: new Date(0) });
    const footnotes = partText(part(result.docx, 'word/footnotes.xml'));
    expect(footnotes).toContain('cell one');
    expect(footnotes).toContain('cell two');
    expect(result.warnings).toContain('table_in_footnote: flattened to text');
  });

  it('HTML nested too deep to convert safely keeps its text, named in a warning', async () => {
    const markdown = `${'<div>'.repeat(5000)}deep text${'</div>'.repeat(5000)}\n\nInline ${'<b>'.repeat(3000)}bold text${'</b>'.repeat(3000)}\n`;
    const result = await convert({ markdown, created: new Date(0) });
    const body = partText(part(result.docx, 'word/document.xml'));
    expect(body).toContain('deep text');
    expect(body).toContain('bold text');
    expect(result.warnings).toContain('html_too_deep: printed as text');
  });

  it('script and style contents are dropped with a warning; comments silently', async () => {
    const result = await convert({
      markdown: 'Text <!-- hidden note -->\n\n<script>alert(1)</script>\n\n<style>p{}</style>\n',
      created: new Date(0),
    });
    const body = partText(part(result.docx, 'word/document.xml'));
    expect(body).not.toMatch(/hidden note|alert|p\{\}/);
    expect(result.warnings).toEqual(['dropped_html: script', 'dropped_html: style']);
  });

  it('raw HTML from real READMEs keeps its structure: headings, tables, links', async () => {
    const jekyll = await convert({
      markdown: readFileSync(join(corpus, 'jekyll-docs-collections.md'), 'utf8'),
      created: new Date(0),
    });
    const body = part(jekyll.docx, 'word/document.xml');
    expect(body).toContain('<w:tbl>');
    const awesome = await convert({
      markdown: readFileSync(join(corpus, 'awesome-readme.md'), 'utf8'),
      created: new Date(0),
    });
    const awesomeBody = part(awesome.docx, 'word/document.xml');
    expect(awesomeBody).toMatch(/<w:pStyle w:val="Heading2"\/>.{0,600}Supercharge/s);
    expect(awesome.warnings.some((w) => w === 'unsupported_html: a' || w === 'unsupported_html: div')).toBe(false);
  });
});
