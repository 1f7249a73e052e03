// The real desktop app, driven by Playwright's Electron support: it starts the embedded server, shows the UI in a
// hardened window, converts pasted markdown and saves the .docx through the preload API, keeps the server running
// when the window closes, and logs without secrets. Runs wherever the Electron binary exists; here it may not.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildNeeded, chooseLaunch, electronBinary } from '../../scripts/start.mjs';
import { unzipSync } from 'fflate';
import { FormData, request } from 'undici';
import { RENDER_SERVICE_NAME } from '../../main/render-launcher.ts';
import { call, runCli, trustingAgent } from '../helpers/docwright-process.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const root = resolve(import.meta.dirname, '../..');
const binary = electronBinary();
// The same decision `npm start` makes: no binary (ELECTRON_SKIP_BINARY_DOWNLOAD, no network at install), or no
// display on Linux (run under xvfb-run to test there). The reason is printed, so a skipped run is never silent.
const launch = chooseLaunch({ electron: binary });
const skipReason =
  launch.mode === 'electron'
    ? undefined
    : `${launch.reason} It runs wherever \`require("electron")\` names an existing file and a display exists.`;
if (skipReason) console.warn(`Electron test skipped: ${skipReason}`);

// A file whose every test is skipped runs no hooks, so its temporary folder (test/helpers/temp-per-file.ts) would
// outlive it: where the app cannot run, this file checks the decision it prints instead.
it.runIf(skipReason !== undefined)('says in words why the desktop app is not driven here', () => {
  expect(skipReason).toMatch(/Electron|display/);
});

