// The desktop app's "Choose files…": the images a chosen markdown file names come along from its folder, with the
// engine's confinement (no `..`, no absolute paths, no links out, no URLs) and limits.
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openedImages } from '../../main/opened-images.ts';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/images/doc');

describe('images of a markdown file opened in the desktop app', () => {
  it('reads the images the markdown names from its folder, and nothing outside it', () => {
    const root = mkdtempSync(join(tmpdir(), 'dw-opened-'));
    const dir = join(root, 'doc');
    cpSync(FIXTURE, dir, { recursive: true });
    writeFileSync(join(root, 'secret.png'), readFileSync(join(FIXTURE, 'img/small.png')));
    symlinkSync(join(root, 'secret.png'), join(dir, 'link.png'));
    const text = [
      readFileSync(join(dir, 'doc.md'), 'utf8'),
      '![l](link.png) ![a](/etc/hosts.png) ![u](../secret.png) <img src="img/equation.gif"> [ref]: ./img/small.png',
      '![not an image](notes.txt)',
    ].join('\n');
    writeFileSync(join(dir, 'notes.txt'), 'x');
    const images = openedImages(join(dir, 'doc.md'), text);
    expect(images.map((i) => i.path).sort()).toEqual(
      ['diagram.svg', 'img/equation.gif', 'img/photo.jpg', 'img/small.png', 'img/wide.png'].sort(),
    );
    expect(images.find((i) => i.path === 'img/wide.png')?.bytes).toEqual(
      new Uint8Array(readFileSync(join(FIXTURE, 'img/wide.png'))),
    );
  });
});

describe('hostile text in an opened markdown file', () => {
  it('1 MB of `![` or of `<img ` is scanned in linear time', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-opened-'));
    for (const text of [
      '!['.repeat(512 * 1024),
      '<img '.repeat(200 * 1024),
      '[x]: '.repeat(200 * 1024),
      '[\n'.repeat(512 * 1024),
    ]) {
      const started = performance.now();
      expect(openedImages(join(dir, 'doc.md'), text)).toEqual([]);
      expect(performance.now() - started).toBeLessThan(1000);
    }
  }, 120_000);
});
