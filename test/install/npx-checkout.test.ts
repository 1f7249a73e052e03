// `npx docwright` in the checkout, as a user runs it: npx links the checkout into its own cache the first time, which
// runs the checkout's `prepare` (the whole build) and `postinstall` (Electron's download) again. Neither is needed to
// run the command line (bin/docwright.js runs the sources when dist/ is stale), so both step aside there. And the
// `docwright` script, the fast path from a checkout, runs the command line.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'dw-npx-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A user's shell in the checkout: the system's npm, no npm variables of the test runner, an empty npm cache. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('npm_')) env[name] = value;
  return {
    ...env,
    PATH: (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !dir.includes('node_modules'))
      .join(delimiter),
    DOCWRIGHT_HOME: join(work, 'data'),
    // A first npx in this checkout: nothing linked yet. Scripts print where the test can see them.
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_foreground_scripts: 'true',
    npm_config_update_notifier: 'false',
  };
}

function run(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code: code ?? -1, output });
    });
  });
}

const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const built = (): number | undefined => statSync(join(root, 'dist', 'cli.js'), { throwIfNoEntry: false })?.mtimeMs;

describe('npx docwright in the checkout', () => {
  it('runs the command line without building again or fetching Electron', async () => {
    const before = built();
    const { code, output } = await run('npx', ['docwright', '--version']);
    expect(code, output).toBe(0);
    expect(output.split('\n')).toContain(version);
    expect(built()).toBe(before);
    expect(output).not.toMatch(/Electron|vite|built in/i);
  }, 320_000);
});

describe('npm run docwright', () => {
  it('runs the command line', async () => {
    const { code, output } = await run('npm', ['run', '--silent', 'docwright', '--', '--version']);
    expect(code, output).toBe(0);
    expect(output.trim()).toBe(version);
  }, 120_000);
});