describe.skipIf(skipReason !== undefined)('the desktop app (Electron)', () => {
  let home: string;
  let app: ElectronApplication;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    if (buildNeeded(root))
      expect(spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' }).status).toBe(0);
    home = mkdtempSync(join(tmpdir(), 'docwright-electron-'));
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
    app = await _electron.launch({
      executablePath: binary,
      args: [root, '--port=0'],
      env: { ...env, DOCWRIGHT_HOME: home, DOCWRIGHT_KEYCHAIN: 'off' },
      timeout: 60_000,
    });
    page = await app.firstWindow();
    // The one-launch link redirects to the UI at `/#session=…`; the page keeps the id and clears the fragment.
    await page.waitForURL((url) => url.protocol === 'https:' && url.hostname === '127.0.0.1' && url.pathname === '/', {
      timeout: 30_000,
    });
    origin = new URL(page.url()).origin;
    // Native dialogs and the OS browser cannot be driven: record what the app asks of them instead.
    await app.evaluate(
      ({ dialog, shell }, target) => {
        const opened: string[] = [];
        Object.assign(globalThis, { __opened: opened });
        dialog.showSaveDialog = async () => ({ canceled: false, filePath: target });
        shell.openExternal = async (url: string) => {
          opened.push(url);
        };
      },
      join(home, 'saved.docx'),
    );
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('runs the UI without Node in the page, with only window.docwright exposed', async () => {
    expect(
      await page.evaluate(() => ({
        require: typeof (globalThis as { require?: unknown }).require,
        process: typeof (globalThis as { process?: unknown }).process,
      })),
    ).toEqual({
      require: 'undefined',
      process: 'undefined',
    });
    expect(await page.evaluate(() => (window.docwright ? Object.keys(window.docwright).sort() : []))).toEqual([
      'isDesktop',
      'openFiles',
      'revealInFolder',
      'saveAllToFolder',
      'saveFile',
    ]);
  });

  it('opens no windows, never leaves the server, and sends http(s) links to the OS browser', async () => {
    expect(await page.evaluate(() => window.open('https://example.com/docs') === null)).toBe(true);
    expect(await page.evaluate(() => window.open('file:///etc/passwd') === null)).toBe(true);
    await page.evaluate(() => {
      location.href = 'https://example.org/elsewhere';
    });
    await page.waitForTimeout(500);
    expect(new URL(page.url()).origin).toBe(origin);
    expect(app.windows()).toHaveLength(1);
    expect(await app.evaluate(() => (globalThis as { __opened?: string[] }).__opened)).toEqual([
      'https://example.com/docs',
      'https://example.org/elsewhere',
    ]);
  });

  it('refuses every web permission the page asks for (notifications, location, camera and microphone)', async () => {
    const asked = await page.evaluate(async () => ({
      notifications: await Notification.requestPermission(),
      location: await new Promise<string>((done) =>
        navigator.geolocation.getCurrentPosition(
          () => done('granted'),
          (e) => done(`refused (${e.code})`),
          { timeout: 10_000 },
        ),
      ),
      media: await navigator.mediaDevices.getUserMedia({ audio: true, video: true }).then(
        () => 'granted',
        (e: unknown) => (e as Error).name,
      ),
    }));
    expect(asked.notifications).toBe('denied');
    expect(asked.location).toMatch(/^refused/);
    expect(asked.media).not.toBe('granted');
    // The check handler agrees: the page sees them as denied before asking.
    expect(await page.evaluate(async () => (await navigator.permissions.query({ name: 'geolocation' })).state)).toBe(
      'denied',
    );
  });

  it('converts pasted markdown and saves a valid .docx through the native Save dialog', async () => {
    await page.getByLabel('Paste markdown').fill('# Hello from Electron\n\nA paragraph with **bold** text.\n');
    await page.getByRole('button', { name: 'Convert', exact: true }).click();
    await page.getByRole('button', { name: 'Save' }).first().click();
    const saved = join(home, 'saved.docx');
    await expect.poll(() => existsSync(saved), { timeout: 15_000 }).toBe(true);
    const bytes = new Uint8Array(readFileSync(saved));
    expect((await validateDocx(bytes)).ok).toBe(true);
    expect(part(bytes, 'word/document.xml')).toContain('Hello from Electron');
  });

  it('renders an SVG in a utility process of its own (its binary cannot run as Node once installed)', async () => {
    const created = await runCli(['keys', 'create', 'svg', '--data-dir', home]);
    expect(created.code, created.stderr).toBe(0);
    const form = new FormData();
    form.append('markdown', '![a circle](circle.svg)\n');
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle r="20" cx="20" cy="20"/></svg>';
    form.append('images', new Blob([svg], { type: 'image/svg+xml' }), 'circle.svg');
    const res = await request(`${origin}/api/v1/convert`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${created.stdout.trim()}` },
      dispatcher: trustingAgent(join(home, 'tls', 'localhost-cert.pem')),
    });
    const bytes = new Uint8Array(await res.body.arrayBuffer());
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-warnings']).toBeUndefined();
    expect((await validateDocx(bytes)).ok).toBe(true);
    // The PNG fallback was drawn, by the pool's warm render child: a utility process named as main/ names it.
    const media = Object.keys(unzipSync(bytes)).filter((name) => name.startsWith('word/media/'));
    expect(media.some((name) => name.endsWith('.png')) && media.some((name) => name.endsWith('.svg'))).toBe(true);
    const processes = await app.evaluate(({ app: electronApp }) =>
      electronApp.getAppMetrics().map((metric) => ({ type: metric.type, name: metric.name ?? '' })),
    );
    expect(processes).toContainEqual({ type: 'Utility', name: RENDER_SERVICE_NAME });
  });

  it('keeps the server running when the window closes, and a second launch brings the window back', async () => {
    const cert = join(home, 'tls', 'localhost-cert.pem');
    await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.close());
    await expect.poll(() => app.windows().length).toBe(0);
    expect((await call(trustingAgent(cert), `${origin}/api/health`)).status).toBe(200);
    const reopened = app.waitForEvent('window');
    await app.evaluate(({ app: electronApp }) => electronApp.emit('second-instance'));
    page = await reopened;
    await page.waitForURL((url) => url.origin === origin && url.pathname === '/');
  });

  it('logs into the OS log folder without the session token', async () => {
    const logs = await app.evaluate(({ app: electronApp }) => electronApp.getPath('logs'));
    const text = readFileSync(join(logs, 'docwright.log'), 'utf8');
    expect(text).toContain(`Server at ${origin}`);
    expect(text).not.toMatch(/token=(?!\[redacted\])/);
    expect(text).not.toMatch(/dw_[A-Za-z0-9]{10}/);
  });
});
