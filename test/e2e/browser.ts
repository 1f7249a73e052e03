// The browser tests' world: a real Docwright server (HTTPS on a free loopback port, its own data directory) and
// Debian's Chromium driven by Playwright, trusting exactly that server's certificate (its public key pinned).
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Agent } from 'undici';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { trustingAgent } from '../helpers/docwright-process.ts';

/** Where each test's screenshot is kept (CI artifacts); not in git. */
export const SCREENSHOTS = resolve(import.meta.dirname, '../../test-results/e2e');

/** Debian's Chromium (or CHROMIUM_PATH). The tests need it: CI installs it, so its absence is a failure. */
export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path))
    throw new Error(
      `Chromium not found at ${path}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH.`,
    );
  return path;
}

/** Base64 SHA-256 of a certificate's public key, as Chromium's --ignore-certificate-errors-spki-list wants it. */
export function spkiHash(certPem: string): string {
  const der = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}

export interface World {
  server: RunningServer;
  dataDir: string;
  browser: Browser;
  /** A client of the API that trusts the server's certificate. */
  agent: Agent;
  /** The server's origin, e.g. https://127.0.0.1:41021. */
  origin: string;
  /** A new browser context and page signed in through the one-launch link, with downloads allowed. */
  signedIn(
    viewport?: { width: number; height: number },
    options?: { locale?: string; colorScheme?: 'light' | 'dark' },
  ): Promise<{ context: BrowserContext; page: Page }>;
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts a server in a fresh data directory and a headless Chromium pinned to its certificate. */
export async function startWorld(): Promise<World> {
  const dataDir = mkdtempSync(join(tmpdir(), 'docwright-e2e-'));
  const server = await startServer({ dataDir, port: 0 });
  const certPath = server.discovery.cert_path;
  if (!certPath) throw new Error('the server did not start with HTTPS');
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', `--ignore-certificate-errors-spki-list=${spkiHash(readFileSync(certPath, 'utf8'))}`],
  });
  const agent = trustingAgent(certPath);
  const contexts: BrowserContext[] = [];
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    server,
    dataDir,
    browser,
    agent,
    origin: server.discovery.url,
    async signedIn(viewport = { width: 1280, height: 860 }, options = {}) {
      const context = await browser.newContext({ viewport, acceptDownloads: true, ...options });
      contexts.push(context);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        // A refused request (e.g. the 429 a test provokes) is logged by Chromium itself; the UI shows it in words.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
          errors.push(message.text());
      });
      (page as Page & { errors?: string[] }).errors = errors;
      // Each link opens the app once: every new browser context gets its own.
      await page.goto(server.newUiLink());
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      return { context, page };
    },
    async screenshot(page, name) {
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await agent.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Errors the page logged (uncaught exceptions and console errors): a test expects none. */
export function pageErrors(page: Page): string[] {
  return (page as Page & { errors?: string[] }).errors ?? [];
}

/** A file dropped on the Convert page: its text or bytes, and its content type (markdown unless given). */
export interface DroppedFile {
  name: string;
  text?: string;
  bytes?: Uint8Array;
  type?: string;
}

/** Drops files on the drop zone together, as a file manager does. */
export async function dropFiles(page: Page, files: readonly DroppedFile[]): Promise<void> {
  const list = files.map((f) => ({
    name: f.name,
    type: f.type ?? 'text/markdown',
    base64: Buffer.from(f.bytes ?? f.text ?? '').toString('base64'),
  }));
  const dataTransfer = await page.evaluateHandle((items) => {
    const transfer = new DataTransfer();
    for (const f of items) {
      const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
      transfer.items.add(new File([bytes], f.name, { type: f.type }));
    }
    return transfer;
  }, list);
  await page.getByTestId('drop-zone').dispatchEvent('dragenter', { dataTransfer });
  await page.getByTestId('drop-zone').dispatchEvent('drop', { dataTransfer });
}

/** Clicks a converted file's Save button and returns the downloaded file's bytes. */
export async function savedFile(page: Page, filename: string): Promise<Uint8Array> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: `Save ${filename}`, exact: true }).click(),
  ]);
  return new Uint8Array(readFileSync(await file.path()));
}

/** Pastes markdown under the file name `name`, converts it, and returns the saved `name.docx`. */
export async function convertPasted(page: Page, markdown: string, name: string): Promise<Uint8Array> {
  await page.getByLabel('Paste markdown').fill(markdown);
  await page.getByLabel('File name').fill(name);
  await page.getByRole('button', { name: 'Convert', exact: true }).click();
  await page
    .getByRole('listitem', { name: `Pasted text (${name})` })
    .getByText('Done')
    .waitFor();
  return savedFile(page, `${name}.docx`);
}
