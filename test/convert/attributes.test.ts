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
