import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate, filesSource, IMAGE_LIMITS, readTemplate } from '../../server/convert/index.ts';
import { folderSource } from '../../server/confined/image-folder.ts';
import { imageTarget } from '../../server/convert/images/path.ts';
import { CORPORATE_RULES } from '../helpers/corporate.ts';
import { fixture, part, validateDocx } from '../helpers/docx.ts';

const DOC = resolve(import.meta.dirname, '../fixtures/images/doc');
const NS = {
  wp: 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing',
  a: 'http://schemas.openxmlformats.org/drawingml/2006/main',
  r: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  w: 'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
};
const EMU_PER_PX = 9525;

function xml(docx: Uint8Array, path: string) {
  return new DOMParser().parseFromString(part(docx, path), 'text/xml');
}
function all(doc: ReturnType<typeof xml>, ns: string, name: string): Element[] {
  return Array.from(doc.getElementsByTagNameNS(ns, name));
}

/** Each drawing of the body: its description, size in pixels and the part its picture is. */
function drawings(docx: Uint8Array) {
  const doc = xml(docx, 'word/document.xml');
  const rels = new Map(
    all(
      xml(docx, 'word/_rels/document.xml.rels'),
      'http://schemas.openxmlformats.org/package/2006/relationships',
      'Relationship',
    ).map((r) => [r.getAttribute('Id') ?? '', r.getAttribute('Target') ?? '']),
  );
  return all(doc, NS.wp, 'inline').map((inline) => {
    const extent = all(doc, NS.wp, 'extent').find((e) => e.parentNode === inline);
    const docPr = all(doc, NS.wp, 'docPr').find((e) => e.parentNode === inline);
    const blips = Array.from(inline.getElementsByTagNameNS(NS.a, 'blip'));
    return {
      descr: docPr?.getAttribute('descr'),
      title: docPr?.getAttribute('title') ?? null,
      width: Number(extent?.getAttribute('cx')) / EMU_PER_PX,
      height: Number(extent?.getAttribute('cy')) / EMU_PER_PX,
      media: blips.map((b) => rels.get(b.getAttributeNS(NS.r, 'embed') ?? '')),
      svg: Array.from(
        inline.getElementsByTagNameNS('http://schemas.microsoft.com/office/drawing/2016/SVG/main', 'svgBlip'),
      ).map((b) => rels.get(b.getAttributeNS(NS.r, 'embed') ?? '')),
    };
  });
}

