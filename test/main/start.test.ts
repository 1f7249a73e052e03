// `npm start` (scripts/start.mjs): the desktop app where Electron can run, else the server with the UI at its URL,
// saying why in one line. Here the server path runs for real.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseLaunch, electronBinary } from '../../scripts/start.mjs';
import { call, trustingAgent } from '../helpers/docwright-process.ts';

const root = resolve(import.meta.dirname, '../..');
const home = mkdtempSync(join(tmpdir(), 'docwright-start-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('choosing what to start', () => {
  it('starts Electron where its binary exists and a display does', () => {
    expect(chooseLaunch({ electron: '/x/electron', platform: 'linux', env: { DISPLAY: ':0' } })).toEqual({
      mode: 'electron',
    });
    expect(chooseLaunch({ electron: '/x/electron', platform: 'linux', env: { WAYLAND_DISPLAY: 'wayland-0' } })).toEqual(
      { mode: 'electron' },
    );
    expect(chooseLaunch({ electron: 'C:\\electron.exe', platform: 'win32', env: {} })).toEqual({ mode: 'electron' });
  });

  it('falls back to the server, saying why, without the binary or a display', () => {
    const noBinary = chooseLaunch({ electron: undefined, platform: 'darwin', env: {} });
    expect(noBinary).toEqual({
      mode: 'server',
      reason: expect.stringMatching(
        /^The Electron binary is not installed here, so Docwright starts its server with the UI in your browser instead\.$/,
      ),
    });
    expect(chooseLaunch({ electron: '/x/electron', platform: 'linux', env: {} })).toMatchObject({
      mode: 'server',
      reason: expect.stringMatching(/no display/),
    });
  });

  it('finds the binary only when the file is there', () => {
    expect(electronBinary((() => '/nonexistent/electron') as unknown as NodeJS.Require)).toBeUndefined();
    expect(electronBinary((() => process.execPath) as unknown as NodeJS.Require)).toBe(process.execPath);
    const throwing = (() => {
      throw new Error('Electron failed to install correctly');
    }) as unknown as NodeJS.Require;
    expect(electronBinary(throwing)).toBeUndefined();
  });
});

describe('npm start without a usable Electron', () => {
  // SIGINT sent to the wrapper alone (`kill -INT <pid>`, not Ctrl-C's whole group) must stop the server too.
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'prints the reason, runs the server with the UI link, and stops cleanly on %s',
    async (signal) => {
      const env = { ...process.env, DOCWRIGHT_HOME: home, DOCWRIGHT_KEYCHAIN: 'off', DISPLAY: '', WAYLAND_DISPLAY: '' };
      const expected = chooseLaunch({ electron: electronBinary(), platform: 'linux', env: {} });
      expect(expected.mode).toBe('server');
      const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs'), '--port', '0'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = once(child, 'exit');
      try {
        const url = await new Promise<string>((done, fail) => {
          const timer = setTimeout(
            () => fail(new Error(`no URL printed; stdout: ${stdout}; stderr: ${stderr}`)),
            30_000,
          );
          child.stdout.on('data', (d: Buffer) => {
            stdout += d.toString();
            const m = /Docwright is running at (\S+)[\s\S]*Open the app:/.exec(stdout);
            if (m?.[1]) {
              clearTimeout(timer);
              done(m[1]);
            }
          });
        });
        expect(stdout.split('\n')[0]).toBe(expected.mode === 'server' ? expected.reason : '');
        // Not a terminal: the session link goes to a file only the user can read, never to this (loggable) output.
        expect(stdout).toContain(`Open the app:  the link in ${join(home, 'ui-link')}`);
        expect(stdout).not.toContain('token=');
        expect(readFileSync(join(home, 'ui-link'), 'utf8')).toMatch(
          /^https:\/\/127\.0\.0\.1:\d+\/auth\/session\?token=\S{20,}\n$/,
        );
        expect(statSync(join(home, 'ui-link')).mode & 0o077).toBe(0);
        const health = await call(trustingAgent(join(home, 'tls', 'localhost-cert.pem')), `${url}/api/health`);
        expect(health.status).toBe(200);
        expect(existsSync(join(home, 'server.json'))).toBe(true);
        // The process npm start ran is the server itself (replaced in place): no launcher stays as its parent.
        const { pid } = JSON.parse(readFileSync(join(home, 'server.json'), 'utf8')) as { pid: number };
        expect(pid).toBe(child.pid);
      } finally {
        child.kill(signal);
      }
      const [code] = await exited;
      expect(code).toBe(0);
      // The server closed (the signal was passed on): its discovery file is gone.
      expect(existsSync(join(home, 'server.json'))).toBe(false);
    },
  );
});
