// The body's text pass (package/body.ts) writes what xmldom's reading of docx's text, serialized, would: entities,
// line ends, attribute white space, empty elements, declarations below the root; and its rewrites land where the DOM
// merge put them.
import { describe, expect, it } from 'vitest';
import { bodyBounds, NO_REWRITES, rewriteBody, type BodyRewrites } from '../../../server/convert/package/body.ts';
import { children, parseGeneratedPart } from '../../../server/convert/package/dom.ts';
import { generatedRelationships } from '../../../server/convert/package/relationships.ts';
import { NS } from '../../../server/convert/package/namespaces.ts';
import { serializeDocument } from '../../../server/convert/package/serialize.ts';

const ROOT = `<w:document xmlns:w="${NS.w}" xmlns:r="${NS.r}" xmlns:wp="${NS.wp}">`;
const wrap = (body: string): string =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${ROOT}<w:body>${body}<w:sectPr><w:pgSz w:w="1"/></w:sectPr></w:body></w:document>`;

const NONE: BodyRewrites = {
  ...NO_REWRITES,
  rootDeclared: new Map([
    ['w', NS.w],
    ['r', NS.r],
    ['wp', NS.wp],
  ]),
};

/** The body's content as the text pass writes it. */
function viaText(body: string, rewrites: Partial<BodyRewrites> = {}): string {
  const xml = wrap(body);
  const { from, to, declared } = bodyBounds(xml);
  const result = rewriteBody(xml, declared, from, to, { ...NONE, ...rewrites });
  result.fill(NONE.rootDeclared);
  return result.segments.map((s) => s.text).join('');
}

/** The body's content as xmldom reads it and the serializer writes it. */
function viaDom(body: string): string {
  const text = serializeDocument(parseGeneratedPart(wrap(body), 'document.xml'));
  return text.slice(text.indexOf('<w:body>') + 8, text.lastIndexOf('<w:sectPr>'));
}

describe('the body as text', () => {
  it.each([
    [
      'quotes in text and attributes',
      `<w:p><w:r><w:t xml:space="preserve">a &quot;b&quot; &apos;c&apos; &amp; &lt;d&gt;</w:t></w:r><w:hyperlink w:tooltip="it&apos;s &quot;x&quot; &gt; y" r:id="rId1"/></w:p>`,
    ],
    ['line ends', '<w:p><w:r><w:t>a\r\nb\rc\u2028d\u0085e</w:t></w:r></w:p>'],
    ['white space in an attribute', '<w:p><w:hyperlink w:tooltip="a\tb\nc\r\nd" r:id="rId1"/></w:p>'],
    ['empty elements', '<w:p><w:r><w:t xml:space="preserve"></w:t></w:r><w:r></w:r></w:p><w:p></w:p>'],
    [
      'declarations below the root',
      `<w:p><w:r><w:drawing><a:graphic xmlns:a="${NS.a}"><a:graphicData uri="x"><pic:pic xmlns:pic="${NS.pic}"/></a:graphicData></a:graphic></w:drawing></w:r></w:p>`,
    ],
  ])('writes %s as the DOM does', (_, body) => {
    expect(viaText(body)).toBe(viaDom(body));
  });

  it('rewrites links, pictures, drawings, bookmarks, note marks, footnotes and support styles', () => {
    const body =
      '<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="3"/></w:numPr></w:pPr>' +
      '<w:bookmarkStart w:id="-1" w:name="_Ref1"/><w:bookmarkEnd w:id="-1"/><w:bookmarkStart w:id="-2" w:name="_Ref2"/><w:bookmarkEnd w:id="-2"/>' +
      '<w:bookmarkStart w:id="4" w:name="h"/><w:bookmarkEnd w:id="4"/>' +
      '<w:hyperlink r:id="rId7" w:history="1"><w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteReference w:id="1"/></w:r></w:hyperlink>' +
      '<w:r><w:drawing><wp:inline><wp:docPr id="99" name="p"/><a:blip xmlns:a="' +
      NS.a +
      '" r:embed="rId8"/></wp:inline></w:drawing></w:r></w:p>';
    let drawing = 10;
    const xml = wrap(body);
    const { from, to, declared } = bodyBounds(xml);
    const result = rewriteBody(xml, declared, from, to, {
      ...NONE,
      links: new Map([['rId7', 'dwLink1']]),
      embeds: new Map([['rId8', 'dwImg1']]),
      nextDrawing: () => (drawing += 1),
      noteMarks: new Map([
        [-1, 0],
        [-2, undefined],
      ]),
      bookmarkOffset: 5,
      footnoteBase: 2,
      supportStyles: new Map([
        ['ListParagraph', 'Listenabsatz'],
        ['FootnoteReference', undefined],
      ]),
    });
    const [site] = result.segments[0]?.sites ?? [];
    expect(site).toMatchObject({ numId: '3', ilvl: '0', styleId: 'ListParagraph' });
    site?.setNumId('12');
    site?.setIlvl('1');
    result.fill(new Map([...NONE.rootDeclared, ['a', NS.a]]));
    expect(result.segments[0]?.text).toBe(
      '<w:p><w:pPr><w:pStyle w:val="Listenabsatz"/><w:numPr><w:ilvl w:val="1"/><w:numId w:val="12"/></w:numPr></w:pPr>' +
        '<w:bookmarkStart w:id="5" w:name="_Ref1"/><w:bookmarkEnd w:id="5"/>' +
        '<w:bookmarkStart w:id="9" w:name="h"/><w:bookmarkEnd w:id="9"/>' +
        '<w:hyperlink r:id="dwLink1" w:history="1"><w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteReference w:id="3"/></w:r></w:hyperlink>' +
        '<w:r><w:drawing><wp:inline><wp:docPr id="11" name="p"/><a:blip r:embed="dwImg1"/></wp:inline></w:drawing></w:r></w:p>',
    );
    expect([...result.supportStyles]).toEqual(['ListParagraph', 'FootnoteReference']);
    expect([...(result.segments[0]?.used.keys() ?? [])]).toEqual(['w', 'r', 'wp', 'a']);
  });

  it('refuses text of another shape than docx writes, with a clear error', () => {
    expect(() => viaText('<w:p><!-- a comment --></w:p>')).toThrow(/does not read: a comment/);
  });
});

describe("docx's relationships as text", () => {
  it('reads each relationship as xmldom reads its attributes', () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="t/hyperlink" Target="https://e.x/?a=1&amp;b=&quot;2&quot;&apos;&#x41;&#66;&lt;&gt;" TargetMode="External"/>' +
      '<Relationship Id="rId2" Type="t/image" Target="media/a\tb.png"/></Relationships>';
    const dom = parseGeneratedPart(xml, 'document.xml.rels');
    const expected = children(dom.documentElement ?? dom).map((r) => ({
      id: r.getAttribute('Id'),
      type: r.getAttribute('Type'),
      target: r.getAttribute('Target'),
    }));
    expect(generatedRelationships(xml)).toEqual(expected);
  });
});
