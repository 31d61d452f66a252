import { expect, test, type Locator, type Page } from '@playwright/test';
import { choose, createProject, openUserMenu, signIn, unique } from './helpers';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };
const dialog = (page: Page) => page.getByRole('dialog');

/** The extra variables sent by the next save of a variable group, parsed. */
async function savedVars(page: Page, save: () => Promise<void>): Promise<unknown> {
  const [request] = await Promise.all([page.waitForRequest((r) => /\/api\/project\/\d+\/environment/.test(r.url()) && ['POST', 'PUT'].includes(r.method())), save()]);
  return JSON.parse((request.postDataJSON() as { json: string }).json);
}

/** Switches the editor to `mode`. */
async function switchTo(extra: Locator, mode: 'Table' | 'JSON'): Promise<void> {
  await extra.getByRole('button', { name: mode, exact: true }).click();
  if (mode === 'JSON') await expect(extra.locator('.cm-content')).toBeVisible();
  else await expect(extra.locator('.cm-content')).toHaveCount(0);
}

/** The JSON the editor shows, parsed. */
async function jsonShown(extra: Locator): Promise<unknown> {
  return JSON.parse((await extra.locator('.cm-content').innerText()).replace(/\u00a0/g, ' '));
}

test.beforeEach(async ({ page }) => signIn(page));

test('variable groups: "Name is required" clears once the name is typed', async ({ page }) => {
  const p = await createProject(page, unique('Vars name'));
  await page.goto(`/project/${p}/environment`);
  await page.getByRole('button', { name: 'New group' }).click();
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  await expect(dialog(page).getByText('Name is required')).toBeVisible();
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('staging');
  await expect(dialog(page).getByText('Name is required')).toHaveCount(0);
  await expect(dialog(page).getByRole('textbox', { name: 'Name', exact: true })).toHaveAttribute('aria-invalid', 'false');
  // Emptied again, it is wrong again at once.
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('');
  await expect(dialog(page).getByText('Name is required')).toBeVisible();
});

test('variable groups: numbers, booleans and null keep their JSON type through table and JSON, and as saved', async ({ page }) => {
  const p = await createProject(page, unique('Vars types'));
  await page.goto(`/project/${p}/environment`);
  await page.getByRole('button', { name: 'New group' }).click();
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('typed');
  const extra = dialog(page).getByTestId('extra-vars');
  const start = { port: 8080, debug: true, zip: '8080', flag: 'true', nothing: null, ratio: 1.5 };
  await switchTo(extra, 'JSON');
  await extra.locator('.cm-content').fill(JSON.stringify(start));
  await switchTo(extra, 'Table');
  await expect(extra.getByRole('combobox', { name: 'Type' })).toHaveText(['Number', 'Boolean', 'Text', 'Text', 'Null', 'Number']);
  await switchTo(extra, 'JSON');
  expect(await jsonShown(extra)).toEqual(start);

  // Edited in the table: a number typed as 9090 stays a number, a text "8080" stays text.
  await switchTo(extra, 'Table');
  // Text boxes (the boolean is a select): port, zip, flag, nothing (null: disabled), ratio.
  const values = extra.getByRole('textbox', { name: 'Value' });
  await values.nth(0).fill('9090');
  await values.nth(1).fill('9090');
  // A new variable can be made a number; text that is not one is marked and JSON waits for it.
  await extra.getByRole('button', { name: 'Add variable' }).click();
  await extra.getByRole('textbox', { name: 'Name' }).last().fill('count');
  await choose(page, extra.getByRole('combobox', { name: 'Type' }).last(), 'Number');
  await values.last().fill('three');
  await expect(extra.getByText('Must be a number')).toBeVisible();
  await expect(extra.getByRole('button', { name: 'JSON', exact: true })).toBeDisabled();
  await expect(page.locator('.MuiPopover-root')).toHaveCount(0);
  await shot(page, 'variable-group-types');
  await values.last().fill('3');
  await expect(extra.getByText('Must be a number')).toHaveCount(0);
  const edited = { ...start, port: 9090, zip: '9090', count: 3 };
  await switchTo(extra, 'JSON');
  expect(await jsonShown(extra)).toEqual(edited);
  await switchTo(extra, 'Table');
  expect(await savedVars(page, () => dialog(page).getByRole('button', { name: 'Create' }).click())).toEqual(edited);
  await expect(dialog(page)).toHaveCount(0);

  // Stored as sent; editing again opens the table with the same types and saves them unchanged.
  const stored = (await (await page.request.get(`/api/project/${p}/environment`)).json()) as { json: string }[];
  expect(JSON.parse(stored[0]!.json)).toEqual(edited);
  await page.getByRole('button', { name: 'Edit typed' }).click();
  await expect(extra.getByRole('combobox', { name: 'Type' })).toHaveText(['Number', 'Boolean', 'Text', 'Text', 'Null', 'Number', 'Number']);
  await choose(page, extra.getByRole('combobox', { name: 'Value' }).first(), 'false');
  await switchTo(extra, 'JSON');
  await switchTo(extra, 'Table');
  expect(await savedVars(page, () => dialog(page).getByRole('button', { name: 'Save' }).click())).toEqual({ ...edited, debug: false });
});