describe('images embedded from the markdown file’s folder', () => {
  const markdown = readFileSync(join(DOC, 'doc.md'), 'utf8');

  it('embeds PNG, JPEG, GIF and SVG (with a PNG fallback), fitted to the text width, alt text as description', async () => {
    const result = await convert({ markdown, images: folderSource(DOC), created: new Date(0) });
    const docx = result.docx;
    const found = drawings(docx);
    // Fitted to the built-in template's text width (twips / 15 = pixels at 96 to the inch), aspect ratio kept.
    expect(found.map((d) => d.descr)).toEqual([
      'A blue banner',
      'An orange chip',
      'A photo',
      'An equation',
      'A diagram',
      'Banner again',
    ]);
    const [banner, chip, photo, equation, diagram, again] = found;
    const textWidth = Math.floor(readTemplate(defaultTemplate()).textWidthTwips / 15);
    expect(banner).toMatchObject({
      width: textWidth,
      height: Math.round(textWidth / 2),
      title: 'Figure 1: the banner',
    });
    expect(chip).toMatchObject({ width: 120, height: 60 });
    expect(photo).toMatchObject({ width: 500, height: 500 });
    expect(equation).toMatchObject({ width: 175, height: 49 });
    expect(diagram).toMatchObject({ width: 400, height: 200 });
    // The same file is stored once.
    expect(again?.media).toEqual(banner?.media);
    const names = Object.keys(unzipSync(docx)).filter((n) => n.startsWith('word/media/'));
    expect(names.sort()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\.png$/),
        expect.stringMatching(/\.jpe?g$/),
        expect.stringMatching(/\.gif$/),
        expect.stringMatching(/\.svg$/),
      ]),
    );
    expect(names).toHaveLength(6); // wide, small, photo, equation, diagram.svg + its PNG fallback
    // The SVG has its PNG fallback in the blip and the SVG itself in Word's extension.
    expect(diagram?.media[0]).toMatch(/\.png$/);
    expect(diagram?.svg[0]).toMatch(/\.svg$/);
    // The SVG kept its drawing, lost its script and the image that pointed at a file.
    const svgPart = part(docx, `word/${diagram?.svg[0] ?? ''}`);
    expect(svgPart).toContain('<rect');
    expect(svgPart).not.toContain('passwd');
    expect(svgPart).not.toContain('script');
    expect(result.stats.images).toBe(9);
    expect(result.warnings).toEqual([
      'image_missing: img/nothing.png',
      'image_outside_folder: ../outside.png',
      'remote_image: https://example.com/x.png',
    ]);
    const body = part(docx, 'word/document.xml');
    expect(body).toContain('[Image: Missing]');
    expect(body).toContain('[Image: Escape]');
    expect(body).toContain('[Image: Remote]');
    const validation = await validateDocx(docx);
    expect(validation.report).not.toMatch(/error/i);
    expect(validation.ok).toBe(true);
  });

  it('writes the title as a caption in the mapping’s caption style, after the image’s paragraph', async () => {
    const result = await convert({
      markdown: '- ![Chart](img/small.png "Sales")\n- next item\n',
      images: folderSource(DOC),
      mapping: { caption: 'Caption' },
    });
    expect(result.warnings).toEqual([]);
    const doc = xml(result.docx, 'word/document.xml');
    const paragraphs = all(doc, NS.w, 'p');
    const styles = paragraphs.map((p) =>
      all(doc, NS.w, 'pStyle')
        .find((s) => s.parentNode?.parentNode === p)
        ?.getAttributeNS(NS.w, 'val'),
    );
    const texts = paragraphs.map((p) =>
      Array.from(p.getElementsByTagNameNS(NS.w, 't'))
        .map((t) => t.textContent)
        .join(''),
    );
    // Numbered (docs/captions-references.md): the label and a SEQ field before the title.
    const caption = texts.indexOf('Figure 1: Sales');
    expect(caption).toBe(1);
    expect(styles[caption]).toBe('Caption');
    // The list item kept its number on the image's paragraph, not on the caption.
    expect(Array.from(paragraphs[0]?.getElementsByTagNameNS(NS.w, 'numPr') ?? [])).toHaveLength(1);
    expect(Array.from(paragraphs[1]?.getElementsByTagNameNS(NS.w, 'numPr') ?? [])).toHaveLength(0);
  });

  it('captions with the built-in mapping too: its template has a caption style and the mapping names it', async () => {
    const result = await convert({
      markdown: '![Chart](img/small.png "Costs")\n',
      images: folderSource(DOC),
    });
    expect(result.warnings).toEqual([]);
    const doc = xml(result.docx, 'word/document.xml');
    const caption = all(doc, NS.w, 'p').find(
      (p) =>
        Array.from(p.getElementsByTagNameNS(NS.w, 't'))
          .map((t) => t.textContent)
          .join('') === 'Figure 1: Costs',
    );
    expect(caption?.getElementsByTagNameNS(NS.w, 'pStyle')[0]?.getAttributeNS(NS.w, 'val')).toBe('Caption');
  });

  it('keeps the template’s own pictures and drawing ids (a header logo): ours come after, under other names', async () => {
    const template = fixture('templates', 'corporate.docx');
    const { docx, warnings } = await convert({
      markdown: '![Chip](img/small.png) and a link [![Banner](img/wide.png)](https://example.com)\n',
      images: folderSource(DOC),
      template,
      mapping: CORPORATE_RULES,
    });
    expect(warnings).toEqual([]);
    const files = unzipSync(docx);
    // The template's header logo is still there, byte for byte.
    expect(files['word/media/image1.png']).toEqual(unzipSync(template)['word/media/image1.png']);
    const ids = ['word/document.xml', 'word/header1.xml'].flatMap((path) =>
      all(xml(docx, path), NS.wp, 'docPr').map((d) => d.getAttribute('id')),
    );
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(new Set(ids).size).toBe(ids.length);
    expect(drawings(docx).map((d) => d.descr)).toEqual(['Chip', 'Banner']);
    const validation = await validateDocx(docx);
    expect(validation.ok, validation.report).toBe(true);
  });

  it('names our pictures apart from the template’s without case (part names ignore it): no two names only differ in case', async () => {
    const files = unzipSync(fixture('templates', 'corporate.docx'));
    files['word/media/Docwright-Image1.png'] = files['word/media/image1.png'] ?? new Uint8Array();
    // A dotless ı upper-cases to I: one name to a reader that folds to upper case.
    files['word/media/docwr\u0131ght-image2.png'] = files['word/media/image1.png'] ?? new Uint8Array();
    const { docx } = await convert({
      markdown: '![Chip](img/small.png)\n',
      images: folderSource(DOC),
      template: zipSync(files),
      mapping: CORPORATE_RULES,
    });
    const names = Object.keys(unzipSync(docx));
    for (const fold of [(n: string) => n.toLowerCase(), (n: string) => n.toUpperCase()])
      expect(new Set(names.map(fold)).size).toBe(names.length);
    expect(names).toContain('word/media/docwright-image3.png');
    const validation = await validateDocx(docx);
    expect(validation.ok, validation.report).toBe(true);
  });

  it('numbers our drawings 1, 2, … in every conversion: the same input gives the same bytes, whatever ran before', async () => {
    // docx counts drawings across every document of the process (a server worker's tenth conversion numbered from 19).
    const markdown = '![Chip](img/small.png)\n\n![Banner](img/wide.png)\n';
    const created = new Date('2026-01-02T03:04:05Z');
    const once = async () => (await convert({ markdown, images: folderSource(DOC), created })).docx;
    const first = await once();
    const second = await once();
    expect(all(xml(second, 'word/document.xml'), NS.wp, 'docPr').map((d) => d.getAttribute('id'))).toEqual(['1', '2']);
    expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);
  });

  it('keeps an image in a footnote a placeholder (our notes have no relationships of their own), and says so', async () => {
    const result = await convert({
      markdown: 'Text[^1]\n\n[^1]: See ![Chip](img/small.png)\n',
      images: folderSource(DOC),
    });
    expect(result.warnings).toEqual(['image_placeholder: Chip (in a footnote)']);
    expect(part(result.docx, 'word/footnotes.xml')).toContain('[Image: Chip]');
  });

  it('renders an SVG with text into its fallback, and an <img> of raw HTML is embedded like a markdown image', async () => {
    const files = new Map([
      [
        'chart.svg',
        new TextEncoder().encode(
          '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="60"><text x="10" y="40" font-size="30">Sales 2026</text></svg>',
        ),
      ],
    ]);
    const result = await convert({ markdown: '<img src="chart.svg" alt="Sales chart">\n', images: filesSource(files) });
    expect(result.warnings).toEqual([]);
    const [chart] = drawings(result.docx);
    expect(chart).toMatchObject({ descr: 'Sales chart', width: 300, height: 60 });
    const fallback = unzipSync(result.docx)[`word/${chart?.media[0] ?? ''}`];
    // A PNG (signature), larger than an empty canvas of that size would be: the text was drawn.
    expect(Array.from(fallback?.subarray(0, 4) ?? [])).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(fallback?.byteLength ?? 0).toBeGreaterThan(1000);
  });

  it('keeps SPEC’s placeholders when no image source is given (the JSON API, --no-images)', async () => {
    const result = await convert({ markdown: '![Logo](img/small.png)\n' });
    expect(result.warnings).toEqual(['image_placeholder: Logo']);
    expect(part(result.docx, 'word/document.xml')).toContain('[Image: Logo]');
    expect(result.stats.images).toBe(1);
  });
});

