// The preview's pieces (renderer/src/lib/docx-blocks.ts): word/document.xml cut into its body's blocks without a
// DOM (it runs in a worker), and the lists and relationships a piece needs, on the parts of a real converted .docx.
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, test } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import {
  attribute,
  documentOf,
  groupBlocks,
  numberingFor,
  relationshipsFor,
  splitBody,
  valuesOf,
} from '../../renderer/src/lib/docx-blocks.ts';

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

describe('splitBody', () => {
  test('cuts the body into its top-level blocks, keeping quotes, comments and CDATA whole', () => {
    const xml = `<?xml version="1.0"?><w:document ${W}><w:body><w:p><w:r><w:t>a &amp; b</w:t></w:r></w:p><!-- <w:p> --><w:tbl><w:tr><w:tc><w:p w:x="1>2"/></w:tc></w:tr></w:tbl><w:p/><w:sectPr><w:pgSz w:w="11906"/></w:sectPr></w:body></w:document>`;
    const body = splitBody(xml);
    expect(body?.blocks).toEqual([
      '<w:p><w:r><w:t>a &amp; b</w:t></w:r></w:p>',
      '<w:tbl><w:tr><w:tc><w:p w:x="1>2"/></w:tc></w:tr></w:tbl>',
      '<w:p/>',
    ]);
    expect(body?.text).toEqual([5, 0, 0]);
    expect(body?.sectPr).toBe('<w:sectPr><w:pgSz w:w="11906"/></w:sectPr>');
    expect(body && documentOf(body, body.blocks.slice(2))).toBe(
      `<?xml version="1.0"?><w:document ${W}><w:body><w:p/><w:sectPr><w:pgSz w:w="11906"/></w:sectPr></w:body></w:document>`,
    );
  });

  test('a document without a body, or with an empty one, is left whole', () => {
    expect(splitBody(`<w:document ${W}/>`)).toBeNull();
    expect(splitBody(`<w:document ${W}><w:body/></w:document>`)).toBeNull();
  });

  test('groups blocks by their text, a small first group, every block in exactly one group', () => {
    const groups = groupBlocks([100, 3000, 10, 10, 5000, 0], 500, 2000);
    expect(groups).toEqual([
      [0, 2],
      [2, 5],
      [5, 6],
    ]);
  });
});

describe('the parts a piece needs', () => {
  test('of a converted document: its own lists and links, every other relationship, nothing lost when joined', async () => {
    const markdown = [
      '# Lists',
      '',
      '1. one',
      '2. two',
      '',
      'See [the site](https://example.com/a).',
      '',
      '- bullet',
      '',
      'And [another](https://example.com/b).',
    ].join('\n');
    const files = unzipSync((await convert({ markdown })).docx);
    const document = strFromU8(files['word/document.xml'] ?? new Uint8Array());
    const body = splitBody(document);
    expect(body).not.toBeNull();
    if (!body) return;
    expect(documentOf(body, body.blocks)).toBe(document);
    const lists = body.blocks.map((block) => valuesOf(block, 'numId'));
    const withList = body.blocks.findIndex((_, i) => (lists[i]?.size ?? 0) > 0);
    expect(withList).toBeGreaterThanOrEqual(0);
    const numbering = strFromU8(files['word/numbering.xml'] ?? new Uint8Array());
    const only = numberingFor(numbering, lists[withList] ?? new Set());
    expect(only).not.toBeNull();
    const kept = valuesOf(only ?? '', 'abstractNumId');
    expect(kept.size).toBeGreaterThan(0);
    expect(only?.length).toBeLessThan(numbering.length);

    const rels = strFromU8(files['word/_rels/document.xml.rels'] ?? new Uint8Array());
    const first = body.blocks.find((block) => block.includes('hyperlink')) ?? '';
    const pruned = relationshipsFor(rels, first) ?? '';
    expect(pruned).toContain('https://example.com/a');
    expect(pruned).not.toContain('https://example.com/b');
    expect(pruned).toContain('styles.xml');
    expect(pruned).toContain('numbering.xml');
  });

  test('reads an attribute by its local name, in either quotes', () => {
    expect(attribute(`<w:num w:numId='7' x="y">`, 'numId')).toBe('7');
    expect(attribute('<Relationship Id="rId3" Type="t"/>', 'Id')).toBe('rId3');
    expect(attribute('<w:p>', 'val')).toBeNull();
  });
});
