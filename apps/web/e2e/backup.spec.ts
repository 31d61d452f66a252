import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { createProject, signIn, unique } from './helpers';
import { shot } from './shots';

test.beforeEach(async ({ page }) => signIn(page));

const H = { 'x-gantry-request': '1' };

test('settings: back up (a file download without secrets) and clear the cache; restore the file as a new project', async ({
  page,
}, info) => {
  const name = unique('Backed up');
  const p = await createProject(page, name);
  const key = await page.request.post(`/api/project/${p}/keys`, {
    data: {
      name: 'deploy login',
      type: 'login_password',
      login_password: { login: 'deploy', password: 'e2e-secret-pw' },
    },
    headers: H,
  });
  expect(key.status()).toBe(201);
  expect(
    (
      await page.request.post(`/api/project/${p}/environment`, { data: { name: 'vars', json: '{"a":1}' }, headers: H })
    ).status(),
  ).toBe(201);

  await page.getByRole('tab', { name: 'Settings' }).click();
  const maintenance = page.getByTestId('project-maintenance');
  await expect(maintenance.getByRole('button', { name: 'Backup' })).toBeVisible();
  await shot(page, 'settings-backup');

  const downloading = page.waitForEvent('download');
  const started = Date.now();
  await maintenance.getByRole('button', { name: 'Backup' }).click();
  await expect(maintenance.getByRole('button', { name: 'Clear cache' })).toBeDisabled();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(new RegExp(`^gantry-project-${p}-Backed-up-[a-z0-9]+\\.json$`));
  const file = info.outputPath(download.suggestedFilename());
  await download.saveAs(file);
  const text = fs.readFileSync(file, 'utf8');
  expect(text).not.toContain('e2e-secret-pw');
  const backup = JSON.parse(text);
  expect(backup.meta.name).toBe(name);
  expect(backup.keys).toEqual([{ id: 1, name: 'deploy login', type: 'login_password' }]);
  await expect(page.getByTestId('snackbar')).toHaveText('Project exported.');
  // The spec's pacing: 1 s before the call and 1 s after it.
  expect(Date.now() - started).toBeGreaterThanOrEqual(2000);

  await maintenance.getByRole('button', { name: 'Clear cache' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('Project cache cleaned.');
  await page.getByRole('tab', { name: 'Activity' }).click();
  await expect(page.getByText('Project cache cleared')).toBeVisible();
  await expect(page.getByText(`Project ${name} exported`)).toBeVisible();

  // Restore: reached from the project switcher, next to "New project…".
  await page.getByTestId('project-switcher').click();
  await page.getByRole('menuitem', { name: 'Restore project…' }).click();
  await expect(page).toHaveURL(/\/project\/restore$/);
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.getByText('Backup file is required')).toBeVisible();

  fs.writeFileSync(info.outputPath('not-a-backup.json'), '{"hello": 1}');
  await page.getByTestId('backup-file').setInputFiles(info.outputPath('not-a-backup.json'));
  await expect(page.getByText('This file is not a project backup')).toBeVisible();

  await page.getByTestId('backup-file').setInputFiles(file);
  await expect(page.getByTestId('backup-file-name')).toHaveText(download.suggestedFilename());
  await expect(page.getByLabel('Project name')).toHaveValue(name);
  const restoredName = unique('Restored');
  await page.getByLabel('Project name').fill(restoredName);
  await page.getByRole('button', { name: 'Restore', exact: true }).click();

  const dialog = page.getByRole('dialog', { name: 'Project restored' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(`Project ${restoredName} has been restored.`);
  // Each secret the backup could not hold is named: here the one key.
  const empty = dialog.getByTestId('restore-empty-secrets');
  await expect(empty).toContainText('1 secret came back empty; fill it in before running tasks:');
  await expect(empty.getByRole('listitem')).toHaveText(['Key “deploy login”']);
  // Wait for the dialog's fade-in to end before the picture.
  await expect(page.locator('.MuiDialog-container')).toHaveCSS('opacity', '1');
  await shot(page, 'restore-result');
  await dialog.getByRole('button', { name: 'Open project' }).click();

  await expect(page).toHaveURL(/\/project\/\d+\/history$/);
  const restoredId = Number(/\/project\/(\d+)\//.exec(page.url())![1]);
  expect(restoredId).not.toBe(p);
  await expect(page.getByTestId('current-project-name')).toHaveText(restoredName);
  await expect(page.getByTestId('current-project-role')).toHaveText('Owner');
  await page.goto(`/project/${restoredId}/keys`);
  await expect(page.getByRole('row', { name: /deploy login/ })).toContainText('empty');
});

test('a server complaint about the backup shows atop the restore form', async ({ page }, info) => {
  await page.goto('/project/new');
  await page.getByRole('link', { name: 'Restore from a backup' }).click();
  await expect(page).toHaveURL(/\/project\/restore$/);
  const file = info.outputPath('broken.json');
  fs.writeFileSync(file, JSON.stringify({ meta: { format: 'gantry-project-backup', version: 2, name: 'Future' } }));
  await page.getByTestId('backup-file').setInputFiles(file);
  await expect(page.getByLabel('Project name')).toHaveValue('Future');
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText(/^Invalid backup: meta\.version: Unsupported backup version/);
});

test('a Semaphore backup restores through the console, listing what it could not carry over; settings download one', async ({
  page,
}, info) => {
  const fixture = JSON.parse(
    fs.readFileSync(new URL('../../server/src/modules/backup/fixtures/semaphore-backup.json', import.meta.url), 'utf8'),
  );
  const file = info.outputPath('semaphore-homelab.json');
  fs.writeFileSync(file, JSON.stringify(fixture));
  await page.goto('/project/restore');
  await page.getByTestId('backup-file').setInputFiles(file);
  await expect(page.getByLabel('Project name')).toHaveValue('Homelab');
  const name = unique('From Semaphore');
  await page.getByLabel('Project name').fill(name);
  await page.getByRole('button', { name: 'Restore', exact: true }).click();

  const dialog = page.getByRole('dialog', { name: 'Project restored' });
  await expect(dialog).toContainText(`Project ${name} has been restored.`);
  await expect(dialog.getByTestId('restore-empty-secrets')).toContainText('secrets came back empty; fill them in before running tasks:');
  const unmapped = dialog.getByTestId('restore-unmapped');
  await expect(unmapped).toContainText('items from the backup could not be carried over:');
  await expect(unmapped.getByRole('listitem')).toHaveCount(21);
  await expect(unmapped).toContainText('Key "API token": type "string" is not supported; left out');
  await expect(unmapped).toContainText(
    'Template "Prod playbook": inventory "Decommissioned hosts" is not restored, and an Ansible template needs one; left out',
  );
  await expect(page.locator('.MuiDialog-container')).toHaveCSS('opacity', '1');
  await shot(page, 'restore-semaphore-result');
  await dialog.getByRole('button', { name: 'Update keys' }).click();
  await expect(page).toHaveURL(/\/project\/\d+\/keys$/);
  await expect(page.getByRole('row', { name: /Vault password/ })).toContainText('empty');

  // The restored project goes back out in Semaphore's format: names as references.
  const restoredId = Number(/\/project\/(\d+)\//.exec(page.url())![1]);
  await page.goto(`/project/${restoredId}/settings`);
  const maintenance = page.getByTestId('project-maintenance');
  const downloading = page.waitForEvent('download');
  await maintenance.getByRole('button', { name: 'Download in Semaphore format' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(
    new RegExp(`^semaphore-project-${restoredId}-From-Semaphore-[a-z0-9]+\\.json$`),
  );
  const saved = info.outputPath(download.suggestedFilename());
  await download.saveAs(saved);
  const sem = JSON.parse(fs.readFileSync(saved, 'utf8'));
  expect(sem.meta).toMatchObject({ name, alert: true, alert_chat: 'ops-room', max_parallel_tasks: 2 });
  expect(sem.meta.format).toBeUndefined();
  expect(sem.templates.find((t: { name: string }) => t.name === 'Deploy app')).toMatchObject({
    build_template: 'Build app',
    repository: 'infra',
  });
  await expect(page.getByTestId('snackbar')).toHaveText('Project exported.');
});
