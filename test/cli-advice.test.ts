// Advice the command line prints names a command that works where the user is: from a checkout, a second
// `npm start` on a taken port says `npm start -- --port N` (not `docwright serve --port N`, which is not on the PATH
// there), `npx docwright …` names `npx docwright`, and an installed `docwright` names itself. Real processes: `npm
// start` and `npx` in this checkout, `node bin/docwright.js` for an installed command.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllChildren, runCli, startServe, type CliResult, type ServeProcess } from './helpers/docwright-process.ts';

const root = resolve(import.meta.dirname, '..');
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dw-cli-advice-'));
  dirs.push(dir);
  return dir;
}

/** A user's environment: no npm variables of the test runner, no display (npm start serves instead of Electron). */
function userEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('npm_')) env[name] = value;
  return {
    ...env,
    PATH: (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !dir.includes('node_modules'))
      .join(delimiter),
    DOCWRIGHT_HOME: home,
    DOCWRIGHT_KEYCHAIN: 'off',
    DISPLAY: '',
    WAYLAND_DISPLAY: '',
    npm_config_update_notifier: 'false',
  };
}

/** Runs `command ARGS` in the checkout to completion (killed after two minutes). */
function runIn(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code: code ?? -1, stdout, stderr });
    });
  });
}

let first: ServeProcess;
let port: string;
beforeAll(async () => {
  first = await startServe(['--http'], { env: userEnv(tempDir()) });
  port = new URL(first.url).port;
}, 60_000);

afterAll(async () => {
  await killAllChildren();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The line of `text` that starts with `docwright: `. */
const errorLine = (text: string): string => text.split('\n').find((line) => line.startsWith('docwright: ')) ?? '';

describe('a port that is taken', () => {
  it('from a checkout, `npm start` advises `npm start -- --port N` and `npx docwright config set port N`', async () => {
    const result = await runIn('npm', ['start', '--', '--port', port, '--http'], userEnv(tempDir()));
    expect(result.code).not.toBe(0);
    const line = errorLine(result.stderr);
    expect(line).toContain(`Port ${port} is not available`);
    expect(line).toContain('npm start -- --port N');
    expect(line).toContain('npx docwright config set port N');
    expect(line).not.toMatch(/(?<!npx )docwright (serve|config)/);
  }, 150_000);

  it('an installed docwright advises itself', async () => {
    const result = await runCli(['serve', '--port', port, '--http'], { env: userEnv(tempDir()) });
    expect(result.code).toBe(1);
    expect(errorLine(result.stderr)).toContain('docwright serve --port N, or docwright config set port N');
    expect(errorLine(result.stderr)).not.toMatch(/npx|npm start/);
  });
});

describe('other advice', () => {
  it('`npx docwright open` with no server running says to start one with npm start', async () => {
    const result = await runIn('npx', ['docwright', 'open'], userEnv(tempDir()));
    expect(result.code).toBe(1);
    expect(errorLine(result.stderr)).toBe(
      'docwright: no Docwright server is running for this data directory; start one with: npm start',
    );
  }, 150_000);

  it('`npx docwright keys list` with no keys says `npx docwright keys create NAME`', async () => {
    const result = await runIn('npx', ['docwright', 'keys', 'list'], userEnv(tempDir()));
    expect(result.stdout).toBe('No API keys. Create one: npx docwright keys create NAME\n');
  }, 150_000);
});
