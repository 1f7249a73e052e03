// An organisation's policy in a real Chromium: locked settings are shown as managed and cannot be changed from the
// UI; seeded templates and mappings appear, marked managed and read-only; key creation follows the policy.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from 'undici';
import { pageErrors, startWorld, type World } from './browser.ts';

const policyDir = mkdtempSync(join(tmpdir(), 'docwright-policy-'));
let world: World;

beforeAll(async () => {
  const seed = join(policyDir, 'seed');
  mkdirSync(seed);
  copyFileSync(resolve(import.meta.dirname, '../fixtures/templates/corporate.docx'), join(seed, 'Company Report.docx'));
  writeFileSync(
    join(seed, 'company.mapping.json'),
    JSON.stringify({
      name: 'Company styles',
      template: 'Company Report.docx',
      rules: { paragraph: 'Corp Body', heading: { '1': 'heading 1' } },
    }),
  );
  const policy = join(policyDir, 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({
      settings: {
        plan: { value: 'team', locked: true },
        retention_days: { value: 90, locked: true },
        monthly_quota: { value: 500, locked: false },
        max_api_keys: { value: 1, locked: true },
      },
      seed_dir: 'seed',
    }),
  );
  // This file runs in its own process: the server reads the policy from here when it starts.
  process.env.DOCWRIGHT_POLICY = policy;
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
  rmSync(policyDir, { recursive: true, force: true });
});

async function settings(): Promise<{
  settings: { plan: string; retention_days: number; monthly_quota: number | null };
}> {
  const res = await request(`${world.origin}/api/settings`, {
    dispatcher: world.agent,
    headers: { 'x-docwright-admin': world.server.adminToken },
  });
  return (await res.body.json()) as {
    settings: { plan: string; retention_days: number; monthly_quota: number | null };
  };
}

describe('Managed by policy', () => {
  test('locked settings are shown as managed and cannot be changed from the UI; unlocked ones can', async () => {
    const { page } = await world.signedIn();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByTestId('policy-notice').waitFor();
    expect(await page.getByTestId('policy-notice').innerText()).toContain(process.env.DOCWRIGHT_POLICY ?? '');
    const plan = page.locator('#plan');
    expect(await plan.isDisabled()).toBe(true);
    expect(await page.locator('label[for="plan"]').innerText()).toContain('Managed');
    expect(await page.getByLabel(/^Keep converted documents for/).isDisabled()).toBe(true);
    // Unlocked: only a default, which the user may change.
    const cap = page.getByLabel(/^Monthly cap/);
    expect(await cap.isDisabled()).toBe(false);
    expect(await cap.inputValue()).toBe('500');
    await cap.fill('300');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    const after = await settings();
    expect(after.settings).toMatchObject({ plan: 'team', retention_days: 90, monthly_quota: 300 });
    await world.screenshot(page, 'policy-settings');

    // Even a page that tried (a forged request from the UI's origin) cannot change a locked one.
    const status = await page.evaluate(
      async () =>
        (
          await fetch('/api/settings', {
            method: 'PATCH',
            headers: {
              'content-type': 'application/json',
              'x-docwright-session': sessionStorage.getItem('docwright.session') ?? '',
            },
            body: JSON.stringify({ plan: 'solo' }),
          })
        ).status,
    );
    expect(status).toBe(403);
    expect((await settings()).settings.plan).toBe('team');
    expect(pageErrors(page)).toEqual([]);
  });

  test('seeded templates and mappings appear, marked managed and read-only', async () => {
    const { page } = await world.signedIn();
    await page.getByRole('link', { name: 'Templates & mappings' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Company Report' });
    await row.getByText('managed').waitFor();
    await page.getByRole('button', { name: 'Company Report' }).click();
    await page.getByTestId('managed-template').waitFor();
    expect(await page.getByRole('button', { name: 'Rename…' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete…' }).count()).toBe(0);
    await page.getByRole('button', { name: 'View mapping Company styles' }).click();
    await page.getByRole('heading', { name: /managed by your organisation, read-only/ }).waitFor();
    expect(await page.getByLabel('Paragraph', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Delete mapping Company styles' }).count()).toBe(0);
    await world.screenshot(page, 'policy-seeded-template');

    // The seeded pair converts from the Convert page.
    await page.getByRole('link', { name: 'Convert' }).click();
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'Company Report' });
    await page.getByLabel('Paste markdown').fill('Body in the company style.');
    await page.getByRole('button', { name: 'Convert', exact: true }).click();
    await page.getByRole('listitem', { name: 'Pasted text (pasted)' }).getByText('Done').waitFor();
    expect(pageErrors(page)).toEqual([]);
  });

  test('key creation follows the policy: at most one active key', async () => {
    const { page } = await world.signedIn();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Name', { exact: true }).fill('only key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog', { name: 'Your new key “only key”' }).getByRole('button', { name: 'Done' }).click();
    const view = (await (
      await request(`${world.origin}/api/settings`, {
        dispatcher: world.agent,
        headers: { 'x-docwright-admin': world.server.adminToken },
      })
    ).body.json()) as { api_keys: unknown };
    expect(view.api_keys).toEqual({ allowed: false, max: 1, active: 1 });
    await page.getByTestId('keys-refusal').filter({ hasText: 'at most 1 active key' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true);
    await world.screenshot(page, 'policy-key-limit');
  });
});