describe('confinement', () => {
  it('classifies image URLs without touching the disk', () => {
    expect(imageTarget('img/a.png')).toEqual({ kind: 'local', path: 'img/a.png' });
    expect(imageTarget('./img/../a%20b.png')).toEqual({ kind: 'local', path: 'a b.png' });
    expect(imageTarget('img\\a.png')).toEqual({ kind: 'local', path: 'img/a.png' });
    expect(imageTarget('../a.png').kind).toBe('outside');
    expect(imageTarget('img/../../a.png').kind).toBe('outside');
    expect(imageTarget('img/%2e%2e/%2e%2e/a.png').kind).toBe('outside');
    expect(imageTarget('/etc/passwd').kind).toBe('outside');
    expect(imageTarget('C:\\Windows\\a.png').kind).toBe('outside');
    expect(imageTarget('file:///etc/passwd').kind).toBe('outside');
    expect(imageTarget('https://example.com/a.png').kind).toBe('remote');
    expect(imageTarget('//example.com/a.png').kind).toBe('remote');
    expect(imageTarget('data:image/png;base64,AAAA').kind).toBe('remote');
  });

  it('does not follow a symbolic link out of the folder, but follows one inside it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dw-img-'));
    const doc = join(root, 'doc');
    mkdirSync(doc);
    const secret = join(root, 'secret.png');
    writeFileSync(secret, readFileSync(join(DOC, 'img/small.png')));
    symlinkSync(secret, join(doc, 'out.png'));
    symlinkSync(join(DOC, 'img'), join(doc, 'dirlink'));
    writeFileSync(join(doc, 'own.png'), readFileSync(join(DOC, 'img/small.png')));
    symlinkSync(join(doc, 'own.png'), join(doc, 'in.png'));
    const result = await convert({
      markdown: `![a](out.png) ![b](in.png) ![c](${secret}) ![d](../secret.png) ![e](dirlink/small.png)\n`,
      images: folderSource(doc),
    });
    expect(result.warnings).toEqual([
      'image_outside_folder: out.png',
      `image_outside_folder: ${secret}`,
      'image_outside_folder: ../secret.png',
      'image_outside_folder: dirlink/small.png',
    ]);
    expect(drawings(result.docx).map((d) => d.descr)).toEqual(['b']);
  });
});

