// The template's paragraph styles by id, read once per styles part (the part is read only, kept per template): the
// same index again for the same part, the same lookups as a fresh walk, and a fresh walk with DOCWRIGHT_UNOPTIMISED=1.
import { afterEach, describe, expect, it } from 'vitest';
import { parsePart, wAttr } from '../../../server/convert/package/dom.ts';
import { NS } from '../../../server/convert/package/namespaces.ts';
import { stylesById } from '../../../server/convert/package/numbering.ts';

afterEach(() => {
  delete process.env.DOCWRIGHT_UNOPTIMISED;
});

const styles = parsePart(
  `<w:styles xmlns:w="${NS.w}"><w:style w:type="paragraph" w:styleId="A"/><w:style w:type="paragraph" w:styleId="B"><w:basedOn w:val="A"/></w:style></w:styles>`,
  'word/styles.xml',
);

describe('the styles index of a template', () => {
  it('is built once per styles part, with every style by its id', () => {
    const index = stylesById(styles);
    expect([...index.keys()]).toEqual(['A', 'B']);
    expect(wAttr(index.get('B') ?? styles.createElement('x'), 'styleId')).toBe('B');
    expect(stylesById(styles)).toBe(index);
    expect(stylesById(null).size).toBe(0);
  });

  it('is walked afresh without the optimisations', () => {
    const cached = stylesById(styles);
    process.env.DOCWRIGHT_UNOPTIMISED = '1';
    const fresh = stylesById(styles);
    expect(fresh).not.toBe(cached);
    expect([...fresh.keys()]).toEqual([...cached.keys()]);
  });
});
