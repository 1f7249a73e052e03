// Relationship ids with a prefix: the first free number, also after a removal frees one.
import { describe, expect, it } from 'vitest';
import { REL, Relationships } from '../../../server/convert/package/relationships.ts';

function ids(): string[] {
  const rels = new Relationships(undefined, 'word/_rels/document.xml.rels');
  const out: string[] = [];
  const link = (n: number) =>
    rels.add(REL.hyperlink, `https://example.com/${String(n)}`, { external: true, prefix: 'dwLink' });
  for (let i = 0; i < 3; i++) out.push(link(i));
  rels.remove(REL.hyperlink, 'https://example.com/1');
  out.push(link(3), link(4));
  out.push(rels.add(REL.numbering, 'numbering.xml'));
  for (let i = 5; i < 2000; i++) out.push(link(i));
  return out;
}

describe('relationship ids', () => {
  it('takes the first free number of a prefix, also one a removal freed', () => {
    const fast = ids();
    expect(fast.slice(0, 6)).toEqual(['dwLink1', 'dwLink2', 'dwLink3', 'dwLink2', 'dwLink4', 'rId5']);
    expect(fast.at(-1)).toBe('dwLink1999');
  });
});
