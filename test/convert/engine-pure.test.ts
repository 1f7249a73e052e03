// The engine is pure (issue 31): no file of server/convert/ reads the environment, starts a process or touches the
// file system; what it needs (images, a renderer for SVGs, options) is passed in. The renderer it is given decides
// where an SVG is rendered: a conversion that is given one renders nothing in this thread.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert, filesSource, type RenderRequest } from '../../server/convert/index.ts';

const ENGINE = join(import.meta.dirname, '../../server/convert');
const files = (readdirSync(ENGINE, { recursive: true }) as string[])
  .filter((name) => /\.(ts|mts|mjs|js)$/.test(name))
  .map((name) => join(ENGINE, name));

describe('the engine', () => {
  it('reads no environment and imports nothing that starts processes or touches files', () => {
    expect(files.length).toBeGreaterThan(50);
    const found: string[] = [];
    for (const path of files) {
      const name = relative(ENGINE, path);
      const text = readFileSync(path, 'utf8');
      if (/process\.env\b/.test(text)) found.push(`${name}: process.env`);
      for (const module of ['child_process', 'fs', 'fs/promises', 'worker_threads', 'net'])
        if (new RegExp(`from '(node:)?${module}'`).test(text)) found.push(`${name}: ${module}`);
    }
    expect(found).toEqual([]);
  });

  it('renders an SVG through the renderer it is given', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10"/></svg>';
    const asked: RenderRequest[] = [];
    const result = await convert({
      markdown: '![A box](box.svg)\n',
      images: filesSource(new Map([['box.svg', new TextEncoder().encode(svg)]])),
      renderer: (request) => {
        asked.push(request);
        return { ok: false, reason: 'too complex' };
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.svg).toContain('<rect');
    expect(result.warnings).toContain('image_unsupported: box.svg (too complex)');
  });
});
