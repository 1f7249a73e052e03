// TeX math in markdown (issue 33, item 1): `$…$` inline and `$$…$$` display by pandoc's rule (the opening `$` has a
// non-space after it, the closing `$` a non-space before it and no digit after it), so prices stay text and TeX's
// escapes inside math are kept as written.
import type { Nodes, PhrasingContent } from 'mdast';
import { describe, expect, it } from 'vitest';
import { parseMarkdown, parseTree } from '../../server/convert/parse/index.ts';
import { cutPoints } from '../../server/convert/parse/chunks.ts';

/** The first paragraph's children as [type, value] pairs, display math marked `displayMath`. */
function inline(markdown: string, math = true): [string, string][] {
  const tree = parseMarkdown(markdown, { math }).tree;
  const paragraph = tree.children[0];
  if (paragraph?.type !== 'paragraph') throw new Error(`not a paragraph: ${paragraph?.type ?? 'nothing'}`);
  return paragraph.children.map((node: PhrasingContent) => {
    const display = node.type === 'inlineMath' && node.data?.display === true;
    return [display ? 'displayMath' : node.type, 'value' in node ? node.value : ''];
  });
}

describe('math in markdown, by pandoc’s rule', () => {
  it('prices are not math', () => {
    expect(inline('costs $5 and $10')).toEqual([['text', 'costs $5 and $10']]);
    expect(inline('from $20,000 to $30,000.')).toEqual([['text', 'from $20,000 to $30,000.']]);
    expect(inline('between $5 and $10 a day')).toEqual([['text', 'between $5 and $10 a day']]);
    // The closing `$` is followed by a digit: not math.
    expect(inline('$x$5')).toEqual([['text', '$x$5']]);
    // A space after the opening `$`, or before the closing one: not math.
    expect(inline('$ x$ and $x $')).toEqual([['text', '$ x$ and $x $']]);
  });

  it('inline math: a later `$` may open where an earlier one failed', () => {
    expect(inline('$a $b$ c')).toEqual([
      ['text', '$a '],
      ['inlineMath', 'b'],
      ['text', ' c'],
    ]);
    expect(inline('$E = mc^2$ holds')).toEqual([
      ['inlineMath', 'E = mc^2'],
      ['text', ' holds'],
    ]);
  });

  it('markdown escapes: `\\$` is a dollar, and TeX escapes inside math are kept', () => {
    expect(inline('\\$5 and \\$x\\$')).toEqual([['text', '$5 and $x$']]);
    expect(inline('$a\\,b \\{c\\} \\_d \\$ e$')).toEqual([['inlineMath', 'a\\,b \\{c\\} \\_d \\$ e']]);
    expect(inline('$\\text{a $ b}$')).toEqual([['inlineMath', '\\text{a $ b}']]);
    // Emphasis and code markers inside math are TeX.
    expect(inline('$a_1 * b_2 * `c`$')).toEqual([['inlineMath', 'a_1 * b_2 * `c`']]);
  });

  it('display math: `$$…$$` inline, and the `$$` fence', () => {
    expect(inline('$$x^2$$')).toEqual([['displayMath', 'x^2']]);
    expect(inline('see $$ a + b $$ here')).toEqual([
      ['text', 'see '],
      ['displayMath', ' a + b '],
      ['text', ' here'],
    ]);
    const tree = parseMarkdown('$$\n\\int_0^1 x\\,dx\n$$\n', { math: true }).tree;
    expect(tree.children[0]).toMatchObject({ type: 'math', value: '\\int_0^1 x\\,dx' });
  });

  it('math spans lines of a paragraph', () => {
    expect(inline('$a +\nb$')).toEqual([['inlineMath', 'a +\nb']]);
  });

  it('math off: dollars are text, as GFM reads them', () => {
    expect(inline('$x$ and $$y$$', false)).toEqual([['text', '$x$ and $$y$$']]);
    const tree = parseMarkdown('$$\nx\n$$\n', { math: false }).tree;
    expect(tree.children.map((n: Nodes) => n.type)).toEqual(['paragraph']);
  });

  it('a `$$` fence holding a blank line and a heading is one block when the document is parsed in pieces', () => {
    const markdown = '# a\n\ntext\n\n$$\nx\n\n# not a heading\n\ny\n$$\n\n# b\n\nz\n';
    const whole = parseTree(markdown, Infinity);
    expect(whole.children.map((n) => n.type)).toEqual(['heading', 'paragraph', 'math', 'heading', 'paragraph']);
    expect(JSON.stringify(parseTree(markdown, 0))).toBe(JSON.stringify(whole));
  });

  it('lines of `$$x$$` do not stop the cutting of a long document', () => {
    const section = '# s\n\ntext $a$ here\n\n$$x^2$$\n\n';
    expect(cutPoints(section.repeat(10))).toHaveLength(10);
  });
});
