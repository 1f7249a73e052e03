#!/usr/bin/env node
// `npm install`'s postinstall: fetches Electron's binary through Electron's own installer, and never fails the
// install when that download is unreachable (package.json's allowScripts keeps npm from running the installer
// itself, whose failure would roll the whole install back). Without the binary, `npm start` serves the UI in the
// browser instead of opening the window.
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Whether npm runs this lifecycle script because `npx docwright` (or `npx .`) links this very checkout into npx's
 * cache: the checkout is already installed and built (bin/docwright.js runs the sources when dist/ is stale), so its
 * `prepare` (the whole build) and `postinstall` (Electron's download) have nothing to do there.
 */
export function linkedByNpx(env = process.env, dir = root) {
  if (env.npm_command !== 'exec' || !env.npm_config_local_prefix) return false;
  try {
    return realpathSync(env.npm_config_local_prefix) === realpathSync(dir);
  } catch {
    return false;
  }
}

/** Electron's installer script, or null where the electron package is absent (an installed docwright). */
export function electronInstaller(require = createRequire(import.meta.url)) {
  try {
    return require.resolve('electron/install.js');
  } catch {
    return null;
  }
}

/** Runs Electron's installer; returns the one line to print, or undefined when there is nothing to say. */
export function installElectron(installer = electronInstaller(), env = process.env) {
  if (!installer) return undefined;
  if (env.ELECTRON_SKIP_BINARY_DOWNLOAD)
    return "Electron's binary was not downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD is set): `npm start` serves the UI in your browser.";
  const run = spawnSync(process.execPath, [installer], { encoding: 'utf8', env, timeout: 600_000 });
  if (run.status === 0) return undefined;
  const detail =
    `${run.stderr ?? ''}`
      .split('\n')
      .find((line) => /error/i.test(line))
      ?.trim() ?? `exit code ${run.status ?? 'none'}`;
  return `Electron's binary could not be downloaded (${detail}); the install goes on without it, and \`npm start\` serves the UI in your browser. On a machine that can reach GitHub's downloads, \`npm run install-electron\` fetches it.`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && !linkedByNpx()) {
  const message = installElectron();
  if (message) console.warn(message);
}
