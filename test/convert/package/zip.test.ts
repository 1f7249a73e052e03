// The package's zip: parts deflated by node:zlib and put in the container by fflate's Zip (with a data descriptor
// after each part), a template's unchanged parts deflated once, and a container that zip readers take: fflate's,
// our own template reader's (the central directory) and Python's zipfile (CRCs checked).
import { execFileSync } from 'node:child_process';
import { unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { convert, defaultTemplate, readTemplate } from '../../../server/convert/index.ts';
import { zipParts } from '../../../server/convert/package/zip.ts';
import { unzipPackage } from '../../../server/convert/template/zip.ts';
import { tempFile } from '../../helpers/docx.ts';

const encode = (text: string) => new TextEncoder().encode(text);

afterEach(() => {
  delete process.env.DOCWRIGHT_UNOPTIMISED;
});

describe('zipParts', () => {
  it('writes [Content_Types].xml first, every part back as it was, images stored, readable by every reader', () => {
    const parts = new Map<string, Uint8Array | string>([
      ['word/document.xml', `<w:document>${'<w:p/>'.repeat(500)}</w:document>`],
      ['[Content_Types].xml', '<Types/>'],
      ['word/media/picture.png', new Uint8Array([137, 80, 78, 71, 1, 2, 3])],
      ['docProps/ünïcode.xml', encode('<x>é</x>')],
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

  it("deflates a lasting part once: its kept deflated bytes are used again (shown by changing the bytes, which a template's never are)", () => {
    const lasting = encode(`<w:styles>${'<w:style/>'.repeat(200)}</w:styles>`);
    const parts = new Map<string, Uint8Array | string>([['word/styles.xml', lasting]]);
    const isLasting = (path: string, data: Uint8Array) => data === lasting;
    const first = zipParts(parts, 6, isLasting);
    lasting.fill(32);
    expect(zipParts(parts, 6, isLasting)).toEqual(first);
    // Not lasting, or with the optimisations off: deflated afresh.
    expect(unzipSync(zipParts(parts))['word/styles.xml']).toEqual(lasting);
    process.env.DOCWRIGHT_UNOPTIMISED = '1';
    expect(unzipSync(zipParts(parts, 6, isLasting))['word/styles.xml']).toEqual(lasting);
  });

  it("a conversion's bytes are the same with the template's parts deflated before and deflated afresh", () => {
    const template = readTemplate(defaultTemplate());
    const markdown = '# Title\n\nA paragraph with **bold** text.\n\n- one\n- two\n';
    const created = new Date('2026-01-01T00:00:00Z');
    const first = convert({ markdown, template, created }).docx;
    const again = convert({ markdown, template, created }).docx;
    process.env.DOCWRIGHT_UNOPTIMISED = '1';
    const afresh = convert({ markdown, template, created }).docx;
    expect(again).toEqual(first);
    expect(afresh).toEqual(first);
  });
});
