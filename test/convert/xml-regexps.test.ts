// xmldom's end-tag regexps are built once (server/convert/xml-regexps.ts), and parsing gives the DOM it gave.
import grammar from '@xmldom/xmldom/lib/grammar.js';
import { describe, expect, it } from 'vitest';
import { parsePart, serializePart } from '../../server/convert/package/dom.ts';
import { rememberXmlRegexps } from '../../server/convert/xml-regexps.ts';

rememberXmlRegexps();

const PART =
  '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>' +
  '<w:p><w:r><w:t xml:space="preserve"> a &amp; b </w:t></w:r></w:p><w:p ></w:p ><w:tbl/></w:body></w:document>';

describe('xmldom regexps', () => {
  it('are built once per list of parts', () => {
    const a = grammar.reg('^', /a[bc]/, 'd');
    expect(grammar.reg('^', /x/)).not.toBe(a);
    const part = /q/;
    expect(grammar.reg('^', part, '$')).toBe(grammar.reg('^', part, '$'));
    expect(grammar.reg('^', part, '$').source).toBe('^q$');
  });

  it('parse a part to the same DOM again', () => {
    const fast = serializePart(parsePart(PART, 'document.xml'));
    expect(serializePart(parsePart(PART, 'document.xml'))).toBe(fast);
    expect(fast).toContain('<w:t xml:space="preserve"> a &amp; b </w:t>');
  });
});
