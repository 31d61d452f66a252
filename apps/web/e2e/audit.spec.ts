import { expect, test } from '@playwright/test';
import { apiGet, apiPost } from './api-calls';
import { seriousAxeFindings } from './axe';
import { openUserMenu, signIn, unique } from './helpers';
import { shot } from './shots';

test('an admin changes a template, finds the change in the audit trail and reads its diff', async ({ page }) => {
  await signIn(page);
  // The page's own session changes a template (the demo project brings some).
  const p = (await apiPost<{ id: number }>(page.request, '/api/projects', { name: unique('Audited'), demo: true })).id;
  const template = (await apiGet<Record<string, unknown>[]>(page.request, `/api/project/${p}/templates`))[0]!;
  const oldName = String(template.name);
  const newName = unique('Deploy shop');
  const put = await page.request.put(`/api/project/${p}/templates/${String(template.id)}`, {
    data: { ...template, name: newName },
    headers: { 'x-gantry-request': '1' },
  });
  expect(put.status(), await put.text()).toBe(204);

  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Audit' }).click();
  await expect(page).toHaveURL(/\/audit$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Audit trail' })).toBeVisible();

  // Filter to template updates: the change is the newest one.
  const filters = page.getByRole('search', { name: 'Audit filters' });
  await filters.getByLabel('Action').click();
  await page.getByRole('option', { name: 'Updated', exact: true }).click();
  await filters.getByLabel('Object type').click();
  await page.getByRole('option', { name: 'Template', exact: true }).click();
  const table = page.getByRole('table', { name: 'Audit trail' });
  const row = table
    .getByRole('row')
    .filter({ hasText: `Template #${String(template.id)}` })
    .first();
  await expect(row).toBeVisible();
  await expect(row).toContainText('admin');
  await expect(table.getByRole('row').filter({ hasText: 'Created' })).toHaveCount(0);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, 'audit');

  // The entry's diff: the name before and after, nothing that did not change.
  await row.getByRole('button', { name: /^Details of entry \d+: Updated$/ }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: /^Entry \d+: Updated$/ })).toBeVisible();
  await expect(dialog.getByTestId('audit-before-name')).toHaveText(oldName);
  await expect(dialog.getByTestId('audit-after-name')).toHaveText(newName);
  await expect(dialog.getByRole('table', { name: 'Changed fields' }).getByRole('row')).toHaveCount(2);
  await expect(dialog.getByText('Session', { exact: true })).toBeVisible();
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
  await shot(page, 'audit-entry');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();

  // At phone width nothing runs off the side.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(row).toBeVisible();
  // Once the layout has settled at the new width: the table scrolls inside its own box.
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'audit-phone');
});
