import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate, readTemplate } from '../../server/convert/index.ts';
import { folderSource } from '../../server/confined/image-folder.ts';
import { libreOfficePdfs } from '../helpers/docx.ts';

const run = promisify(execFile);
const DOC = resolve(import.meta.dirname, '../fixtures/images/doc');

/** LibreOffice's PDF of a document, and the images in it as `pdfimages -list` lists them. */
async function pdfImages(docx: Uint8Array): Promise<{ width: number; height: number; xppi: number; yppi: number }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-lo-img-'));
  const input = join(dir, 'doc.docx');
  writeFileSync(input, docx);
  await libreOfficePdfs([input], dir);
  const pdf = join(dir, 'doc.pdf');
  if (!existsSync(pdf)) throw new Error('LibreOffice produced no PDF');
  const { stdout } = await run('pdfimages', ['-list', pdf]);
  // page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
  return stdout
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols[2] === 'image')
    .map((cols) => ({
      width: Number(cols[3]),
      height: Number(cols[4]),
      xppi: Number(cols[12]),
      yppi: Number(cols[13]),
    }));
}

describe('images in the PDF LibreOffice makes', () => {
  it('shows each picture at the size the document gives it (fitted to the text width, aspect ratio kept)', async () => {
    const markdown = '![Banner](img/wide.png)\n\n![Chip](img/small.png)\n\n![Diagram](diagram.svg)\n';
    const { docx, warnings } = await convert({ markdown, images: folderSource(DOC) });
    expect(warnings).toEqual([]);
    const images = await pdfImages(docx);
    const textWidthInches = Math.floor(readTemplate(defaultTemplate()).textWidthTwips / 15) / 96;
    // The banner: 1600 × 800 pixels shown at the text width, so its resolution is 1600 / width in inches.
    const banner = images.find((i) => i.width === 1600);
    expect(banner).toBeDefined();
    expect(banner?.xppi).toBeCloseTo(1600 / textWidthInches, -1);
    expect(banner?.yppi).toBeCloseTo(banner?.xppi ?? 0, -1);
    // The chip keeps its own size: 120 pixels at 96 to the inch.
    const chip = images.find((i) => i.width === 120);
    expect(chip?.xppi).toBeCloseTo(96, -1);
    // The SVG (400 × 200) shows through its PNG fallback, rendered at twice its size: 800 pixels over 400 / 96 inches.
    const diagram = images.find((i) => i.width === 800);
    expect(diagram?.height).toBe(400);
    expect(diagram?.xppi).toBeCloseTo(192, -1);
  }, 180_000);
});
