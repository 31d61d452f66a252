import { expect, test } from '@playwright/test';
import { signIn } from './helpers';
import { shot } from './shots';

test('an admin creates a global runner, sees its token and key once, toggles, edits and deletes it', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signIn(page);
  await page.goto('/runners');
  await expect(page.getByRole('heading', { name: 'Runners' })).toBeVisible();
  const name = `e2e-runner-${Date.now().toString(36)}`;

  await page.getByRole('button', { name: 'New runner' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('Name is required', { exact: true })).toBeVisible();
  await expect(dialog.getByRole('textbox', { name: 'Max parallel tasks' })).toHaveValue('0');
  await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
  await dialog.getByRole('textbox', { name: 'Tag', exact: true }).fill('linux');
  await dialog.getByRole('button', { name: 'Create' }).click();

  // Shown once: the token and the private key, with the ways to start the runner.
  const created = page.getByRole('dialog', { name: `Runner ${name} created` });
  await expect(created).toBeVisible();
  const token = (await created.getByTestId('runner-token').textContent()) ?? '';
  expect(token).toMatch(/^[a-z0-9]{48}$/);
  await expect(created.getByTestId('runner-private-key')).toContainText('BEGIN PRIVATE KEY');
  await expect(created.getByTestId('runner-usage')).toContainText(`GANTRY_RUNNER_TOKEN=${token}`);
  await shot(page, 'runners-created');
  await created.getByRole('button', { name: 'Copy the token' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('The token has been copied to the clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  await created.getByRole('tab', { name: 'Docker' }).click();
  await expect(created.getByTestId('runner-usage')).toContainText('docker run');
  await created.getByRole('button', { name: 'Copy the command' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('The command has been copied to the clipboard.');
  await created.getByRole('button', { name: 'Close' }).click();
  await expect(created).toHaveCount(0);

  // Listed without any secret; never contacted yet.
  const row = page.getByRole('row', { name: new RegExp(name) });
  await expect(row).toContainText('linux');
  await expect(row).toContainText('Never');
  await expect(row).toContainText('∞');
  const listed = await (await page.request.get('/api/runners')).json();
  expect(JSON.stringify(listed)).not.toContain(token);
  await shot(page, 'runners-list');

  const active = page.getByLabel(`Active: ${name}`);
  await expect(active).toBeChecked();
  await active.click();
  await expect(page.getByTestId('snackbar')).toHaveText(`Runner ${name} deactivated`);
  await expect(active).not.toBeChecked();

  await row.getByRole('button', { name: `Clear cache of ${name}` }).click();
  await expect(page.getByTestId('snackbar')).toHaveText(`${name} will clear its cache at its next poll.`);

  await page.getByRole('button', { name: `Edit ${name}` }).click();
  const edit = page.getByRole('dialog');
  await edit.getByRole('textbox', { name: 'Max parallel tasks' }).fill('3');
  await edit.getByRole('textbox', { name: 'Name', exact: true }).fill(`${name}-b`);
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText(`Runner ${name}-b saved`);
  const edited = page.getByRole('row', { name: new RegExp(`${name}-b`) });
  await expect(edited).toContainText('3');

  await page.getByRole('button', { name: `Delete ${name}-b` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText(`Runner ${name}-b deleted`);
  await expect(page.getByRole('row', { name: new RegExp(name) })).toHaveCount(0);
});
