#!/usr/bin/env node
// `npm run lint` / `npm run format:check`: installs the linting tools into tools/lint/ when they are missing or older
// than its lock file, then runs the one asked for from the project root, with its config from tools/lint/.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tools = join(root, 'tools', 'lint');
const installed = join(tools, 'node_modules', '.package-lock.json');
const TOOLS = {
  eslint: ['eslint', '--config', join(tools, 'eslint.config.js')],
  prettier: ['prettier', '--config', join(tools, 'prettier.config.js'), '--ignore-path', join(root, '.prettierignore')],
  // The shape of server/ (no import circle, layers): .dependency-cruiser.cjs. It reads TypeScript through TypeScript's
  // JavaScript API too, so it lives here with TypeScript 6.
  depcruise: ['depcruise', '--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'err'],
};

const [tool, ...args] = process.argv.slice(2);
const command = Object.hasOwn(TOOLS, tool ?? '') ? TOOLS[tool] : undefined;
if (!command) {
  console.error('usage: node scripts/lint-tools.mjs eslint|prettier|depcruise [arguments]');
  process.exit(2);
}
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(join(tools, 'package-lock.json')).mtimeMs) {
  const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: tools,
    stdio: 'inherit',
  });
  if (install.status !== 0) process.exit(install.status ?? 1);
}
const [bin, ...options] = command;
// The tools run on the project's Node (node_modules/.bin/node, the `node` dependency), also when this script was
// started by an older system Node: the ESLint config needs module.registerHooks (Node 22.15).
const path = [join(root, 'node_modules', '.bin'), process.env.PATH].join(delimiter);
const run = spawnSync(join(tools, 'node_modules', '.bin', bin), [...options, ...args], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PATH: path },
});
process.exit(run.status ?? 1);
