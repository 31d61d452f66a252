import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { apiPost } from './api-calls';
import { seriousAxeFindings } from './axe';
import { E2E_ADMIN, choose, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

/** A project with two bash templates: one that fails, one that succeeds (the rollback). */
async function seed(request: APIRequestContext): Promise<{ p: number }> {
  const p = (await apiPost<{ id: number }>(request, '/api/projects', { name: unique('Workflows') })).id;
  const key = await apiPost<{ id: number }>(request, `/api/project/${p}/keys`, { name: 'none', type: 'none' });
  const repo = await apiPost<{ id: number }>(request, `/api/project/${p}/repositories`, {
    name: 'scripts',
    git_url: gitRepo({ 'deploy.sh': 'echo "deploy went wrong"\nexit 3\n', 'rollback.sh': 'echo "rolled back"\n' }),
    ssh_key_id: key.id,
  });
  const env = await apiPost<{ id: number }>(request, `/api/project/${p}/environment`, { name: 'defaults', json: '{}' });
  for (const [name, playbook] of [
    ['Deploy', 'deploy.sh'],
    ['Rollback', 'rollback.sh'],
  ])
    await apiPost(request, `/api/project/${p}/templates`, {
      name,
      app: 'bash',
      playbook,
      repository_id: repo.id,
      environment_id: env.id,
    });
  return { p };
}

/** Focuses a control and presses Enter: how a keyboard user presses a button. */
async function press(control: Locator): Promise<void> {
  await control.focus();
  await control.page().keyboard.press('Enter');
}

/** Opens a select from the keyboard and moves down to the option, then picks it with Enter. */
async function chooseByKeyboard(page: Page, select: Locator, option: string): Promise<void> {
  await select.focus();
  await page.keyboard.press('ArrowDown');
  const listbox = page.getByRole('listbox');
  await expect(listbox).toBeVisible();
  const target = listbox.getByRole('option', { name: option, exact: true });
  for (let i = 0; i < 20 && !(await target.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(listbox).toBeHidden();
  await expect(select).toHaveText(option);
}

/** Whether the page scrolls sideways (a phone's screen must not). */
const sideways = (page: Page) =>
  page.evaluate(() => document.scrollingElement!.scrollWidth > document.scrollingElement!.clientWidth);

test.beforeEach(async ({ page }) => signIn(page));

test('a workflow is built by keyboard, saved, shown again, and runs its failure edge', async ({ page }) => {
  test.setTimeout(150_000);
  const { p } = await seed(page.request);
  await page.goto(`/project/${p}/workflows`);
  await expect(page.getByRole('heading', { name: 'Workflows', level: 1 })).toBeVisible();
  await expect(page.getByText('No workflows yet')).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);

  await press(page.getByRole('main').getByRole('button', { name: 'New workflow' }).first());
  await expect(page).toHaveURL(new RegExp(`/project/${p}/workflows/new$`));
  await page.getByLabel('Name', { exact: false }).first().focus();
  await page.keyboard.type('Deploy with rollback');

  // Two template nodes, each given its template in the node's panel.
  const panel = page.getByTestId('node-panel');
  await press(page.getByRole('button', { name: 'Add template' }));
  await expect(panel.getByRole('heading', { name: 'Template node template-1' })).toBeVisible();
  await chooseByKeyboard(page, panel.getByRole('combobox', { name: 'Template' }), 'Deploy');
  await press(page.getByRole('button', { name: 'Add template' }));
  await expect(panel.getByRole('heading', { name: 'Template node template-2' })).toBeVisible();
  await chooseByKeyboard(page, panel.getByRole('combobox', { name: 'Template' }), 'Rollback');

  // The failure edge, through the edge form.
  const edgeForm = page.getByRole('form', { name: 'Add edge' });
  await chooseByKeyboard(page, edgeForm.getByRole('combobox', { name: 'From' }), 'template-1');
  await chooseByKeyboard(page, edgeForm.getByRole('combobox', { name: 'To' }), 'template-2');
  await chooseByKeyboard(page, edgeForm.getByRole('combobox', { name: 'Condition' }), 'On failure');
  await press(edgeForm.getByRole('button', { name: 'Add edge' }));
  await expect(page.getByTestId('edge-item')).toHaveCount(1);
  await expect(page.getByTestId('workflow-canvas').getByText('On failure')).toBeVisible();

  // An approval node without approvers is refused before saving, naming (and marking) the node.
  await press(page.getByRole('button', { name: 'Add approval' }));
  await press(page.getByRole('button', { name: 'Save', exact: true }));
  await expect(page.getByTestId('workflow-problem')).toHaveText('Approval node "approval-1" needs approvers');
  await expect(page.getByTestId('workflow-canvas').locator('[data-node="approval-1"]')).toHaveAttribute(
    'data-problem',
    'true',
  );
  await expect(
    page
      .getByTestId('node-item')
      .filter({ hasText: 'approval-1' })
      .getByRole('img', { name: 'This node has a problem' }),
  ).toBeVisible();
  await press(page.getByRole('button', { name: 'Remove node approval-1' }).first());
  await expect(page.getByTestId('node-item')).toHaveCount(2);

  await press(page.getByRole('button', { name: 'Save', exact: true }));
  await expect(page.getByTestId('snackbar')).toHaveText('Workflow saved');
  await expect(page).toHaveURL(new RegExp(`/project/${p}/workflows/\\d+$`));
  const workflowId = Number(/workflows\/(\d+)$/.exec(page.url())![1]);

  // Reloaded from the server: the same nodes, templates and edge.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Deploy with rollback', level: 1 })).toBeVisible();
  await expect(page.getByTestId('node-item')).toHaveCount(2);
  await expect(page.getByTestId('node-item').nth(0)).toContainText('Deploy');
  await expect(page.getByTestId('node-item').nth(1)).toContainText('Rollback');
  await expect(page.getByTestId('edge-item')).toContainText('template-1 → template-2');
  await expect(page.getByTestId('edge-item').getByRole('combobox')).toHaveText('On failure');
  await expect(page.getByTestId('workflow-node')).toHaveCount(2);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, 'workflow-editor');

  // Run it: the first node fails, the failure edge runs the rollback, which succeeds.
  await press(page.getByRole('button', { name: 'Run', exact: true }));
  await expect(page).toHaveURL(new RegExp(`/project/${p}/workflows/${workflowId}/runs/\\d+$`));
  const canvas = page.getByTestId('workflow-canvas');
  await expect(canvas.locator('[data-node="template-1"]')).toHaveAttribute('data-status', 'failed', {
    timeout: 60_000,
  });
  await expect(canvas.locator('[data-node="template-2"]')).toHaveAttribute('data-status', 'success', {
    timeout: 60_000,
  });
  const table = page.getByRole('table', { name: 'Nodes' });
  await expect(table.locator('[data-node="template-1"] [data-testid="node-status"]')).toHaveAttribute(
    'data-status',
    'failed',
  );
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Re-run whole' })).toBeEnabled({ timeout: 30_000 });

  // Each try links to its task's log.
  await press(table.getByRole('link', { name: /^Log of try 1: task #\d+$/ }).first());
  await expect(page.getByRole('dialog', { name: /^Task #\d+/ })).toBeVisible();
  await expect(page.getByRole('dialog').getByText('deploy went wrong')).toBeVisible();
  // The task says which run and step it belongs to, with a way back there.
  await expect(page.getByRole('dialog').getByTestId('task-info-run')).toHaveText(/^Workflow run #\d+, step template-1 \(try 1\)$/);
  await expect(page.getByRole('dialog').getByTestId('task-info-run')).toHaveAttribute('href', new RegExp(`/project/${p}/workflows/${workflowId}/runs/\\d+$`));
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toBeHidden();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, 'workflow-run');

  // The list shows the workflow with its node count and last run.
  await page.goto(`/project/${p}/workflows`);
  const row = page.getByRole('row', { name: /Deploy with rollback/ });
  await expect(row).toContainText('2');
  await expect(row.getByTestId('run-status')).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);

  // A phone: nothing scrolls sideways (the canvas scrolls inside itself).
  await page.setViewportSize({ width: 390, height: 844 });
  for (const url of [`/project/${p}/workflows`, `/project/${p}/workflows/${workflowId}`]) {
    await page.goto(url);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await sideways(page), url).toBe(false);
  }
  await expect(page.getByTestId('workflow-node')).toHaveCount(2);
  await shot(page, 'workflow-editor-phone');
  await page.goto(`/project/${p}/workflows/${workflowId}`);
  await page
    .getByRole('link', { name: /^#\d+$/ })
    .first()
    .click();
  await expect(page.getByTestId('workflow-canvas')).toBeVisible();
  expect(await sideways(page)).toBe(false);
  await shot(page, 'workflow-run-phone');
});

test('deleting a workflow another one runs is refused, in words', async ({ page }) => {
  const { p } = await seed(page.request);
  const templateId = (
    (await (await page.request.get(`/api/project/${p}/templates`)).json()) as { id: number; name: string }[]
  ).find((x) => x.name === 'Rollback')!.id;
  const inner = await apiPost<{ id: number }>(page.request, `/api/project/${p}/workflows`, {
    name: 'Inner',
    nodes: [{ id: 'one', type: 'template', template_id: templateId }],
  });
  await apiPost(page.request, `/api/project/${p}/workflows`, {
    name: 'Outer',
    nodes: [{ id: 'nested', type: 'workflow', workflow_id: inner.id }],
  });
  await page.goto(`/project/${p}/workflows`);
  await page
    .getByRole('row', { name: /Inner/ })
    .getByRole('button', { name: /Delete/ })
    .click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('snackbar')).toHaveText('Workflow Outer runs this workflow: change it first');
  await expect(page.getByRole('row', { name: /Inner/ })).toBeVisible();
});

test('a save that meets an ended session keeps the unsaved graph: sign in over the editor and it is saved', async ({
  page,
  playwright,
}) => {
  // The socket would report the ended session by itself; here the save is the first to hear it.
  await page.routeWebSocket(/\/api\/ws/, () => undefined);
  const { p } = await seed(page.request);
  await page.goto(`/project/${p}/workflows/new`);
  await page.getByRole('textbox', { name: 'Name' }).fill('Kept while signed out');
  await page.getByRole('button', { name: 'Add template' }).click();
  await choose(page, page.getByTestId('node-panel').getByRole('combobox', { name: 'Template' }), 'Rollback');

  const other = await playwright.request.newContext({
    baseURL: test.info().project.use.baseURL,
    storageState: await page.context().storageState(),
  });
  expect((await other.post('/api/auth/logout', { headers: { 'x-gantry-request': '1' } })).status()).toBe(204);
  await other.dispose();

  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign in again' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Password', { exact: true }).fill(E2E_ADMIN.password);
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('snackbar')).toHaveText('Workflow saved');
  await expect(page).toHaveURL(new RegExp(`/project/${p}/workflows/\\d+$`));
  const saved = (await (await page.request.get(`/api/project/${p}/workflows`)).json()) as {
    name: string;
    nodes: { id: string }[];
  }[];
  expect(saved).toMatchObject([{ name: 'Kept while signed out', nodes: [{ id: 'template-1' }] }]);
});
