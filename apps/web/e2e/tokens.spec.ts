import { expect, test } from '@playwright/test';
import { signIn } from './helpers';
import { shot } from './shots';

test('create an API token (shown once, masked until revealed), call the API with it, then delete it twice: expired, then removed', async ({ page, playwright }) => {
  await signIn(page);
  await page.goto('/tokens');
  await page.getByRole('button', { name: 'New token' }).click();
  // Never expires unless a lifetime is chosen.
  const create = page.getByRole('dialog', { name: 'New API token' });
  await expect(create.getByRole('combobox', { name: 'Expires' })).toHaveText('Never');
  await create.getByRole('button', { name: 'Create' }).click();
  // Shown this once: masked, with reveal and copy.
  const shown = page.getByTestId('new-token-value');
  await expect(shown).toHaveText(/^•+$/);
  await page.getByRole('button', { name: 'Copy token', exact: true }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('The token has been copied to the clipboard.');
  const value = await page.evaluate(() => navigator.clipboard.readText());
  expect(value).toMatch(/^[a-z0-9]{44}$/);
  await page.getByRole('button', { name: 'Show token', exact: true }).click();
  await expect(shown).toHaveText(value);
  await shot(page, 'token-created');
  await page.getByRole('button', { name: 'Hide token', exact: true }).click();
  await expect(shown).toHaveText(/^•+$/);
  await page.getByRole('button', { name: 'Close' }).click();
  const id = value.slice(0, 8);
  const fresh = page.getByRole('row').filter({ has: page.getByRole('button', { name: `Delete token ${id}` }) });
  await expect(fresh).toContainText('Never');
  // The list knows only the token's public id: masked, with reveal and copy.
  await expect(fresh.getByTestId('token-id')).toHaveText(/^•+$/);
  await fresh.getByRole('button', { name: 'Copy token id' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('The token id has been copied to the clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(id);
  await shot(page, 'tokens');

  const api = await playwright.request.newContext({ baseURL: page.url().split('/tokens')[0] });
  const me = await api.get('/api/user', { headers: { Authorization: `Bearer ${value}` } });
  expect(me.status()).toBe(200);
  expect((await me.json()).username).toBe('admin');

  await fresh.getByRole('button', { name: 'Show token id' }).click();
  await expect(fresh.getByTestId('token-id')).toContainText(id);
  // One verb throughout: the button, the dialog's title and its confirm button all say Delete.
  await fresh.getByRole('button', { name: `Delete token ${id}` }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete token?' });
  await expect(confirm).toContainText(`Delete token ${id}? It stops working at once and stays in the list as Expired.`);
  await shot(page, 'token-delete');
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(fresh).toContainText('Expired');
  expect((await api.get('/api/user', { headers: { Authorization: `Bearer ${value}` } })).status()).toBe(401);

  await fresh.getByRole('button', { name: `Delete token ${id}` }).click();
  await expect(confirm).toContainText(`Delete the expired token ${id}? It is removed from the list.`);
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('button', { name: `Delete token ${id}` })).toHaveCount(0);
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
  await page.getByRole('button', { name: 'Show token', exact: true }).click();
  const value = (await page.getByTestId('new-token-value').textContent())!.trim();
  await page.getByRole('button', { name: 'Close' }).click();

  const listed = (await (await page.request.get('/api/user/tokens')).json()) as { token_id: string; expires: string | null }[];
  const expires = listed.find((tok) => tok.token_id === value.slice(0, 8))!.expires!;
  expect(Date.parse(expires) - before).toBeGreaterThanOrEqual(90 * 86_400_000 - 60_000);
  const shown = await page.evaluate((iso) => new Date(iso).toLocaleString('en'), expires);
  const row = page.getByRole('row').filter({ has: page.getByRole('button', { name: `Delete token ${value.slice(0, 8)}` }) });
  await expect(row).toContainText(shown);
  await expect(row).toContainText('Active');
});
