import { expect, test } from '@playwright/test';
import { signIn } from './helpers';
import { shot } from './shots';

test('create an API token, call the API with it, then expire and remove it', async ({ page, playwright }) => {
  await signIn(page);
  await page.goto('/tokens');
  await page.getByRole('button', { name: 'New token' }).click();
  // Never expires unless a lifetime is chosen.
  const create = page.getByRole('dialog', { name: 'New API token' });
  await expect(create.getByRole('combobox', { name: 'Expires' })).toHaveText('Never');
  await create.getByRole('button', { name: 'Create' }).click();
  const value = (await page.getByTestId('new-token-value').textContent())!.trim();
  expect(value).toMatch(/^[a-z0-9]{44}$/);
  await page.getByRole('button', { name: 'Copy' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('The token has been copied to the clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
  await page.getByRole('button', { name: 'Close' }).click();
  const fresh = page.getByRole('row').filter({ has: page.getByRole('button', { name: `Expire token ${value.slice(0, 8)}` }) });
  await expect(fresh).toContainText('Never');
  await shot(page, 'tokens');

  const api = await playwright.request.newContext({ baseURL: page.url().split('/tokens')[0] });
  const me = await api.get('/api/user', { headers: { Authorization: `Bearer ${value}` } });
  expect(me.status()).toBe(200);
  expect((await me.json()).username).toBe('admin');

  const row = page.getByRole('row', { name: /Active/ }).first();
  await row.getByRole('button', { name: 'Show token id' }).click();
  await expect(row.getByTestId('token-id')).toContainText(value.slice(0, 8));
  await page.getByRole('button', { name: `Expire token ${value.slice(0, 8)}` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('row', { name: /Expired/ })).toBeVisible();
  expect((await api.get('/api/user', { headers: { Authorization: `Bearer ${value}` } })).status()).toBe(401);

  await page.getByRole('button', { name: `Delete token ${value.slice(0, 8)}` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('row', { name: /Expired/ })).toHaveCount(0);
  await api.dispose();
});

test('a token can be given a lifetime, shown in the Expires column', async ({ page }) => {
  await signIn(page);
  await page.goto('/tokens');
  await page.getByRole('button', { name: 'New token' }).click();
  const create = page.getByRole('dialog', { name: 'New API token' });
  await create.getByRole('combobox', { name: 'Expires' }).click();
  await expect(page.getByRole('option')).toHaveText(['Never', '30 days', '90 days', '365 days']);
  await page.getByRole('option', { name: '90 days' }).click();
  await shot(page, 'token-create');
  const before = Date.now();
  await create.getByRole('button', { name: 'Create' }).click();
  const value = (await page.getByTestId('new-token-value').textContent())!.trim();
  await page.getByRole('button', { name: 'Close' }).click();

  const listed = (await (await page.request.get('/api/user/tokens')).json()) as { token_id: string; expires: string | null }[];
  const expires = listed.find((tok) => tok.token_id === value.slice(0, 8))!.expires!;
  expect(Date.parse(expires) - before).toBeGreaterThanOrEqual(90 * 86_400_000 - 60_000);
  const shown = await page.evaluate((iso) => new Date(iso).toLocaleString('en'), expires);
  const row = page.getByRole('row').filter({ has: page.getByRole('button', { name: `Expire token ${value.slice(0, 8)}` }) });
  await expect(row).toContainText(shown);
  await expect(row).toContainText('Active');
});
