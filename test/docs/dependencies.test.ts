// docs/dependencies.md names every package of package.json with the licence its installed package declares: a
// dependency added without its row, or whose licence changed, fails here (the licence was checked and written down).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};
const names = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];

/** Each table row of the page: the packages it names (in backticks) → the licences of its last column. */
function rows(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const line of readFileSync(join(root, 'docs/dependencies.md'), 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || cells[1]?.startsWith('---')) continue;
    const licences = (cells[cells.length - 2] ?? '').split(',').map((l) => l.trim());
    for (const m of (cells[1] ?? '').matchAll(/`([^`]+)`/g)) found.set(m[1] ?? '', licences);
  }
  return found;
}

describe('docs/dependencies.md', () => {
  const table = rows();
  it.each(names)('names %s with its licence', (name) => {
    const installed = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
      license?: unknown;
    };
    expect(table.has(name), `${name} has no row`).toBe(true);
    expect(table.get(name)).toContain(installed.license);
  });
  it('names no package that package.json no longer has', () => {
    expect([...table.keys()].filter((n) => !names.includes(n))).toEqual([]);
  });
});
