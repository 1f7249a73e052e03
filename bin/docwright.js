#!/usr/bin/env node
// Runs the bundled command line (dist/). Four things before that:
// - On a Node older than the one Docwright needs (a system Node 20), it runs itself again on the Node (26) that
//   npm installed with it (the `node` dependency), so `docwright` works from anywhere on such a machine.
// - `docwright serve` and `docwright mcp` (which may start a server) run again with the server's V8 flags
//   (bin/server-flags.mjs), which only a command line can set: once per server, about one Node start-up.
// - Only in a development checkout (a .git next to the sources): when server/ is newer than the bundle, it runs the
//   sources through tsx instead, so a stale build is never used. An installed package never walks its files.
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import module, { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { hasServerFlags, SERVER_NODE_FLAGS, startsServer } from './server-flags.mjs';
import { convertV8Flags } from './convert-flags.mjs';
import v8 from 'node:v8';

const MIN_MAJOR = 22;
const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = join(root, 'dist', 'cli.js');
const sources = join(root, 'server');

/** The Node binary installed with Docwright (node_modules/node), or undefined where there is none. */
function bundledNode() {
  try {
    const path = join(createRequire(import.meta.url).resolve('node/package.json'), '..', 'bin', 'node');
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Runs this script again on `node` with `flags`: in this process where Node can (execve), else as a child. */
function relaunch(node, flags) {
  const args = [...flags, fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  // Replacing this process keeps its pid, signals and streams: whoever started the server holds the server.
  process.execve?.(node, [node, ...args]);
  const child = spawn(node, args, { stdio: 'inherit' });
  // A signal sent to us is passed on, SIGINT too: a supervisor may send it to this process alone. Ctrl-C in a
  // terminal reaches the child directly as well (same process group); a server takes the same signal twice within
  // moments as one (server/cli.ts, SIGNAL_REPEAT_MS), and a one-shot command ends on the first.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const serverCommand = startsServer(process.argv.slice(2));
if (Number(process.versions.node.split('.')[0]) < MIN_MAJOR) {
  const node = bundledNode();
  if (!node) {
    process.stderr.write(
      `docwright: needs Node ${MIN_MAJOR}.12 or newer (this is ${process.version}); install Node ${MIN_MAJOR} LTS, or reinstall docwright with npm's install scripts on (npm install -g --ignore-scripts=false ...).\n`,
    );
    process.exit(1);
  }
  relaunch(node, serverCommand ? SERVER_NODE_FLAGS : []);
} else if (serverCommand && !hasServerFlags(process.execArgv, SERVER_NODE_FLAGS)) {
  // Those missing only: a launcher on an older Node gave the base ones (bin/server-flags.mjs).
  relaunch(process.execPath, [
    ...process.execArgv,
    ...SERVER_NODE_FLAGS.filter((flag) => !process.execArgv.includes(flag)),
  ]);
} else {
  await runCli();
}

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The compile cache's folder: the user's own cache folder (not the shared temp folder, where another user could plant
 * code for us to run), created private; undefined (no cache) when it is not a directory owned by this user that
 * nobody else may write.
 */
function privateCacheDir() {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const home = homedir();
  const base =
    process.platform === 'win32'
      ? (process.env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'))
      : process.platform === 'darwin'
        ? join(home, 'Library', 'Caches')
        : (process.env.XDG_CACHE_HOME ?? join(home, '.cache'));
  const dir = join(base, 'docwright', 'compile-cache');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    if (!stat.isDirectory()) return undefined;
    if (process.platform !== 'win32' && (stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0))
      return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

async function runCli() {
  // V8's compiled code of the bundle kept on disk: later starts skip compiling it again. NODE_DISABLE_COMPILE_CACHE=1
  // turns it off.
  const cache = privateCacheDir();
  if (cache) {
    module.enableCompileCache?.(cache);
    // The conversion's worker thread (and the SVG renderer's child) load the engine: they read NODE_COMPILE_CACHE,
    // not this call, so they get the same folder (a cold `convert`: about 40 ms less CPU on this machine).
    process.env.NODE_COMPILE_CACHE = cache;
  }
  // bin/convert-flags.mjs: for `convert` only; flags the user gave Node win.
  const flags = convertV8Flags(process.argv.slice(2));
  if (flags.length > 0) v8.setFlagsFromString(flags.join(' '));
  const checkout = existsSync(join(root, '.git')) && existsSync(join(sources, 'cli-entry.ts'));
  const fresh = existsSync(bundle) && (!checkout || statSync(bundle).mtimeMs >= newestSource(sources));
  if (fresh) {
    await import(new URL('../dist/cli.js', import.meta.url).href);
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    await import(new URL('../server/cli-entry.ts', import.meta.url).href);
  }
}
