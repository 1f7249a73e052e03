#!/usr/bin/env node
// `npm start`: the desktop app where Electron's binary is installed; elsewhere (no binary, or no display) the same
// server with the UI in the browser, at the link it prints. Arguments go to either (e.g. `npm start -- --port 0`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SERVER_NODE_FLAGS, serverNodeFlags } from '../bin/server-flags.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The Electron binary's path, or undefined where it is not installed (the npm package is, its binary is not). */
export function electronBinary(require = createRequire(import.meta.url)) {
  try {
    const path = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** The desktop app, or the server with the reason why not. */
export function chooseLaunch({ electron, platform = process.platform, env = process.env }) {
  if (!electron) {
    return {
      mode: 'server',
      reason:
        'The Electron binary is not installed here, so Docwright starts its server with the UI in your browser instead.',
    };
  }
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return {
      mode: 'server',
      reason:
        'There is no display here (DISPLAY is not set), so Docwright starts its server with the UI in your browser instead.',
    };
  }
  return { mode: 'electron' };
}

function newest(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let time = 0;
  for (const entry of readdirSync(path)) time = Math.max(time, newest(join(path, entry)));
  return time;
}

/** Electron's command line for the app: the server's V8 flags, since its server runs in Electron's main process,
 * whose V8 takes flags only from the command line; those of Electron's V8 (14.6 in Electron 41, package.json), not
 * of the Node running this script. */
export function electronArgs({ asRoot, app, args }) {
  return [...(asRoot ? ['--no-sandbox'] : []), `--js-flags=${serverNodeFlags('14.6').join(' ')}`, app, ...args];
}

/** Whether dist/ lacks the app or is older than its sources. */
export function buildNeeded(dir = root) {
  const bundle = join(dir, 'dist', 'main', 'main.js');
  if (!existsSync(bundle) || !existsSync(join(dir, 'dist', 'ui', 'index.html'))) return true;
  const built = statSync(bundle).mtimeMs;
  return ['main', 'server', 'renderer'].some((folder) => newest(join(dir, folder)) > built);
}

/**
 * Runs COMMAND in place of this process where Node can (process.execve: the same pid, terminal and signals, so
 * nothing of the launcher stays behind as the server's or the app's parent). Elsewhere (Windows) a child with this
 * terminal, whose exit code becomes ours: SIGTERM and SIGHUP are passed on; Ctrl-C reaches the child directly (the
 * whole process group gets it); a SIGINT sent to this process alone (`kill -INT <pid>`) is passed on when the child is
 * still running a moment later.
 */
function run(command, args) {
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  process.execve?.(command, [command, ...args], env);
  const child = spawn(command, args, { stdio: 'inherit', env });
  const running = () => child.exitCode === null && child.signalCode === null;
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  process.on('SIGINT', () => setTimeout(() => running() && child.kill('SIGINT'), 500).unref());
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

async function main(args) {
  const electron = electronBinary();
  const launch = chooseLaunch({ electron });
  if (launch.mode === 'server') {
    console.log(launch.reason);
    run(process.execPath, [...SERVER_NODE_FLAGS, join(root, 'bin', 'docwright.js'), 'serve', ...args]);
    return;
  }
  if (buildNeeded()) {
    const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  // Chromium refuses to run as root with its OS sandbox (containers, CI), so root goes without it; users keep it.
  const asRoot = process.platform === 'linux' && process.getuid?.() === 0;
  if (asRoot)
    console.log(
      "Running as root: Chromium's OS sandbox is off (--no-sandbox); start Docwright as a normal user to keep it.",
    );
  run(electron, electronArgs({ asRoot, app: root, args }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