/** The small PNG with its header's width and height replaced (the CRC is not checked by readers of the header). */
function claimedPng(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(readFileSync(join(DOC, 'img/small.png')));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.setUint32(16, width);
  view.setUint32(20, height);
  return bytes;
}

describe('limits and hostile bytes', () => {
  const small = new Uint8Array(readFileSync(join(DOC, 'img/small.png')));

  it('refuses an image over the per-image limit and images over the total, without reading them', async () => {
    const big = new Uint8Array(IMAGE_LIMITS.perImageBytes + 1);
    const nine = new Uint8Array(9 * 1024 * 1024);
    // A PNG grown to 9 MiB: its header first, its IEND chunk last.
    nine.set(small.subarray(0, small.byteLength - 12));
    nine.set(small.subarray(small.byteLength - 12), nine.byteLength - 12);
    const files = new Map<string, Uint8Array>([
      ['big.png', big],
      ['small.png', small],
    ]);
    for (let i = 0; i < 6; i++) files.set(`n${i}.png`, nine);
    const markdown = [
      '![big](big.png)',
      ...Array.from({ length: 6 }, (_, i) => `![n${i}](n${i}.png)`),
      '![s](small.png)',
    ].join('\n\n');
    const result = await convert({ markdown, images: filesSource(files) });
    expect(result.warnings[0]).toBe('image_too_large: big.png (over 10 MiB)');
    // Five files of 9 MiB fit in 50 MiB; the sixth does not; a small one still does.
    expect(result.warnings[1]).toBe('image_limit_exceeded: n5.png (all images together over 50 MiB)');
    expect(result.warnings).toHaveLength(2);
    expect(drawings(result.docx)).toHaveLength(6);
  });

  it('keeps a placeholder for bytes that are no image, a format Word cannot show, and an SVG bomb', async () => {
    const files = new Map<string, Uint8Array>([
      ['text.png', new TextEncoder().encode('not an image at all')],
      ['truncated.png', small.subarray(0, 20)],
      [
        'bomb.svg',
        new TextEncoder().encode(
          '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">&a;</svg>',
        ),
      ],
      ['huge.svg', new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="10"/>')],
      // A PNG header claiming 20,000 × 20,000 pixels (400 megapixels): a decompression bomb for whoever opens it.
      ['bomb.png', claimedPng(20_000, 20_000)],
      ['broken.svg', new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10"')],
    ]);
    const markdown = [...files.keys()].map((k) => `![${k}](${k})`).join('\n\n');
    const result = await convert({ markdown, images: filesSource(files) });
    expect(result.warnings).toHaveLength(6);
    for (const warning of result.warnings) expect(warning).toMatch(/^image_unsupported: /);
    expect(drawings(result.docx)).toHaveLength(0);
  });
});
