// Settings in a real Chromium: API keys (shown once, working over real HTTP, revoked → 401), the Solo plan's quota
// shown and enforced, the server's address and certificate; and the app as a whole with the keyboard alone, at
// 800×600, and without a session.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from 'undici';
import { pageErrors, startWorld, type World } from './browser.ts';

const TEMPLATE = '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000001';
const MAPPING = '6f1c3a52-8d4e-4b7a-9c21-0d0c0a000002';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

async function convertWith(headers: Record<string, string>): Promise<number> {
  const res = await request(`${world.origin}/api/v1/convert`, {
    dispatcher: world.agent,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ markdown: '# Hi', template_id: TEMPLATE, mapping_id: MAPPING, response_format: 'json' }),
  });
  await res.body.dump();
  return res.statusCode;
}

describe('Settings page', () => {
  test('create a key: shown once with a curl example, works over HTTPS, listed by prefix, revoked → 401', async () => {
    const { page } = await world.signedIn();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Name', { exact: true }).fill('build script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new key “build script”' });
    await dialog.waitFor();
    const key = await dialog.getByTestId('new-key').innerText();
    expect(key).toMatch(/^dw_[0-9A-Za-z]{38}$/);
    const curl = await dialog.locator('pre').innerText();
    expect(curl).toContain(`Authorization: Bearer ${key}`);
    expect(curl).toContain(`${world.origin}/api/v1/convert`);
    expect(curl).toContain(`--cacert "${String(world.server.discovery.cert_path)}"`);
    await world.screenshot(page, 'settings-key-created');
    await dialog.getByRole('button', { name: 'Done' }).click();

    // The key works for a real request, and its listing shows only the prefix, with "last used" filled in.
    expect(await convertWith({ authorization: `Bearer ${key}` })).toBe(200);
    await page.reload();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const row = page.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: 'build script' });
    await row.waitFor();
    const listed = await row.innerText();
    const keys = (await (
      await request(`${world.origin}/api/settings/api-keys`, {
        dispatcher: world.agent,
        headers: { 'x-docwright-admin': world.server.adminToken },
      })
    ).body.json()) as { key_prefix: string }[];
    const prefix = keys[0]?.key_prefix ?? '';
    expect(key.startsWith(prefix)).toBe(true);
    expect(listed).toContain(`${prefix}…`);
    expect(listed).not.toContain(key);
    expect(listed).not.toContain('never');
    expect(await page.content()).not.toContain(key);

    // Revoke with a confirmation: the next request is refused.
    await row.getByRole('button', { name: 'Revoke build script' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke “build script”?' });
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('status').filter({ hasText: 'Revoked “build script”.' }).waitFor();
    expect(await convertWith({ authorization: `Bearer ${key}` })).toBe(401);
    await world.screenshot(page, 'settings-key-revoked');
    expect(pageErrors(page)).toEqual([]);
  });

  test("shows the server's URL, port and certificate fingerprint", async () => {
    const { page } = await world.signedIn();
    await page.getByRole('link', { name: 'Settings' }).click();
    const fingerprint = await page.getByTestId('fingerprint').innerText();
    const cert = new X509Certificate(readFileSync(world.server.discovery.cert_path ?? '', 'utf8'));
    expect(fingerprint).toBe(cert.fingerprint256);
    expect(fingerprint).toBe(world.server.discovery.fingerprint);
    const server = await page.getByRole('region', { name: "This computer's server" }).innerText();
    expect(server).toContain(world.origin);
    expect(server).toContain(String(world.server.discovery.port));
    await world.screenshot(page, 'settings-server');
  });

  test("the Solo plan's quota is shown and enforced in the UI", async () => {
    const { page } = await world.signedIn();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Plan', { exact: true }).selectOption('solo');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    const used = (await (
      await request(`${world.origin}/api/settings`, {
        dispatcher: world.agent,
        headers: { 'x-docwright-admin': world.server.adminToken },
      })
    ).body.json()) as {
      usage: { conversions: number; quota: number };
    };
    expect(used.usage.quota).toBe(20);
    await page
      .getByTestId('usage')
      .filter({ hasText: `${used.usage.conversions} of 20 conversions used this month` })
      .waitFor();

    // Spend all but one conversion elsewhere (the CLI's way in: Solo has no REST API for keys).
    for (let i = used.usage.conversions; i < 19; i++)
      expect(await convertWith({ 'x-docwright-admin': world.server.adminToken })).toBe(200);
    await page.getByRole('link', { name: 'Convert' }).click();
    await page.getByTestId('quota-left').filter({ hasText: '1 of 20 conversions left this month.' }).waitFor();
    await page.getByLabel('Paste markdown').fill('# Last one');
    await page.getByLabel('File name').fill('last');
    await page.getByRole('button', { name: 'Convert', exact: true }).click();
    await page.getByRole('listitem', { name: 'Pasted text (last)' }).getByText('Done').waitFor();
    // Said before the next drop, once, with the date in the user's locale; converting is off.
    await page
      .getByTestId('quota-left')
      .filter({ hasText: /^This month’s 20 conversions are used; more on .+\.$/ })
      .waitFor();
    expect(await page.getByRole('button', { name: 'Convert', exact: true }).isDisabled()).toBe(true);
    await page.getByText('Limit of 20 conversions reached this month').waitFor();
    await world.screenshot(page, 'settings-solo-quota');
    expect(await convertWith({ 'x-docwright-admin': world.server.adminToken })).toBe(429);
    expect(pageErrors(page)).toEqual([]);

    // Back to Team for the tests after this one.
    const reset = await request(`${world.origin}/api/settings`, {
      dispatcher: world.agent,
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-docwright-admin': world.server.adminToken },
      body: JSON.stringify({ plan: 'team' }),
    });
    expect(reset.statusCode).toBe(200);
    await reset.body.dump();
  });
});

