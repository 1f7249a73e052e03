// Image sizes from pandoc's attribute block and raw HTML's width/height/style (issue 33, item 3; docs/images.md).
import { resolve } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate, readTemplate } from '../../server/convert/index.ts';
import { folderSource } from '../../server/confined/image-folder.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const DOC = resolve(import.meta.dirname, '../fixtures/images/doc');
const WP = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
const EMU_PER_PX = 9525;

/** Each drawing's size in pixels (96 to the inch). */
function sizes(docx: Uint8Array): { width: number; height: number }[] {
  const doc = new DOMParser().parseFromString(part(docx, 'word/document.xml'), 'text/xml');
  return Array.from(doc.getElementsByTagNameNS(WP, 'extent')).map((e) => ({
    width: Math.round(Number(e.getAttribute('cx')) / EMU_PER_PX),
    height: Math.round(Number(e.getAttribute('cy')) / EMU_PER_PX),
  }));
}

async function converted(markdown: string) {
  const result = await convert({ markdown, images: folderSource(DOC), created: new Date(0) });
  const { ok, report } = await validateDocx(result.docx);
  expect(ok, report).toBe(true);
  return { ...result, sizes: sizes(result.docx), xml: part(result.docx, 'word/document.xml') };
}

describe('image sizes from attributes', () => {
  const textWidth = Math.floor(readTemplate(defaultTemplate()).textWidthTwips / 15);

  it('reads width and height in %, px, cm, mm, in and pt, keeps the aspect ratio, never wider than the text', async () => {
    // small.png is 120 × 60, photo.jpg 500 × 500.
    const {
      sizes: found,
      xml,
      warnings,
    } = await converted(
      [
        '![a](img/small.png){width=50%}',
        '![b](img/small.png){width=240px}',
        '![c](img/photo.jpg){height=2.54cm}',
        '![d](img/photo.jpg){width=1in height=0.5in}',
        '![e](img/photo.jpg){width=72pt}',
        '![f](img/photo.jpg){width=10mm}',
        '![g](img/small.png){width=300%}',
        '![h](img/small.png){width=5000px height=100px}',
        '![i](img/small.png){width=120}',
      ].join('\n\n'),
    );
    const half = Math.round(textWidth / 2);
    expect(found).toEqual([
      { width: half, height: Math.round(half / 2) },
      { width: 240, height: 120 },
      { width: 96, height: 96 },
      { width: 96, height: 48 },
      { width: 96, height: 96 },
      { width: 38, height: 38 },
      { width: textWidth, height: Math.round(textWidth / 2) },
      // Both given and too wide: both scaled by the same factor.
      { width: textWidth, height: Math.round((100 * textWidth) / 5000) },
      { width: 120, height: 60 },
    ]);
    expect(xml).not.toContain('{');
    expect(warnings).toEqual([]);
  });

  it('takes raw HTML’s width and height attributes and its style’s width', async () => {
    const { sizes: found } = await converted(
      [
        '<img src="img/small.png" width="300">',
        '<img src="img/photo.jpg" height="50">',
        '<p><img src="img/small.png" style="width: 50%"></p>',
      ].join('\n\n'),
    );
    const half = Math.round(textWidth / 2);
    expect(found).toEqual([
      { width: 300, height: 150 },
      { width: 50, height: 50 },
      { width: half, height: Math.round(half / 2) },
    ]);
  });

  it('warns a size it cannot read and attributes it does not use, and keeps an escaped block as text', async () => {
    const {
      sizes: found,
      warnings,
      xml,
    } = await converted(
      '![a](img/small.png){width=wide .big}\n\n![b](img/small.png)\\{width=50%}\n\n![c](img/small.png) {width=50%}',
    );
    expect(found).toEqual([
      { width: 120, height: 60 },
      { width: 120, height: 60 },
      { width: 120, height: 60 },
    ]);
    // A block after a space is not the image's (pandoc's rule): text, and said so.
    expect(warnings).toEqual([
      "syntax_as_text: {width=50%} (not read as pandoc's attributes or a fenced div)",
      'attribute_ignored: width=wide on an image',
      'attribute_ignored: .big on an image',
    ]);
    expect(xml).toContain('{width=50%}');
  });
});
