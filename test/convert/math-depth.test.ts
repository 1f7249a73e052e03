// A formula nested deeper than a reader's office suite opens (the attack review: \frac inside \frac 2,000 deep made
// a .docx LibreOffice could not load) stays its TeX, warned math_unsupported; an ordinary deep one converts.
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { texToOmml } from '../../server/convert/math/index.ts';

describe('how deep a formula may nest', () => {
  it('\\frac 40 deep converts', () => {
    expect('omml' in texToOmml(`${'\\frac{'.repeat(40)}x${'}{y}'.repeat(40)}`, true)).toBe(true);
  });

  it.each([
    ['\\frac', `${'\\frac{'.repeat(300)}x${'}{y}'.repeat(300)}`],
    ['x^', `${'x^{'.repeat(600)}y${'}'.repeat(600)}`],
    ['\\sqrt', `${'\\sqrt{'.repeat(600)}z${'}'.repeat(600)}`],
  ])('%s nested past the limit: the TeX kept, warned', async (_name, tex) => {
    expect('error' in texToOmml(tex, true)).toBe(true);
    const result = await convert({ markdown: `$$${tex}$$\n` });
    expect(result.warnings.some((w) => w.startsWith('math_unsupported:'))).toBe(true);
  });
});
