// The template's paragraph styles by id, read once per styles part (the part is read only, kept per template): the
// same index again for the same part, the same lookups as a fresh walk.
import { describe, expect, it } from 'vitest';
import { parsePart, wAttr } from '../../../server/convert/package/dom.ts';
import { NS } from '../../../server/convert/package/namespaces.ts';
import { stylesById } from '../../../server/convert/package/numbering.ts';

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
});
