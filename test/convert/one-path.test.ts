// The engine has one path and no hidden switches (issue 31): no file of server/ reaches into docx's internals (its
// Packer's compiler, prepForXml, Document.View: docx is used through its public API), and no file of server/convert/
// reads the process's environment (what the engine needs is passed in).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|cts|js|mjs|cjs)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** The files of `dir` whose text matches `pattern`, with the first line that does. */
function matching(dir: string, pattern: RegExp): string[] {
  return sources(join(ROOT, dir)).flatMap((path) => {
    const line = readFileSync(path, 'utf8')
      .split('\n')
      .findIndex((text) => pattern.test(text));
    return line < 0 ? [] : [`${relative(ROOT, path)}:${String(line + 1)}`];
  });
}

describe('one engine path', () => {
  it("no file in server/ uses docx's internals (Packer's compiler, prepForXml, Document.View)", () => {
    expect(matching('server', /\.compiler\b|\bprepForXml\b|Document\.View\b|\.View\b/)).toEqual([]);
  });

  it('no file in server/convert/ reads process.env', () => {
    expect(matching('server/convert', /process\.env\b|process\[['"]env['"]\]/)).toEqual([]);
  });

  it('the checks see what they look for', () => {
    expect(sources(join(ROOT, 'server/convert')).length).toBeGreaterThan(50);
    expect(/\.compiler\b/.test('Packer.compiler')).toBe(true);
  });
});
