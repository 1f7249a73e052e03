// docx lays a long body out in pieces (server/convert/package/docx-pieces.ts): a piece ends only before a block that
// starts a top-level markdown block, and the pieces' parts are put together as one Document writes the whole, byte for
// byte (test/convert/same-output.test.ts holds every fixture to that; here, what each piece needs put right).
import { join } from 'node:path';
import { Packer, Paragraph, type FileChild } from 'docx';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateMarkdown } from '../../../bench/generate.ts';
import { folderSource } from '../../../server/confined/image-folder.ts';
import { convert } from '../../../server/convert/index.ts';
import { piecesOf } from '../../../server/convert/package/docx-pieces.ts';
import { part, partNames, validateDocx } from '../../helpers/docx.ts';

const created = new Date('2026-01-01T00:00:00Z');
const ONE_PIECE = 1e9;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('piecesOf', () => {
  const blocks = Array.from({ length: 10 }, () => new Paragraph({}) as FileChild);

  it('cuts once a piece has its blocks, before the next block that starts a top-level one', () => {
    const starts = new Set([blocks[0], blocks[3], blocks[5], blocks[9]].filter((b) => b !== undefined));
    expect(piecesOf(blocks, starts, 2).map((p) => p.length)).toEqual([3, 2, 4, 1]);
    expect(piecesOf(blocks, starts, 4).map((p) => p.length)).toEqual([5, 4, 1]);
  });

  it('never cuts where nothing starts (a list longer than a piece stays whole), and gives one piece for nothing', () => {
    expect(piecesOf(blocks, new Set([blocks[0]].filter((b) => b !== undefined)), 2).map((p) => p.length)).toEqual([10]);
    expect(piecesOf([], new Set(), 2)).toEqual([[]]);
  });
});

describe('a body laid out in pieces', () => {
  it('packs a long document in as many pieces, and writes the bytes of one', async () => {
    const markdown = generateMarkdown(40 * 1024);
    const pack = vi.spyOn(Packer, 'pack');
    const whole = await convert({ markdown, created, pieceBlocks: ONE_PIECE });
    expect(pack).toHaveBeenCalledTimes(1);
    pack.mockClear();
    const pieced = await convert({ markdown, created, pieceBlocks: 20 });
    expect(pack.mock.calls.length).toBeGreaterThan(5);
    expect(Buffer.from(pieced.docx).equals(Buffer.from(whole.docx))).toBe(true);
  });

  it('numbers lists, notes with lists and links as one Document does, across pieces', async () => {
    const list = (n: number): string =>
      Array.from({ length: 3 }, (_, k) => `${String(k + 1)}. item ${String(n)}`).join('\n');
    const markdown = [
      ...Array.from(
        { length: 6 },
        (_, n) =>
          `Para [link ${String(n)}](https://example.org/${String(n % 2)})[^n${String(n)}]\n\n${list(n)}\n\n- bullet ${String(n)}`,
      ),
      ...Array.from({ length: 6 }, (_, n) => `[^n${String(n)}]: Note ${String(n)}\n\n    1. note list\n    2. again`),
    ].join('\n\n');
    const whole = await convert({ markdown, created, pieceBlocks: ONE_PIECE });
    const pieced = await convert({ markdown, created, pieceBlocks: 1 });
    for (const name of [
      'word/document.xml',
      'word/numbering.xml',
      'word/footnotes.xml',
      'word/_rels/document.xml.rels',
    ])
      expect(part(pieced.docx, name), name).toBe(part(whole.docx, name));
    // 12 lists in the body (6 ordered, 6 bullets) and 6 in the notes, each its own instance.
    expect(new Set(part(pieced.docx, 'word/document.xml').match(/w:numId w:val="\d+"/g)).size).toBe(12);
    expect(new Set(part(pieced.docx, 'word/footnotes.xml').match(/w:numId w:val="\d+"/g)).size).toBe(6);
  });

  it("leaves the user's text that reads like the ids it renumbers as it was", async () => {
    const images = folderSource(join(import.meta.dirname, '../../fixtures/images/doc'));
    const ids = Array.from(
      { length: 12 },
      (_, n) => `r:embed="rId${String(n + 1)}" <w:numId w:val="${String(n + 1)}"/>`,
    );
    const markdown = ['small.png', 'wide.png', 'photo.jpg', 'small.png']
      .map((name) => `![${name}](img/${name}) ${ids.join(' ')} \`${ids.join(' ')}\`\n\n1. item`)
      .join('\n\n');
    const whole = await convert({ markdown, created, images, pieceBlocks: ONE_PIECE });
    const pieced = await convert({ markdown, created, images, pieceBlocks: 1 });
    expect(part(pieced.docx, 'word/document.xml')).toBe(part(whole.docx, 'word/document.xml'));
  });

  it('stores a picture used in several pieces once, related as one Document relates it', async () => {
    const images = folderSource(join(import.meta.dirname, '../../fixtures/images/doc'));
    const markdown = [
      '![a](img/small.png)',
      '![b](img/wide.png)',
      'text',
      '![c](img/small.png)',
      '![d](img/photo.jpg)',
      '![e](img/wide.png)',
    ].join('\n\n');
    const whole = await convert({ markdown, created, images, pieceBlocks: ONE_PIECE });
    const pieced = await convert({ markdown, created, images, pieceBlocks: 1 });
    expect(Buffer.from(pieced.docx).equals(Buffer.from(whole.docx))).toBe(true);
    expect(partNames(pieced.docx).filter((name) => name.includes('/media/'))).toHaveLength(3);
    expect((await validateDocx(pieced.docx)).ok).toBe(true);
  });
});
