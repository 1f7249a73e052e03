// pandoc's attribute blocks (issue 33, item 3): which `{…}` texts are blocks, and what they hold.
import { describe, expect, it } from 'vitest';
import { parseAttributes } from '../../server/convert/parse/attributes.ts';

describe('parseAttributes', () => {
  it('reads identifiers, classes, quoted and bare values and the `-` shorthand', () => {
    expect(parseAttributes('{#intro .unnumbered .unlisted}')).toEqual({
      id: 'intro',
      classes: ['unnumbered', 'unlisted'],
      pairs: [],
    });
    expect(parseAttributes('{-}')).toEqual({ classes: ['unnumbered'], pairs: [] });
    expect(parseAttributes("{ width=50% height=\"3 cm\" custom-style='Note \\' x' }")).toEqual({
      classes: [],
      pairs: [
        ['width', '50%'],
        ['height', '3 cm'],
        ['custom-style', "Note ' x"],
      ],
    });
  });

  it('is no block without a token of its own kind, as in pandoc', () => {
    for (const text of ['{}', '{x}', '{ }', '{#}', '{.}', '{a b}', '{#id x}', '{=docx}', 'x{#id}'])
      expect(parseAttributes(text), text).toBeUndefined();
  });
});

describe('fenced divs at the edges', () => {
  it('opens at most 32 nested divs (compiling recurses), warns the rest, and converts 10,000 fences quickly', async () => {
    const { convert } = await import('../../server/convert/index.ts');
    const deep = `${'::: {custom-style="Quote"}\n'.repeat(40)}deep\n${':::\n'.repeat(40)}`;
    const nested = await convert({ markdown: deep, created: new Date(0) });
    expect(nested.warnings).toEqual(['div_depth_exceeded: divs nest at most 32 deep (its content kept)']);
    const many = '::: {custom-style="Quote"}\ntext\n:::\n\n'.repeat(5000);
    const started = performance.now();
    const result = await convert({ markdown: many, created: new Date(0) });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(result.warnings).toEqual([]);
  });
});