test('inventories: New inventory is a menu of kinds, and the dialog is for the kind chosen', async ({ page }) => {
  const p = await createProject(page, unique('Inventory kinds'));
  expect((await page.request.post(`/api/project/${p}/keys`, { headers: H, data: { name: 'ssh user', type: 'none' } })).status()).toBe(201);
  await page.goto(`/project/${p}/inventory`);
  await page.getByRole('button', { name: 'New inventory' }).click();
  const kinds = page.getByRole('menuitem');
  await expect(kinds).toHaveCount(3);
  await expect(kinds.nth(0)).toContainText('Ansible inventory');
  await expect(kinds.nth(1)).toContainText('Terraform workspace');
  await expect(kinds.nth(2)).toContainText('OpenTofu workspace');
  await expect(page.locator('.MuiMenu-paper')).toHaveCSS('opacity', '1');
  await shot(page, 'inventory-kinds');

  // Ansible: the Type field offers only the Ansible types.
  await kinds.nth(0).click();
  await expect(dialog(page).getByRole('heading', { name: 'New Ansible inventory' })).toBeVisible();
  await dialog(page).getByRole('combobox', { name: 'Type' }).click();
  await expect(page.getByRole('option')).toHaveText(['Static (INI)', 'Static (YAML)', 'File in a repository', 'URL (fetched by the server)']);
  await page.keyboard.press('Escape');
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog(page)).toHaveCount(0);

  // A workspace: its type is fixed, so there is no Type field.
  await page.getByRole('button', { name: 'New inventory' }).click();
  await page.getByRole('menuitem', { name: /OpenTofu workspace/ }).click();
  await expect(dialog(page).getByRole('heading', { name: 'New OpenTofu workspace' })).toBeVisible();
  await expect(dialog(page).getByRole('combobox', { name: 'Type' })).toHaveCount(0);
  await dialog(page).getByRole('textbox', { name: 'Name', exact: true }).fill('tofu prod');
  await choose(page, dialog(page).getByRole('combobox', { name: 'User credentials' }), 'ssh user');
  await dialog(page).getByRole('textbox', { name: 'Workspace name' }).fill('prod');
  await expect(page.locator('.MuiPopover-root')).toHaveCount(0);
  await shot(page, 'inventory-workspace');
  await dialog(page).getByRole('button', { name: 'Create' }).click();
  const row = page.getByRole('row', { name: /tofu prod/ });
  await expect(row).toContainText('OpenTofu workspace');
  await expect(row).toContainText('prod');
  const listed = (await (await page.request.get(`/api/project/${p}/inventory`)).json()) as { type: string; inventory: string }[];
  expect(listed.map((i) => [i.type, i.inventory])).toEqual([['tofu-workspace', 'prod']]);

  await page.getByRole('button', { name: 'Edit tofu prod' }).click();
  await expect(dialog(page).getByRole('heading', { name: 'Edit OpenTofu workspace' })).toBeVisible();
  await expect(dialog(page).getByRole('combobox', { name: 'Type' })).toHaveCount(0);
  await expect(dialog(page).getByRole('textbox', { name: 'Workspace name' })).toHaveValue('prod');
});

test('edit user: the Security tab shows even when two-factor sign-in is off on the server, and says so', async ({ page }) => {
  await page.route('**/api/info', async (route) => {
    const answer = await route.fetch();
    const info = (await answer.json()) as { auth_methods: { totp: { enabled: boolean; allow_recovery: boolean } } };
    info.auth_methods.totp = { enabled: false, allow_recovery: false };
    await route.fulfill({ response: answer, json: info });
  });
  await page.goto('/users');
  // Creating: no Security tab while two-factor sign-in is off.
  await page.getByRole('button', { name: 'New user' }).click();
  await expect(dialog(page).getByRole('tab')).toHaveCount(0);
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();

  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Edit account' }).click();
  const account = page.getByRole('dialog', { name: 'Edit account' });
  await account.getByRole('tab', { name: 'Security' }).click();
  await expect(account.getByRole('heading', { name: 'Two-factor sign-in' })).toBeVisible();
  await expect(account).toContainText('Two-factor sign-in is turned off on this server');
  await expect(account.getByRole('button', { name: 'Enable two-factor sign-in' })).toHaveCount(0);
  await shot(page, 'user-security-off');
});
