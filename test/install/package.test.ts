// What package.json promises about installing: the Node it names satisfies every runtime dependency, the Node it
// installs (the `node` dependency) is one of them, and every install script in the lock was decided on.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Semver {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
}
const semver = createRequire(import.meta.url)('semver') as Semver;
const root = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  files: string[];
  scripts: Record<string, string>;
  allowScripts: Record<string, boolean>;
};
type Locked = { version?: string; dev?: boolean; engines?: { node?: string } | string[]; hasInstallScript?: boolean };
const lock = JSON.parse(readFileSync(resolve(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, Locked>;
};
const locked = Object.entries(lock.packages).filter(([path]) => path !== '');
const nameOf = (path: string): string => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
const nodeRange = (p: Locked): string | undefined => (Array.isArray(p.engines) ? undefined : p.engines?.node);

describe('the Node Docwright runs on', () => {
  const bundled = lock.packages['node_modules/node']?.version ?? '';
  // The lowest version of each major that `engines` allows, and the one npm installs.
  const allowed = pkg.engines.node.split('||').map((range) => semver.minVersion(range.trim())?.version ?? '');

  it("is installed with it (the registry's node package) and is one that engines allows", () => {
    expect(bundled).toMatch(/^26\./);
    expect(semver.satisfies(bundled, pkg.engines.node)).toBe(true);
  });

  it.each(allowed)('%s satisfies the engines of every runtime dependency in the lock', (version) => {
    const unmet = locked
      .filter(([, p]) => !p.dev && nodeRange(p) !== undefined && !semver.satisfies(version, nodeRange(p) ?? '*'))
      .map(([path, p]) => `${nameOf(path)}@${p.version ?? '?'} needs ${nodeRange(p) ?? ''}`);
    expect(unmet).toEqual([]);
  });
});

describe('install scripts', () => {
  it('are each allowed or denied on purpose in allowScripts', () => {
    const withScripts = [...new Set(locked.filter(([, p]) => p.hasInstallScript).map(([path]) => nameOf(path)))].sort();
    expect(withScripts.filter((name) => !(name in pkg.allowScripts))).toEqual([]);
  });

  it("leave Electron's download to our own step, which a packed docwright carries", () => {
    expect(pkg.allowScripts.electron).toBe(false);
    expect(pkg.scripts.postinstall).toBe('node scripts/install-electron.mjs');
    expect(pkg.files).toContain('scripts/install-electron.mjs');
  });
});
