import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { choose, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };
const PHONE = { width: 390, height: 844 };

/** A project with three variable groups and a bash template on the first one, printing what it got. */
async function setup(request: APIRequestContext) {
  const post = async (path: string, data: object) => {
    const res = await request.post(`/api${path}`, { data, headers: H });
    expect(res.status(), await res.text()).toBe(201);
    return ((await res.json()) as { id: number }).id;
  };
  const p = await post('/projects', { name: unique('Choices') });
  const key = await post(`/project/${p}/keys`, { name: 'none', type: 'none' });
  const repo = await post(`/project/${p}/repositories`, {
    name: 'scripts',
    git_url: gitRepo({ 'run.sh': 'echo "colour=$colour A=$A"\n' }),
    ssh_key_id: key,
  });
  const groups = {
    base: await post(`/project/${p}/environment`, { name: 'base', json: '{"colour": "blue"}', env: '{"A": "base"}' }),
    override: await post(`/project/${p}/environment`, { name: 'override', json: '{"colour": "green"}' }),
    staging: await post(`/project/${p}/environment`, { name: 'staging', json: '{"colour": "red"}' }),
  };
  const tpl = await post(`/project/${p}/templates`, {
    name: 'Paint',
    app: 'bash',
    playbook: 'run.sh',
    repository_id: repo,
    environment_id: groups.base,
  });
  return { p, tpl, groups };
}

async function logOf(page: Page, p: number, id: number): Promise<string> {
  await expect
    .poll(
      async () =>
        ((await (await page.request.get(`/api/project/${p}/tasks/${id}`)).json()) as { status: string }).status,
      {
        timeout: 60_000,
      },
    )
    .toBe('success');
  const lines = (await (await page.request.get(`/api/project/${p}/tasks/${id}/output`)).json()) as Array<{
    output: string;
  }>;
  return lines.map((l) => l.output).join('\n');
}

/** A menu's closing transition is over (for a picture without a fading menu). */
async function settle(page: Page): Promise<void> {
  await expect(page.getByRole('listbox')).toHaveCount(0);
  await page.waitForTimeout(400);
}

/** Whether the page scrolls sideways (a phone must not). */
const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.scrollingElement!.scrollWidth > document.scrollingElement!.clientWidth);

test.beforeEach(async ({ page }) => signIn(page));

test('a template gets a second variable group and a run-time group choice; a task runs with the group chosen', async ({
  page,
}) => {
  const { p, tpl, groups } = await setup(page.request);
  await page.goto(`/project/${p}/templates/${tpl}/tasks`);
  await page.getByRole('button', { name: 'Edit template' }).click();
  const dialog = page.getByRole('dialog');
  // The second group merges over the first.
  await choose(page, dialog.getByRole('combobox', { name: 'Variable groups', exact: false }).first(), 'override');
  await expect(dialog.getByRole('button', { name: '2. override' })).toBeVisible();
  await settle(page);
  await shot(page, 'run-choices-template-groups');
  const section = dialog.getByTestId('run-choices-section');
  await section.getByRole('checkbox', { name: 'Allow choosing the variable group' }).check();
  const offered = section.getByRole('combobox', { name: 'Variable groups to choose from' });
  await choose(page, offered, 'staging');
  await choose(page, offered, 'override');
  await settle(page);
  await shot(page, 'run-choices-template-form');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  const saved = (await (await page.request.get(`/api/project/${p}/templates/${tpl}`)).json()) as {
    environment_ids: number[];
    task_params: { allow_override_environment: boolean; environment_choices: number[] };
  };
  expect(saved.environment_ids).toEqual([groups.base, groups.override]);
  expect(saved.task_params).toMatchObject({
    allow_override_environment: true,
    environment_choices: [groups.staging, groups.override],
  });

  // Without a choice: both groups, merged in order.
  const merged = await page.request.post(`/api/project/${p}/tasks`, { data: { template_id: tpl }, headers: H });
  expect(await logOf(page, p, ((await merged.json()) as { id: number }).id)).toContain('colour=green A=base');

  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const run = page.getByRole('dialog');
  const group = run.getByRole('combobox', { name: 'Variable group' });
  await group.click();
  // Only what the template offers (and its own groups).
  await expect(page.getByRole('option')).toHaveText(["The template's variable groups", 'staging', 'override']);
  await page.getByRole('option', { name: 'staging' }).click();
  await settle(page);
  await shot(page, 'run-choices-new-task');
  await run.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page).toHaveURL(/[?&]t=\d+/);
  const id = Number(new URL(page.url()).searchParams.get('t'));
  const task = (await (await page.request.get(`/api/project/${p}/tasks/${id}`)).json()) as { environment_id: number };
  expect(task.environment_id).toBe(groups.staging);
  // The chosen group replaces the template's: nothing of base.
  expect(await logOf(page, p, id)).toContain('colour=red A=');

  // A re-run offers the same choice again, and runs with it.
  await page.goto(`/project/${p}/history`);
  await page.getByRole('button', { name: `Re-run task #${id}` }).click();
  const again = page.getByRole('dialog', { name: 'New task: Paint' });
  await expect(again.getByRole('combobox', { name: 'Variable group' })).toHaveText('staging');
  await again.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]t=(?!${id}\\b)\\d+`));
  const rerun = Number(new URL(page.url()).searchParams.get('t'));
  expect(
    ((await (await page.request.get(`/api/project/${p}/tasks/${rerun}`)).json()) as { environment_id: number })
      .environment_id,
  ).toBe(groups.staging);
});

test('on a 390 px phone the template form and the new task form with run-time choices fit the width', async ({
  page,
}) => {
  const { p, tpl, groups } = await setup(page.request);
  const put = await page.request.put(`/api/project/${p}/templates/${tpl}`, {
    data: {
      name: 'Paint',
      app: 'bash',
      playbook: 'run.sh',
      environment_ids: [groups.base, groups.override],
      allow_override_branch_in_task: true,
      task_params: {
        allow_override_environment: true,
        environment_choices: [groups.staging],
        branch_choices: ['main', 'release-2026'],
      },
    },
    headers: H,
  });
  expect(put.status(), await put.text()).toBe(204);
  await page.setViewportSize(PHONE);
  await page.goto(`/project/${p}/templates/${tpl}/tasks`);
  await page.getByRole('button', { name: 'Edit template' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('button', { name: '2. override' })).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'release-2026' })).toBeVisible();
  await dialog.getByTestId('run-choices-section').scrollIntoViewIfNeeded();
  await settle(page);
  await shot(page, 'run-choices-template-form-phone');
  expect(await scrollsSideways(page)).toBe(false);
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const run = page.getByRole('dialog');
  await choose(page, run.getByRole('combobox', { name: 'Branch' }), 'release-2026');
  await expect(run.getByRole('combobox', { name: 'Variable group' })).toHaveText("The template's variable groups");
  await settle(page);
  await shot(page, 'run-choices-new-task-phone');
  expect(await scrollsSideways(page)).toBe(false);
});
