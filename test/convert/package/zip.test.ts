// The package's zip: a container every zip reader takes, those that read the central directory (fflate's, our own
// template reader's, Python's zipfile with its CRCs checked) and those that read it as a stream from the first local
// header on (Java's ZipInputStream, Apache POI opening a stream), which need each part's sizes and CRC in its local
// header: a stored part followed by a data descriptor is refused ("only DEFLATED entries can have EXT descriptor").
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate, filesSource, readTemplate } from '../../../server/convert/index.ts';
import { PartCache, zipParts } from '../../../server/convert/package/zip.ts';
import { unzipPackage } from '../../../server/convert/template/zip.ts';
import { fixture, tempFile } from '../../helpers/docx.ts';
import { craftZip, entry } from '../../helpers/zip-craft.ts';

const PNG = fixture('images', 'doc', 'img', 'small.png');

const encode = (text: string) => new TextEncoder().encode(text);

describe('zipParts', () => {
  it('writes [Content_Types].xml first, every part back as it was, images stored, readable by every reader', () => {
    const parts = new Map<string, Uint8Array | string>([
      ['word/document.xml', `<w:document>${'<w:p/>'.repeat(500)}</w:document>`],
      ['[Content_Types].xml', `<Types>${'<Default Extension="xml"/>'.repeat(20)}</Types>`],
      ['word/media/picture.png', new Uint8Array([137, 80, 78, 71, 1, 2, 3])],
      ['docProps/ünïcode.xml', encode(`<x>${'é'.repeat(100)}</x>`)],
    ]);
    const zip = zipParts(parts);
    const back = unzipSync(zip);
    expect(Object.keys(back)).toEqual([
      '[Content_Types].xml',
      'word/document.xml',
      'word/media/picture.png',
      'docProps/ünïcode.xml',
    ]);
    for (const [path, data] of parts) expect(back[path]).toEqual(typeof data === 'string' ? encode(data) : data);
    expect([...unzipPackage(zip).keys()]).toEqual(Object.keys(back));
    const python = execFileSync(
      'python3',
      [
        '-c',
        'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.testzip()); print(*[f"{i.filename}:{i.compress_type}" for i in z.infolist()])',
        tempFile(zip, 'parts.zip'),
      ],
      { encoding: 'utf8' },
    ).split('\n');
    expect(python[0]).toBe('None');
    expect(python[1]).toBe('[Content_Types].xml:8 word/document.xml:8 word/media/picture.png:0 docProps/ünïcode.xml:8');
  });

  it('gives every part its sizes and CRC in its local header, as the central directory has them (no data descriptors)', async () => {
    const template = readTemplate(fixture('templates', 'corporate.docx'));
    const docx = (
      await convert({
        markdown: '# Title\n\n![A picture](img/small.png)\n\nText.\n',
        template,
        images: filesSource(new Map([['img/small.png', PNG]])),
        created: new Date('2026-01-01T00:00:00Z'),
      })
    ).docx;
    const view = new DataView(docx.buffer, docx.byteOffset, docx.byteLength);
    let end = docx.length - 22;
    while (view.getUint32(end, true) !== 0x06054b50) end -= 1;
    const count = view.getUint16(end + 10, true);
    let at = view.getUint32(end + 16, true);
    const stored: string[] = [];
    for (let i = 0; i < count; i++) {
      expect(view.getUint32(at, true)).toBe(0x02014b50);
      const name = new TextDecoder().decode(docx.subarray(at + 46, at + 46 + view.getUint16(at + 28, true)));
      const central = {
        crc: view.getUint32(at + 16, true),
        compressed: view.getUint32(at + 20, true),
        size: view.getUint32(at + 24, true),
      };
      const method = view.getUint16(at + 10, true);
      if (method === 0) stored.push(name);
      const local = view.getUint32(at + 42, true);
      expect(view.getUint32(local, true), name).toBe(0x04034b50);
      expect(view.getUint16(local + 6, true) & 8, `${name}: data descriptor flag`).toBe(0);
      expect(
        {
          crc: view.getUint32(local + 14, true),
          compressed: view.getUint32(local + 18, true),
          size: view.getUint32(local + 22, true),
        },
        name,
      ).toEqual(central);
      at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    }
    // The template's picture and ours are stored as they are.
    expect(stored.filter((name) => name.startsWith('word/media/')).length).toBeGreaterThanOrEqual(2);
  });

  it('takes a part deflated before from the cache: the same bytes as deflating it again', () => {
    const shared = encode(`<w:styles>${'<w:style w:styleId="A"/>'.repeat(300)}</w:styles>`);
    const cache = new PartCache();
    cache.keep([shared]);
    const parts = (text: string) =>
      new Map<string, Uint8Array | string>([
        ['[Content_Types].xml', '<Types/>'],
        ['word/styles.xml', shared],
        ['word/document.xml', text],
      ]);
    const first = zipParts(parts('<w:document>one</w:document>'), 6, cache);
    const cached = cache.get(shared);
    expect(cached?.method).toBe(8);
    const second = zipParts(parts('<w:document>two</w:document>'), 6, cache);
    // The shared part was not deflated again: the same entry is in the cache.
    expect(cache.get(shared)).toBe(cached);
    expect(second).toEqual(zipParts(parts('<w:document>two</w:document>')));
    expect(first).toEqual(zipParts(parts('<w:document>one</w:document>')));
    expect(unzipSync(second)['word/document.xml']).toEqual(encode('<w:document>two</w:document>'));
  });

  it("never caches a caller's arrays: a picture's bytes changed between two conversions are zipped as they are now", async () => {
    const template = readTemplate(defaultTemplate());
    const picture = new Uint8Array(PNG);
    const run = async () =>
      (
        await convert({
          markdown: '![A picture](img/p.png)\n',
          template,
          images: filesSource(new Map([['img/p.png', picture]])),
          created: new Date('2026-01-01T00:00:00Z'),
        })
      ).docx;
    await run();
    // The same array, other bytes (a caller reusing its buffer): the second package holds these, with their CRC.
    picture.set([(picture.at(-1) ?? 0) ^ 0xff], picture.length - 1);
    const second = await run();
    const file = tempFile(second, 'picture.docx');
    expect(execFileSync('unzip', ['-t', file], { encoding: 'utf8' })).toMatch(/No errors detected/);
    const media = Object.entries(unzipSync(second)).find(([path]) => path.startsWith('word/media/'));
    expect(media?.[1]).toEqual(picture);
  });

  it('stores a part deflate does not make smaller', () => {
    const random = new Uint8Array(randomBytes(4096));
    const zip = zipParts(new Map<string, Uint8Array | string>([['word/embeddings/blob.bin', random]]));
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    expect(view.getUint16(8, true)).toBe(0);
    expect(unzipSync(zip)['word/embeddings/blob.bin']).toEqual(random);
  });

  it('writes packages Info-ZIP tests clean, UTF-8 names flagged as such', () => {
    const zip = zipParts(
      new Map<string, Uint8Array | string>([
        ['[Content_Types].xml', '<Types/>'],
        ['word/ünïcode.xml', '<x>é</x>'],
        ['word/media/a.png', new Uint8Array([137, 80, 78, 71])],
      ]),
    );
    const file = tempFile(zip, 'names.zip');
    expect(execFileSync('unzip', ['-t', file], { encoding: 'utf8' })).toMatch(/No errors detected/);
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    const flags: number[] = [];
    for (let at = 0; view.getUint32(at, true) === 0x04034b50;) {
      flags.push(view.getUint16(at + 6, true));
      at += 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true) + view.getUint32(at + 18, true);
    }
    expect(flags).toEqual([0, 0x0800, 0]);
  });

  it('a template part name that would grow past a zip name as UTF-8 is refused when the template is read', () => {
    const zip = craftZip([entry(`word/${'\u0080'.repeat(30_000)}.xml`, '<x/>')]);
    // Not flagged UTF-8: its 60,000 bytes read as windows-1252 are 150,000 as UTF-8.
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    view.setUint16(6, 0, true);
    const central = view.getUint32(zip.length - 22 + 16, true);
    expect(view.getUint32(central, true)).toBe(0x02014b50);
    view.setUint16(central + 8, 0, true);
    expect(() => readTemplate(zip)).toThrow(/part name too long to be written into a document/);
  });

  it('refuses a part name longer than a zip can hold, rather than cutting its length', () => {
    const parts = new Map<string, Uint8Array | string>([[`word/${'é'.repeat(33_000)}.xml`, '<x/>']]);
    expect(() => zipParts(parts)).toThrow(/part name is too long for a zip/);
  });

  it('refuses a package a zip without ZIP64 cannot hold (65,536 parts)', () => {
    const parts = new Map<string, Uint8Array | string>();
    const empty = new Uint8Array(0);
    for (let i = 0; i < 65_536; i++) parts.set(`p/${i}.png`, empty);
    expect(() => zipParts(parts)).toThrow(/too large for a zip without ZIP64/);
  });

  it('a conversion gives the same bytes again, and from a template read afresh', async () => {
    const template = readTemplate(defaultTemplate());
    const markdown = '# Title\n\nA paragraph with **bold** text.\n\n- one\n- two\n';
    const created = new Date('2026-01-01T00:00:00Z');
    const first = (await convert({ markdown, template, created })).docx;
    const again = (await convert({ markdown, template, created })).docx;
    const afresh = (await convert({ markdown, template: readTemplate(defaultTemplate()), created })).docx;
    expect(again).toEqual(first);
    expect(afresh).toEqual(first);
  });
});
