// Big operators one after another (a double sum, a double integral): each is the next one's argument, as pandoc writes
// them, never a limit around an operator with an empty argument (LibreOffice printed an empty box ❑ there, seen on
// the rendered pages).
import { describe, expect, it } from 'vitest';
import { ommlXml, texToOmml } from '../../server/convert/math/index.ts';

function omml(tex: string): string {
  const result = texToOmml(tex, true);
  if (!('omml' in result)) throw new Error(result.error);
  return ommlXml([result.omml]);
}

describe('big operators in a row', () => {
  it.each([
    ['\\sum_{i} \\sum_{j} x_{ij}', 2],
    ['\\sum_{i=1}^{n}\\sum_{j=1}^{m} a_{ij}', 2],
    ['\\int_0^1 \\int_0^1 f(x,y)', 2],
    ['\\sum_{a}\\sum_{b}\\sum_{c} w', 3],
  ])('%s: nested m:nary, the innermost holding the argument', (tex, count) => {
    const xml = omml(tex);
    expect(xml.match(/<m:nary>/g)).toHaveLength(count);
    expect(xml).not.toContain('<m:limLow>');
    expect(xml).not.toContain('<m:e/>');
    // Each operator's argument holds the next: the closing tags of the n-aries come together at the end.
    expect(xml).toMatch(new RegExp(`(</m:e></m:nary>){${String(count)}}`));
  });
});
