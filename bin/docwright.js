#!/usr/bin/env node
// Runs the bundled command line (dist/, built by `npm install`); in a checkout whose sources are newer than the
// bundle, runs the sources through tsx instead, so a stale build is never used.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = join(root, 'dist', 'cli.js');
const sources = join(root, 'server');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const fresh = existsSync(bundle) && (!existsSync(sources) || statSync(bundle).mtimeMs >= newestSource(sources));
if (fresh) {
  await import(new URL('../dist/cli.js', import.meta.url).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../server/cli-entry.ts', import.meta.url).href);
}
