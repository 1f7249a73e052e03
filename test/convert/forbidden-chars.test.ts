// Characters XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF) never reach a part, wherever the user's text goes:
// a picture's name, alt text and title (the drawing's attributes) and a heading listed by a table of contents
// (the TOC field's entries), as well as the text of runs.
import { DOMParser } from '@xmldom/xmldom';
import { unzipSync, strFromU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convert, filesSource } from '../../server/convert/index.ts';
import { fixture } from '../helpers/docx.ts';

const PNG = fixture('images', 'doc', 'img', 'small.png');
const BAD = '\uFFFF\u0001\uFFFE';

async function documentXml(markdown: string): Promise<string> {
  const docx = (
    await convert({
      markdown,
      images: filesSource(
        new Map([
          ['img/p.png', PNG],
          [`img/q${BAD}.png`, PNG],
        ]),
      ),
      created: new Date('2026-01-01T00:00:00Z'),
    })
  ).docx;
  const xml = unzipSync(docx)['word/document.xml'];
  if (!xml) throw new Error('no document.xml');
  return strFromU8(xml);
}

function xmlErrors(xml: string): string[] {
  const errors: string[] = [];
  new DOMParser({
    onError: (level: string, message: string) => {
      if (level !== 'warning') errors.push(message.split('\n')[0] ?? message);
    },
  }).parseFromString(xml, 'text/xml');
  return errors;
}

describe('characters XML forbids', () => {
  it.each([
    [
      'pictures: alt text, title, file name',
      `![alt${BAD} text](img/p.png "title${BAD}")\n\n![second](<img/q${BAD}.png>)\n`,
      ['descr="alt text"', 'title="title"', 'name="q.png"'],
    ],
    ['a heading listed by [TOC]', `[TOC]\n\n# Heading${BAD} one\n\nText.\n`, ['Heading one']],
  ])('%s: dropped, the part well-formed', async (_name, markdown, expected) => {
    const xml = await documentXml(markdown);
    expect(xmlErrors(xml)).toEqual([]);
    expect(/[\u0001\uFFFE\uFFFF]/.test(xml)).toBe(false);
    for (const text of expected) expect(xml).toContain(text);
  });
});
