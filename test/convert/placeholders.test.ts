// docx writes a list paragraph's numbering as `{reference-instance}` and a picture's relationship as `rId{key}` and
// replaces every such `{…}` in the text of the whole part once it is written. Text of the user's that reads like one
// of these placeholders stays as written, everywhere docx writes it, with and without a table of
// contents.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import fc from 'fast-check';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { escapeBraces, unescapeBraces } from '../../server/convert/braces.ts';
import { convert, filesSource } from '../../server/convert/index.ts';
import { part } from '../helpers/docx.ts';

const PNG = new Uint8Array(readFileSync(join(import.meta.dirname, '../fixtures/images/doc/img/small.png')));
/** docx's media key of the picture, its placeholder's key: the SHA-1 of its bytes. */
const IMAGE_KEY = `${createHash('sha1').update(PNG).digest('hex')}.png`;
const IMAGES = filesSource(
  new Map([
    ['img/small.png', PNG],
    ['img/{bullet-1}.png', PNG],
  ]),
);
const CREATED = new Date('2026-01-01T00:00:00Z');

// The document's lists are `bullet` instance 1, `ordered-1` instance 2 (its nested list `bullet` instance 3) and,
// in the note, `ordered-3` instance 4: the keys docx numbers.
const KEYS = ['{bullet-1}', '{ordered-1-2}', '{bullet-3}', '{ordered-3-4}', `{${IMAGE_KEY}}`];
const ALL = KEYS.join(' ');

const markdown = (toc: boolean) =>
  [
    '---',
    `title: "Title ${ALL}"`,
    '---',
    ...(toc ? ['[TOC]'] : []),
    `# Heading ${ALL}`,
    '- item one\n- item two',
    '1. first\n   - nested\n2. second',
    `Paragraph ${ALL}, *emphasis {bullet-1}*, **strong {ordered-1-2}**, \`code {bullet-3}\` and {} {{bullet-1}}.`,
    `[Link ${ALL}](https://example.com/a) and [inside](#heading) and a note[^n].`,
    `| Head ${ALL} |\n|---|\n| Cell ${ALL} |`,
    '```\nfunction f() { return {bullet-1}; }\n{ordered-1-2}\n```',
    `> Quote ${ALL}`,
    `![Alt ${ALL}](img/small.png "Title {bullet-1}") ![Other](img/{bullet-1}.png)`,
    `[^n]: Note ${ALL}\n\n    3. in the note\n    4. {ordered-3-4}`,
  ].join('\n\n');

const parse = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml');

/** The text of every w:t of a part. */
function texts(xml: string): string {
  return Array.from(parse(xml).getElementsByTagName('w:t'))
    .map((t) => t.textContent ?? '')
    .join('\n');
}

/** The values of every `attribute` of the wp:docPr elements of a part. */
function docPr(xml: string, attribute: string): string[] {
  return Array.from(parse(xml).getElementsByTagName('wp:docPr')).map((el) => el.getAttribute(attribute) ?? '');
}

async function outcome(toc: boolean): Promise<Uint8Array> {
  const { docx, warnings } = await convert({ markdown: markdown(toc), images: IMAGES, created: CREATED });
  expect(warnings.filter((w) => w.startsWith('image'))).toEqual([]);
  return docx;
}

describe('text that reads like one of docx placeholders stays as written', () => {
  for (const [label, toc] of [
    ['a document', false],
    ['a document with a table of contents', true],
  ] as const) {
    it(label, async () => {
      const docx = await outcome(toc);
      const body = part(docx, 'word/document.xml');
      const text = texts(body);
      for (const where of ['Title', 'Heading', 'Head', 'Cell', 'Quote']) expect(text).toContain(`${where} ${ALL}`);
      expect(text).toContain(`Paragraph ${ALL}, `);
      expect(text).toContain('emphasis {bullet-1}');
      expect(text).toContain('strong {ordered-1-2}');
      expect(text).toContain('code {bullet-3}');
      expect(text).toContain(' and {} {{bullet-1}}.');
      expect(text).toContain(`Link ${ALL}`);
      expect(text).toContain('function f() { return {bullet-1}; }\n{ordered-1-2}');
      expect(docPr(body, 'descr')).toEqual([`Alt ${ALL}`, 'Other']);
      expect(docPr(body, 'title')).toEqual(['Title {bullet-1}', '']);
      expect(docPr(body, 'name')).toEqual(['small.png', '{bullet-1}.png']);
      const notes = texts(part(docx, 'word/footnotes.xml'));
      expect(notes).toContain(`Note ${ALL}`);
      expect(notes).toContain('{ordered-3-4}');
      // docx's own placeholders are still replaced: lists numbered, pictures pointing at their parts.
      expect([...body.matchAll(/<w:numId w:val="([^"]*)"/g)].map((m) => m[1])).not.toHaveLength(0);
      for (const [, id] of body.matchAll(/<w:numId w:val="([^"]*)"/g)) expect(id).toMatch(/^\d+$/);
      for (const [, id] of body.matchAll(/r:embed="([^"]*)"/g)) expect(id).toMatch(/^dwImg\d+$/);
      expect(part(docx, 'word/footnotes.xml')).toMatch(/<w:numId w:val="\d+"\/>/);
      // Nothing of the way the text got through is left in any part.
      for (const [path, data] of Object.entries(unzipSync(docx)))
        if (path.endsWith('.xml') || path.endsWith('.rels'))
          expect(Buffer.from(data).toString('utf8'), path).not.toMatch(/\uFFFF|\{\d+\}/);
    });
  }
});

describe('escapeBraces', () => {
  it('leaves no `{` that starts a key and is undone exactly, whatever the text holds', () => {
    const text = fc.string({ unit: fc.constantFrom('{', '}', '\uFFFF', 'a', '-', '1') });
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ unit: 'grapheme' })), (value) => {
        const escaped = escapeBraces(value);
        expect(escaped).not.toMatch(/\{(?!\uFFFF)/);
        expect(unescapeBraces(escaped)).toBe(value);
      }),
    );
  });
});