describe('The app as a whole', () => {
  test('works with the keyboard alone, with a visible focus', async () => {
    const { page } = await world.signedIn();
    // The first Tab reaches the skip link, then the navigation.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    const tabTo = async (name: string) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => {
          const el = document.activeElement;
          return el instanceof HTMLInputElement ? el.value : el?.textContent?.trim();
        });
        if (focused === name) return;
      }
      throw new Error(`Tab never reached ${name}`);
    };
    await tabTo('History');
    const outline = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement as Element);
      return { width: style.outlineWidth, style: style.outlineStyle };
    });
    expect(outline.style).not.toBe('none');
    expect(Number.parseFloat(outline.width)).toBeGreaterThanOrEqual(2);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    // Focus moved to the new page's heading.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');

    await page.getByRole('link', { name: 'Convert' }).press('Enter');
    await page.getByRole('heading', { name: 'Convert markdown to Word', level: 1 }).waitFor();
    await page.getByLabel('Paste markdown').focus();
    await page.keyboard.type('# Typed\n\nwith the keyboard only');
    await tabTo('pasted'); // the file name field's value
    await tabTo('Convert');
    await page.keyboard.press('Enter');
    const row = page.getByRole('listitem', { name: 'Pasted text (pasted)' });
    await row.getByText('Done').waitFor();
    await world.screenshot(page, 'keyboard');
    expect(pageErrors(page)).toEqual([]);
  });

  test('holds its layout at 800×600 and full HD: nothing overflows sideways', async () => {
    for (const viewport of [
      { width: 800, height: 600 },
      { width: 1920, height: 1080 },
    ]) {
      const { page } = await world.signedIn(viewport);
      for (const name of ['Convert', 'Templates & mappings', 'History', 'Settings']) {
        await page.getByRole('link', { name }).click();
        await page.getByRole('heading', { level: 1 }).waitFor();
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${name} at ${viewport.width}×${viewport.height}`).toBeLessThanOrEqual(0);
        await world.screenshot(
          page,
          `layout-${viewport.width}x${viewport.height}-${String(name.split(' ')[0]?.toLowerCase())}`,
        );
      }
    }
  });

  test('without the launch link, the window explains how to open Docwright and shows no data', async () => {
    const context = await world.browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(`${world.origin}/`);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('heading', { name: 'Open Docwright from its link' }).waitFor();
    await world.screenshot(page, 'signed-out');
    // A forged token is refused too.
    const forged = await page.goto(`${world.origin}/auth/session?token=forged`);
    expect(forged?.status()).toBe(401);
    await context.close();
  });
});
