// The README's "docwright on your PATH" as a user does it: pack the checkout, install the tarball globally with the
// README's command (into a temporary prefix), and convert from a folder outside the checkout, with the system's own Node and npm first on
// the PATH (on these machines Node 20: the installed docwright runs itself on the Node 26 installed with it).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateDocx } from '../helpers/docx.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
// The PATH a user's shell has: without the checkout's node_modules/.bin that `npm test` puts first.
const PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => !dir.includes('node_modules'))
  .join(delimiter);
const env = { ...process.env, PATH };
const work = mkdtempSync(join(tmpdir(), 'dw-install-'));
const prefix = join(work, 'prefix');
const elsewhere = join(work, 'elsewhere');
const docwright = join(prefix, 'bin', 'docwright');
const installed = join(prefix, 'lib', 'node_modules', 'docwright');
let tarballBytes = 0;
let installOutput = '';

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), base) : [relative(base, join(dir, entry.name))],
  );
}

beforeAll(async () => {
  // dist/ is built by `npm test`'s pretest; packing without scripts keeps this test from rebuilding it.
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: root, env });
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  // The README's own command, with its options (into a temporary prefix, as it suggests without root).
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const line = /^npm install -g (.*?)\.\/docwright-[\d.]+\.tgz/m.exec(readme);
  if (!line) throw new Error('README.md no longer shows `npm install -g ... ./docwright-VERSION.tgz`');
  const options = (line[1] ?? '').split(/\s+/).filter(Boolean);
  tarballBytes = statSync(join(work, tarball)).size;
  const installed = await run(
    'npm',
    ['install', '-g', ...options, '--prefix', prefix, '--no-audit', '--no-fund', join(work, tarball)],
    { cwd: work, env, maxBuffer: 16 << 20 },
  );
  installOutput = `${installed.stdout}${installed.stderr}`;
  await run('mkdir', ['-p', elsewhere]);
}, 600_000);

describe('a globally installed docwright', () => {
  it('converts a file in a folder outside the checkout', async () => {
    writeFileSync(join(elsewhere, 'notes.md'), '# Notes\n\nFrom anywhere.\n');
    const { stderr } = await run(docwright, ['convert', 'notes.md'], { cwd: elsewhere, env });
    expect(stderr).toMatch(/^Wrote .*notes\.docx \(.* KB\): 1 heading, 1 paragraph, /);
    const { ok, report } = await validateDocx(new Uint8Array(readFileSync(join(elsewhere, 'notes.docx'))));
    expect(ok, report).toBe(true);
  });

  it('prints its version', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect((await run(docwright, ['--version'], { cwd: elsewhere, env })).stdout.trim()).toBe(version);
  });

  it('carries no sources, so it never checks whether a build is stale', () => {
    expect(existsSync(join(installed, 'dist', 'cli.js'))).toBe(true);
    expect(existsSync(join(installed, 'server'))).toBe(false);
  });

  it('ships the command line without source maps or the Electron bundle it never uses', () => {
    const files = filesUnder(join(installed, 'dist'));
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    // npm always packs package.json's "main" (the desktop app's one-line entry, which electron-builder needs there);
    // nothing else of the Electron build (its bundle, preload, icons, worker) comes along.
    expect(files.filter((file) => file.startsWith('main/'))).toEqual(['main/index.js']);
    expect(statSync(join(installed, 'dist', 'main', 'index.js')).size).toBeLessThan(200);
    expect(files).toEqual(expect.arrayContaining(['cli.js', 'convert-worker.js', 'ui/index.html']));
    expect(tarballBytes).toBeLessThan(4 * 1024 * 1024);
  });

  it("installs with the README's command, whose notes answer every command npm suggests at the end", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const suggested = [...installOutput.matchAll(/(?:Run|or) `(npm [^`]+)`/g)].map((m) => m[1] ?? '');
    if (installOutput.includes('not yet covered by allowScripts')) expect(suggested, installOutput).not.toEqual([]);
    for (const command of suggested) expect(readme, command).toContain(`\`${command}\``);
  });
});
