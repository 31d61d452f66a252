import { expect, test } from '@playwright/test';
import { openUserMenu, signIn } from './helpers';
import { shot } from './shots';

test('an admin manages applications: built-ins, the active switch, and a custom app from create to delete', async ({
  page,
}) => {
  await signIn(page);
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Applications' }).click();
  await expect(page).toHaveURL(/\/apps$/);
  await expect(page.getByRole('heading', { name: 'Applications' })).toBeVisible();
  // This machine has bubblewrap: the processes apps start run sandboxed, and the page says so.
  await expect(page.getByTestId('sandbox-status')).toHaveText(/^Tasks run sandboxed with bubblewrap/);
  const sandbox = await (await page.request.get('/api/sandbox')).json();
  expect(sandbox).toMatchObject({ mode: 'bwrap', requested: 'auto', network_requested: 'isolated' });
  // Under it, what a probe started exactly as a task measured: never root, no capability, own network.
  expect(sandbox.probe).toMatchObject({ error: null, network: expect.stringMatching(/^(isolated|loopback-only)$/) });
  expect(sandbox.probe.uid).toBeGreaterThan(0);
  expect(sandbox.probe.capabilities).toMatch(/^0+$/);
  const probe = page.getByRole('list', { name: 'What tasks really get (measured)' });
  const user = probe.getByText(/^Tasks run as: /);
  await expect(user).toHaveText(
    sandbox.probe.user
      ? `Tasks run as: ${sandbox.probe.user} (uid ${sandbox.probe.uid})`
      : `Tasks run as: uid ${sandbox.probe.uid}`,
  );
  await expect(user).not.toHaveText(/uid 0\)?$/);
  const capabilities = probe.getByText('Capabilities: none', { exact: true });
  await expect(capabilities).toBeVisible();
  await expect(probe.getByText(/^Network: /)).toHaveText(
    sandbox.probe.network === 'isolated'
      ? "Network: own network namespace, outside hosts reachable, this host's loopback not"
      : 'Network: own network namespace without a way out (install slirp4netns)',
  );
  // Each row's icon names its severity, so it is not told by colour alone.
  await expect(
    probe.getByRole('listitem').filter({ hasText: 'Capabilities: none' }).getByRole('img', { name: 'OK' }),
  ).toBeVisible();
  await expect(probe.getByText('Tasks run as root', { exact: true })).toHaveCount(0);
  // As root (CI), the server says so, and that tasks run as another user without any capability.
  await expect(probe.getByText(/^The server runs as root; tasks run as /)).toHaveText(
    sandbox.server_uid === 0
      ? `The server runs as root; tasks run as ${sandbox.probe.user ?? `uid ${sandbox.probe.uid}`} without any capability`
      : [],
  );
  for (const title of [
    'Ansible Playbook',
    'Terraform Code',
    'OpenTofu Code',
    'Bash Script',
    'Python Script',
    'PowerShell Script',
    'Pulumi Code',
  ]) {
    await expect(page.getByRole('row', { name: new RegExp(title) })).toBeVisible();
  }
  // Default apps can be edited but not deleted.
  await expect(page.getByRole('button', { name: 'Edit Bash Script' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Delete Bash Script' })).toHaveCount(0);

  // The switch applies at once, and the list the template form reads follows it.
  const python = page.getByLabel('Python Script active');
  await expect(python).toBeChecked();
  await python.click();
  await expect(page.getByTestId('snackbar')).toHaveText('App Python Script deactivated');
  await expect(python).not.toBeChecked();
  const listed = async () =>
    (await (await page.request.get('/api/apps')).json()).find((a: { id: string }) => a.id === 'python').active;
  expect(await listed()).toBe(false);
  await python.click();
  await expect(page.getByTestId('snackbar')).toHaveText('App Python Script activated');
  await expect(python).toBeChecked();
  expect(await listed()).toBe(true);

  // A custom app: the form checks the id and path with the server's rules first.
  const id = `e2e-${Date.now().toString(36)}`;
  await page.getByRole('button', { name: 'New app' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('ID is required', { exact: true })).toBeVisible();
  await dialog.getByRole('textbox', { name: 'ID', exact: true }).fill(id);
  await dialog.getByRole('textbox', { name: 'Title', exact: true }).fill('E2E Tool');
  await dialog.getByRole('textbox', { name: 'Path', exact: true }).fill('bin/sh');
  await dialog.getByRole('textbox', { name: 'Priority', exact: true }).fill('50');
  await dialog.getByRole('textbox', { name: 'Arguments', exact: true }).fill('-e');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('Path must be an executable name or an absolute path')).toBeVisible();
  await expect(dialog.getByText('Arguments must be a JSON list of strings')).toBeVisible();
  await dialog.getByRole('textbox', { name: 'Path', exact: true }).fill('/bin/sh');
  await dialog.getByRole('textbox', { name: 'Arguments', exact: true }).fill('["-e"]');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('App E2E Tool created');
  await expect(dialog).toHaveCount(0);
  const row = page.getByRole('row', { name: new RegExp(id) });
  await expect(row).toContainText('E2E Tool');
  await expect(row).toContainText('/bin/sh -e');
  await expect(row.getByLabel('E2E Tool active')).toBeChecked();
  // Priority 50 puts it above the built-ins.
  await expect(page.getByRole('row').nth(1)).toContainText(id);
  await shot(page, 'apps');
  await page.screenshot({ path: '/tmp/apps.png' });

  await page.getByRole('button', { name: 'Edit E2E Tool' }).click();
  await expect(dialog.getByRole('textbox', { name: 'ID', exact: true })).toHaveCount(0);
  await expect(dialog.getByRole('textbox', { name: 'Arguments', exact: true })).toHaveValue('["-e"]');
  await dialog.getByRole('textbox', { name: 'Title', exact: true }).fill('E2E Tool Renamed');
  await dialog.getByRole('textbox', { name: 'Priority', exact: true }).fill('-1');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('App E2E Tool Renamed saved');
  await expect(row).toContainText('E2E Tool Renamed');
  await expect(page.getByRole('row').last()).toContainText(id);

  await page.getByRole('button', { name: 'Delete E2E Tool Renamed' }).click();
  await expect(dialog).toContainText('Delete app?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('App E2E Tool Renamed deleted');
  await expect(row).toHaveCount(0);
});

test('non-admins see no Applications link', async ({ page }) => {
  await signIn(page);
  const login = `apps${Date.now().toString(36)}`;
  const res = await page.request.post('/api/users', {
    data: { name: 'Plain User', username: login, email: `${login}@example.com`, password: 'plain-pass' },
    headers: { 'x-gantry-request': '1' },
  });
  expect(res.status()).toBe(201);
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await signIn(page, login, 'plain-pass');
  await openUserMenu(page);
  await expect(page.getByRole('menuitem', { name: 'Users' })).toHaveCount(0);
  await expect(page.getByRole('menuitem', { name: 'Applications' })).toHaveCount(0);
});
