// The preview's equations (renderer/src/lib/preview-math.ts): what docx-preview cannot draw (it drops an element it
// has no name for, with all inside it) rewritten as what it draws, on a real converted document's OMML.
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { drawableMath } from '../../renderer/src/lib/preview-math.ts';
import { part } from '../helpers/docx.ts';

/** The names docx-preview 0.4 maps (its mmlTagMap), besides runs and properties. */
const DRAWN = new Set(
  'oMath oMathPara f func fName num den rad deg e sSup sSub sPre sup sub d nary eqArr lim limLow m mr box bar groupChr'.split(
    ' ',
  ),
);

describe('the preview draws every equation', () => {
  it('x_i^2, \\hat{y}, an upper limit, a boxed and a phantom formula: nothing dropped but the phantom', async () => {
    const markdown =
      '$x_i^2 + \\hat{y} + \\overset{n}{\\lim} + \\boxed{z} + \\phantom{w} + \\sum_{k=1}^{n} \\tilde{q}_k^3$\n';
    const xml = part((await convert({ markdown })).docx, 'word/document.xml');
    expect(xml).toMatch(/<m:sSubSup>/);
    expect(xml).toMatch(/<m:acc>/);
    const doc = new DOMParser().parseFromString(xml, 'application/xml') as unknown as Document;
    expect(drawableMath(doc)).toBe(true);
    const out = new XMLSerializer().serializeToString(
      doc as unknown as Parameters<XMLSerializer['serializeToString']>[0],
    );
    // Every math element outside a properties element (…Pr) and a run: one docx-preview draws.
    const M = 'http://schemas.openxmlformats.org/officeDocument/2006/math';
    const inside = (el: Element): boolean => {
      for (let p = el.parentNode as Element | null; p; p = p.parentNode as Element | null)
        if (p.localName?.endsWith('Pr') || p.localName === 'r') return true;
      return false;
    };
    const all = Array.from(doc.getElementsByTagNameNS(M, '*'));
    const undrawn = all
      .filter((el) => !inside(el) && !el.localName.endsWith('Pr') && el.localName !== 'r')
      .map((el) => el.localName)
      .filter((name) => !DRAWN.has(name));
    expect(undrawn).toEqual([]);
    // The text of every drawn part is kept: x, i, 2, y, n, z, q, k, 3; the phantom's w is not drawn.
    const text = [...out.matchAll(/<m:t[^>]*>([^<]*)<\/m:t>/g)].map((m) => m[1]).join('');
    for (const c of ['x', 'i', '2', 'y', 'n', 'z', 'q', 'k', '3']) expect(text).toContain(c);
    expect(text).not.toContain('w');
  });
});
