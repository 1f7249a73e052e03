// List restart, checked for what it means rather than by golden files: two lists that start at the same number are
// two numbering instances (w:num), each of which restarts at its start (a startOverride, or an abstract definition
// of its own whose level starts there). Word continues the count across paragraphs that share an instance.
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { part } from '../helpers/docx.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const parse = (xml: string) => new DOMParser().parseFromString(xml, 'application/xml');
const child = (el: Element, name: string) => Array.from(el.getElementsByTagNameNS(W, name))[0];
const val = (el: Element | undefined) => el?.getAttributeNS(W, 'val') ?? el?.getAttribute('w:val') ?? undefined;

/** Each numbered paragraph's text with its numbering instance and level. */
function numberedParagraphs(docx: Uint8Array): { text: string; numId: string; ilvl: string }[] {
  const doc = parse(part(docx, 'word/document.xml'));
  return Array.from(doc.getElementsByTagNameNS(W, 'p')).flatMap((p) => {
    const numPr = child(p, 'numPr');
    if (!numPr) return [];
    const text = Array.from(p.getElementsByTagNameNS(W, 't'))
      .map((t) => t.textContent ?? '')
      .join('');
    return [{ text, numId: val(child(numPr, 'numId')) ?? '', ilvl: val(child(numPr, 'ilvl')) ?? '0' }];
  });
}

/** The number a numbering instance's level 0 starts at, and whether it restarts there (not continuing another instance). */
function levelZeroStart(
  docx: Uint8Array,
  numId: string,
): { abstractId: string; start: number; override: number | undefined } {
  const doc = parse(part(docx, 'word/numbering.xml'));
  const num = Array.from(doc.getElementsByTagNameNS(W, 'num')).find(
    (n) => (n.getAttributeNS(W, 'numId') ?? n.getAttribute('w:numId')) === numId,
  );
  expect(num, `w:num ${numId}`).toBeDefined();
  const abstractId = val(child(num as Element, 'abstractNumId')) ?? '';
  const override = Array.from((num as Element).getElementsByTagNameNS(W, 'lvlOverride')).find(
    (o) => (o.getAttributeNS(W, 'ilvl') ?? o.getAttribute('w:ilvl')) === '0',
  );
  const abstract = Array.from(doc.getElementsByTagNameNS(W, 'abstractNum')).find(
    (a) => (a.getAttributeNS(W, 'abstractNumId') ?? a.getAttribute('w:abstractNumId')) === abstractId,
  );
  const lvl0 = Array.from((abstract as Element).getElementsByTagNameNS(W, 'lvl')).find(
    (l) => (l.getAttributeNS(W, 'ilvl') ?? l.getAttribute('w:ilvl')) === '0',
  );
  const overrideValue = override ? val(child(override, 'startOverride')) : undefined;
  return {
    abstractId,
    start: Number(val(child(lvl0 as Element, 'start'))),
    override: overrideValue === undefined ? undefined : Number(overrideValue),
  };
}

describe('two lists with the same start are separate numbering instances, each restarting', () => {
  for (const [kind, first, second] of [
    ['ordered lists starting at 1', '1. a1\n2. a2\n', '1. b1\n2. b2\n'],
    ['ordered lists starting at 3', '3. a1\n4. a2\n', '3. b1\n4. b2\n'],
    ['bullet lists', '- a1\n- a2\n', '- b1\n- b2\n'],
    ['nested ordered lists', '1. a1\n   1. a-inner\n', '1. b1\n   1. b-inner\n'],
  ] as const) {
    it(kind, async () => {
      const result = await convert({ markdown: `${first}\nBetween.\n\n${second}` });
      const paras = numberedParagraphs(result.docx);
      const ofA = paras.filter((p) => p.text.startsWith('a'));
      const ofB = paras.filter((p) => p.text.startsWith('b'));
      expect(ofA.length).toBeGreaterThan(0);
      expect(ofB.length).toBeGreaterThan(0);
      // One instance per list (its items share it) and never the other list's.
      expect(new Set(ofA.filter((p) => p.ilvl === '0').map((p) => p.numId)).size).toBe(1);
      const idsA = new Set(ofA.map((p) => p.numId));
      for (const p of ofB) expect(idsA.has(p.numId), `${p.text} shares an instance with the first list`).toBe(false);
      if (kind.startsWith('bullet')) return;
      const start = Number(first.split('.')[0]);
      const a = levelZeroStart(result.docx, ofA[0]?.numId ?? '');
      const b = levelZeroStart(result.docx, ofB[0]?.numId ?? '');
      // Each restarts at its start: an override, or an abstract definition not shared with the other list.
      for (const [name, s] of [
        ['first', a],
        ['second', b],
      ] as const) {
        const restarts =
          s.override === start || (s.override === undefined && s.start === start && a.abstractId !== b.abstractId);
        expect(restarts, `the ${name} list restarts at ${start}: ${JSON.stringify(s)}`).toBe(true);
      }
    });
  }
});
