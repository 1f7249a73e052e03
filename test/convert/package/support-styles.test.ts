// Styles docx refers to by fixed ids: when the template has both under those very ids (the built-in template does),
// nothing can change, so the content is not walked for references at all; otherwise it is, as before.
import type { Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { parsePart, wAttr } from '../../../server/convert/package/dom.ts';
import { NS } from '../../../server/convert/package/namespaces.ts';
import { supportStyles } from '../../../server/convert/package/styles.ts';
import { readStyles } from '../../../server/convert/template/styles.ts';

const BOTH = `<w:style w:type="character" w:styleId="FootnoteReference"><w:name w:val="footnote reference"/></w:style><w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/></w:style>`;
const RENAMED = `<w:style w:type="character" w:styleId="Fnref"><w:name w:val="footnote reference"/></w:style><w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/></w:style>`;

const stylesPart = (inner: string) => parsePart(`<w:styles xmlns:w="${NS.w}">${inner}</w:styles>`, 'word/styles.xml');

/** A body referring to both styles, counting how often a walk looks at its paragraph's children. */
function body(): { root: Element; visits: () => number } {
  const doc = parsePart(
    `<w:body xmlns:w="${NS.w}"><w:p><w:pPr><w:pStyle w:val="ListParagraph"/></w:pPr><w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr></w:r></w:p></w:body>`,
    'word/document.xml',
  );
  const root = doc.documentElement;
  if (!root) throw new Error('no body');
  let visits = 0;
  const last = Object.getOwnPropertyDescriptor(root, 'lastChild');
  const value: unknown = root.lastChild;
  if (last) Object.defineProperty(root, 'lastChild', { get: () => (visits++, value) });
  return { root, visits: () => visits };
}

describe('support styles', () => {
  it('does not walk the content when the template has both styles under the ids docx uses', () => {
    const styles = stylesPart(BOTH);
    const { root, visits } = body();
    expect(supportStyles(() => styles, readStyles(styles), [root])).toBeNull();
    expect(visits()).toBe(0);
  });

  it('still points references at the template style of the same name under another id', () => {
    const styles = stylesPart(RENAMED);
    const { root, visits } = body();
    expect(supportStyles(() => styles, readStyles(styles), [root])).toBeNull();
    expect(visits()).toBeGreaterThan(0);
    const rStyle = root.getElementsByTagNameNS(NS.w, 'rStyle').item(0);
    expect(rStyle ? wAttr(rStyle, 'val') : '').toBe('Fnref');
  });
});

describe('support styles without the optimisations', () => {
  it('walks the content as before (DOCWRIGHT_UNOPTIMISED=1)', () => {
    process.env.DOCWRIGHT_UNOPTIMISED = '1';
    try {
      const styles = stylesPart(BOTH);
      const { root, visits } = body();
      expect(supportStyles(() => styles, readStyles(styles), [root])).toBeNull();
      expect(visits()).toBeGreaterThan(0);
    } finally {
      delete process.env.DOCWRIGHT_UNOPTIMISED;
    }
  });
});
