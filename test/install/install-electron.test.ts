// `npm install`'s own step around Electron's installer (scripts/install-electron.mjs): a failed download is one line,
// never a failed install.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { electronInstaller, installElectron } from '../../scripts/install-electron.mjs';

const dir = mkdtempSync(join(tmpdir(), 'dw-install-electron-'));
function installer(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
}
const env = { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: undefined };

describe("Electron's download at install time", () => {
  it('says in one line that the binary could not be downloaded, with the reason, when the installer fails', () => {
    const failing = installer(
      'fail.cjs',
      "console.error('RequestError: getaddrinfo ENOTFOUND github.com'); process.exit(1);",
    );
    const message = installElectron(failing, env);
    expect(message).toMatch(
      /^Electron's binary could not be downloaded \(RequestError: getaddrinfo ENOTFOUND github\.com\); the install goes on without it/,
    );
    expect(message?.split('\n')).toHaveLength(1);
  });

  it('says nothing when the installer succeeds, or where there is no electron package (an installed docwright)', () => {
    expect(installElectron(installer('ok.cjs', 'process.exit(0);'), env)).toBeUndefined();
    expect(installElectron(null, env)).toBeUndefined();
  });

  it('respects ELECTRON_SKIP_BINARY_DOWNLOAD without running the installer', () => {
    const never = installer('never.cjs', 'process.exit(3);');
    expect(installElectron(never, { ...env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' })).toMatch(
      /ELECTRON_SKIP_BINARY_DOWNLOAD is set/,
    );
  });

  it("finds Electron's installer in this checkout, and the postinstall step exits 0 whether or not the download works", () => {
    expect(electronInstaller()).toMatch(/electron[/\\]install\.js$/);
    const run = spawnSync(process.execPath, [resolve(import.meta.dirname, '../../scripts/install-electron.mjs')], {
      encoding: 'utf8',
      env,
      timeout: 600_000,
    });
    expect(run.status).toBe(0);
  });
});
