import { expect, test, type Page } from '@playwright/test';
import { apiGet, apiPost } from './api-calls';
import { signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const PHONE = { width: 390, height: 844 };
const PLAYBOOK = `- hosts: all
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "hello from {{ inventory_hostname }}"
`;
const LOCAL = 'ansible_connection=local ansible_python_interpreter=/usr/bin/python3';

/** Whether the page scrolls sideways (a phone must not). */
const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.scrollingElement!.scrollWidth > document.scrollingElement!.clientWidth);

test.beforeEach(async ({ page }) => signIn(page));

test('an Ansible task runs over two inventories; Hosts shows each host with its last task, on a desktop and a phone', async ({
  page,
}) => {
  const r = page.request;
  const p = (await apiPost<{ id: number }>(r, '/api/projects', { name: unique('Hosts') })).id;
  const key = (await apiPost<{ id: number }>(r, `/api/project/${p}/keys`, { name: 'none', type: 'none' })).id;
  const repo = (
    await apiPost<{ id: number }>(r, `/api/project/${p}/repositories`, {
      name: 'site',
      git_url: gitRepo({ 'site.yml': PLAYBOOK }),
      ssh_key_id: key,
    })
  ).id;
  const env = (await apiPost<{ id: number }>(r, `/api/project/${p}/environment`, { name: 'vars', json: '{}' })).id;
  const web = (
    await apiPost<{ id: number }>(r, `/api/project/${p}/inventory`, {
      name: 'web servers',
      type: 'static',
      inventory: `[web]\nweb-1.example.com ${LOCAL} http_port=8080 db_password=hunter22`,
    })
  ).id;
  const db = (
    await apiPost<{ id: number }>(r, `/api/project/${p}/inventory`, {
      name: 'databases',
      type: 'static-yaml',
      inventory: `all:\n  children:\n    db:\n      hosts:\n        db-1:\n          ansible_connection: local\n          ansible_python_interpreter: /usr/bin/python3\n`,
    })
  ).id;
  const tpl = (
    await apiPost<{ id: number }>(r, `/api/project/${p}/templates`, {
      name: 'Site',
      app: 'ansible',
      playbook: 'site.yml',
      repository_id: repo,
      environment_id: env,
      inventory_ids: [web, db],
    })
  ).id;
  const task = (await apiPost<{ id: number }>(r, `/api/project/${p}/tasks`, { template_id: tpl })).id;
  await expect
    .poll(async () => (await apiGet<{ status: string }>(r, `/api/project/${p}/tasks/${task}`)).status, {
      timeout: 90_000,
    })
    .toBe('success');

  await page.goto(`/project/${p}/history`);
  await page.getByRole('navigation').getByRole('link', { name: 'Hosts' }).click();
  await expect(page).toHaveURL(new RegExp(`/project/${p}/hosts$`));
  const table = page.getByRole('table', { name: 'Hosts' });
  const row = table.getByRole('row').filter({ hasText: 'web-1.example.com' });
  await expect(row).toContainText('web servers');
  await expect(row.getByRole('link', { name: `#${task}` })).toBeVisible();
  await expect(table.getByRole('row').filter({ hasText: 'db-1' })).toContainText('databases');

  // Search narrows the table; a row opens to its variables (the password hidden) and its last task.
  await page.getByRole('textbox', { name: 'Search hosts' }).fill('db');
  await expect(table.getByRole('row').filter({ hasText: 'web-1.example.com' })).toHaveCount(0);
  await page.getByRole('textbox', { name: 'Search hosts' }).fill('');
  await row.getByRole('button', { name: 'Show details of web-1.example.com' }).click();
  await expect(table).toContainText('"http_port": 8080');
  await expect(table).toContainText('"db_password": "********"');
  await expect(table).not.toContainText('hunter22');
  await expect(table.getByRole('link', { name: `#${task} Site` })).toBeVisible();
  // The row's opening transition is over (for a picture of the whole row).
  await page.waitForTimeout(500);
  await shot(page, 'hosts-desktop');

  // The host's tasks: the history filtered by host.
  await table.getByRole('link', { name: 'All tasks on this host' }).click();
  await expect(page).toHaveURL(/history\?host=web-1\.example\.com/);
  await expect(page.getByRole('textbox', { name: 'Host' })).toHaveValue('web-1.example.com');
  await expect(page.getByRole('cell', { name: 'Site' }).first()).toBeVisible();

  await page.setViewportSize(PHONE);
  await page.goto(`/project/${p}/hosts`);
  const phoneRow = page.getByRole('table', { name: 'Hosts' }).getByRole('row').filter({ hasText: 'web-1.example.com' });
  await expect(phoneRow.getByRole('link', { name: `#${task}` })).toBeVisible();
  await phoneRow.getByRole('button', { name: 'Show details of web-1.example.com' }).click();
  await expect(
    page.getByRole('table', { name: 'Hosts' }).getByText('"http_port": 8080', { exact: false }),
  ).toBeVisible();
  await page.waitForTimeout(500);
  expect(await scrollsSideways(page)).toBe(false);
  await shot(page, 'hosts-phone');
});

test('a URL inventory is offered in the inventory form, refused when it is not http(s), and shows when it was last read', async ({
  page,
}) => {
  const p = (await apiPost<{ id: number }>(page.request, '/api/projects', { name: unique('Url inv') })).id;
  await page.goto(`/project/${p}/inventory`);
  await page.getByRole('button', { name: /New inventory/ }).click();
  await page.getByRole('menuitem', { name: /Ansible/ }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('textbox', { name: 'Name' }).fill('cmdb');
  await dialog.getByRole('combobox', { name: 'Type' }).click();
  await page.getByRole('option', { name: 'URL (fetched by the server)' }).click();
  await dialog.getByRole('textbox', { name: 'URL' }).fill('ftp://cmdb.example.com/inv');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toContainText('The URL must be http(s), without credentials');
  await dialog.getByRole('textbox', { name: 'URL' }).fill('https://cmdb.invalid/inventory.yml');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();
  const row = page.getByRole('row').filter({ hasText: 'cmdb' });
  await expect(row).toContainText('https://cmdb.invalid/inventory.yml');
  await expect(row).toContainText('Not read yet');
  // Listing it (the Hosts page) reads it: the failure is recorded and shown.
  await page.goto(`/project/${p}/hosts`);
  await expect(page.getByRole('alert').filter({ hasText: 'cmdb' })).toBeVisible();
  await page.goto(`/project/${p}/inventory`);
  await expect(page.getByRole('row').filter({ hasText: 'cmdb' })).toContainText('Last read failed');
  await shot(page, 'hosts-url-inventory');
});
