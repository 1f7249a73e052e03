// docx's parts are parsed without xmldom's locator; a part that is not well-formed or declares a DTD still gets
// exactly the error the usual parse gives.
import { describe, expect, it } from 'vitest';
import { parseGeneratedPart, parsePart, serializePart } from '../../../server/convert/package/dom.ts';

function errorOf(parse: () => unknown): string {
  try {
    parse();
    return 'no error';
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe('parseGeneratedPart', () => {
  it('gives the same document as the usual parse, without line numbers', () => {
    const xml = '<w:document xmlns:w="urn:w"><w:body><w:p a="1">x &amp; y</w:p></w:body></w:document>';
    const fast = parseGeneratedPart(xml, 'word/document.xml');
    expect(serializePart(fast)).toBe(serializePart(parsePart(xml, 'word/document.xml')));
    expect((fast.documentElement as unknown as { lineNumber?: number }).lineNumber).toBeUndefined();
  });

  it('gives the usual error for a part that is not well-formed or declares a DTD', () => {
    for (const xml of [
      '<w:document xmlns:w="urn:w"><w:body></w:document>',
      '<!DOCTYPE d [<!ENTITY e "x">]><d>&e;</d>',
    ]) {
      const usual = errorOf(() => parsePart(xml, 'word/document.xml'));
      expect(usual).not.toBe('no error');
      expect(errorOf(() => parseGeneratedPart(xml, 'word/document.xml'))).toBe(usual);
    }
  });
});
