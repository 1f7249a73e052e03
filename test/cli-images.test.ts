import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from './helpers/docwright-process.ts';
import { part, validateDocx } from './helpers/docx.ts';

const FIXTURE = resolve(import.meta.dirname, 'fixtures/images/doc');

/** A copy of the image fixture folder (markdown and its images) to convert in. */
function folder(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'dw-cli-img-')), 'doc');
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

describe('docwright convert with images', () => {
  it('embeds the images beside the markdown file, whatever the current folder', async () => {
    const dir = folder();
    const out = join(dir, 'out.docx');
    // Run from elsewhere: paths are relative to the markdown file, not to the current folder.
    const { code, stderr } = await runCli(['convert', join(dir, 'doc.md'), '-o', out]);
    expect(code).toBe(0);
    expect(stderr).toContain('warning: line 15: image_missing: img/nothing.png');
    expect(stderr).toContain('warning: line 15: image_outside_folder: ../outside.png');
    expect(stderr).toContain('warning: line 15: remote_image: https://example.com/x.png');
    expect(stderr).toContain('9 images');
    const docx = new Uint8Array(readFileSync(out));
    const media = Object.keys(unzipSync(docx)).filter((name) => name.startsWith('word/media/'));
    expect(media).toHaveLength(6);
    expect(part(docx, 'word/document.xml')).toContain('descr="A blue banner"');
    expect((await validateDocx(docx)).ok).toBe(true);
  });

  it('standard input has no folder: its images stay placeholders', async () => {
    const dir = folder();
    const out = join(dir, 'stdin.docx');
    // Run in the folder that has the image: still no image, since standard input names no folder.
    const child = spawn(process.execPath, [BIN, 'convert', '-', '-o', out], { cwd: dir });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end('![Chip](img/small.png)\n');
    const [code] = (await once(child, 'close')) as [number];
    expect(code).toBe(0);
    expect(stderr).toContain('warning: line 1: image_placeholder: images are not embedded from standard input: Chip');
  });

  it('--no-images keeps every image a placeholder, as the API does', async () => {
    const dir = folder();
    const out = join(dir, 'plain.docx');
    const { code, stderr } = await runCli(['convert', join(dir, 'doc.md'), '-o', out, '--no-images']);
    expect(code).toBe(0);
    expect(stderr).toContain('warning: line 5: image_placeholder: A blue banner');
    expect(stderr).not.toContain('remote_image');
    expect(stderr).toContain('9 images');
    const docx = new Uint8Array(readFileSync(out));
    expect(Object.keys(unzipSync(docx)).filter((name) => name.startsWith('word/media/'))).toEqual([]);
    expect(part(docx, 'word/document.xml')).toContain('[Image: A blue banner]');
  });
});
