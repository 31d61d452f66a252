import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiGet, apiPost } from './api-calls';
import { seriousAxeFindings } from './axe';
import { choose, createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

/** The text under a form field (its accessible description): its message, or its help. */
const help = (field: Locator) =>
  field.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  );

/** A bash template through the API (without parameters unless given: the first test adds them in the editor). */
async function bashTemplate(
  page: Page,
  p: number,
  surveyVars: unknown[] = [],
  script = 'echo "port=$port dry=$dry tiers=$tiers"\n',
): Promise<number> {
  const key = await apiPost<{ id: number }>(page.request, `/api/project/${p}/keys`, { name: 'none', type: 'none' });
  const repo = await apiPost<{ id: number }>(page.request, `/api/project/${p}/repositories`, {
    name: 'scripts',
    git_url: gitRepo({ 'run.sh': script }),
    ssh_key_id: key.id,
  });
  const env = await apiPost<{ id: number }>(page.request, `/api/project/${p}/environment`, { name: 'defaults' });
  const tpl = await apiPost<{ id: number }>(page.request, `/api/project/${p}/templates`, {
    name: 'Deploy',
    app: 'bash',
    playbook: 'run.sh',
    repository_id: repo.id,
    environment_id: env.id,
    survey_vars: surveyVars,
  });
  return tpl.id;
}

/** Adds a parameter in the template editor: its name, title and type; returns its group. */
async function addParameter(page: Page, n: number, name: string, title: string, type: string): Promise<Locator> {
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Add variable' }).click();
  const group = dialog.getByRole('group', { name: `Survey variable ${n}` });
  await group.getByRole('textbox', { name: 'Name' }).first().fill(name);
  await group.getByRole('textbox', { name: 'Title' }).fill(title);
  await choose(page, group.getByRole('combobox', { name: 'Type' }), type);
  return group;
}

test.beforeEach(async ({ page }) => signIn(page));

test('typed parameters: edited in the template form, every problem shown at once in the run dialog, typed answers stored', async ({
  page,
}) => {
  const p = await createProject(page, unique('Params'));
  const id = await bashTemplate(page, p);
  await page.goto(`/project/${p}/templates/${id}`);
  await page.getByRole('button', { name: 'Edit template' }).click();
  const dialog = page.getByRole('dialog');

  const port = await addParameter(page, 1, 'port', 'Port', 'Integer');
  await port.getByRole('checkbox', { name: 'Required' }).check();
  await port.getByRole('spinbutton', { name: 'Minimum' }).fill('10');
  await port.getByRole('spinbutton', { name: 'Maximum' }).fill('1');
  const dry = await addParameter(page, 2, 'dry', 'Dry run', 'Yes/no');
  await choose(page, dry.getByRole('combobox', { name: 'Default value' }), 'Yes (true)');
  const tiers = await addParameter(page, 3, 'tiers', 'Tiers', 'Multiple choice');
  await tiers.getByRole('checkbox', { name: 'Required' }).check();
  for (const [k, [name, value]] of [
    ['Web', 'web'],
    ['Database', 'db'],
  ].entries()) {
    await tiers.getByRole('button', { name: 'Add value' }).click();
    await tiers
      .getByRole('textbox', { name: 'Name' })
      .nth(k + 1)
      .fill(name!);
    await tiers.getByRole('textbox', { name: 'Value' }).nth(k).fill(value!);
  }
  const slug = await addParameter(page, 4, 'slug', 'Slug', 'String');
  await slug.getByRole('textbox', { name: 'Pattern (regular expression)' }).fill('[a-z]+(-[a-z]+)*');
  await addParameter(page, 5, 'day', 'Day', 'Date');

  // The largest value below the smallest: refused at its field, nothing saved.
  await dialog.getByRole('button', { name: 'Save' }).click();
  const max = port.getByRole('spinbutton', { name: 'Maximum' });
  await expect.poll(() => help(max)).toBe('Port: the largest value must not be below the smallest');
  await max.fill('100');
  await shot(page, 'parameters-editor');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  const saved = await apiGet<{
    survey_vars: Array<{ name: string; type: string; min?: number; max?: number; default_value: string }>;
  }>(page.request, `/api/project/${p}/templates/${id}`);
  expect(saved.survey_vars.map((v) => [v.name, v.type])).toEqual([
    ['port', 'int'],
    ['dry', 'boolean'],
    ['tiers', 'multi_enum'],
    ['slug', ''],
    ['day', 'date'],
  ]);
  expect(saved.survey_vars[0]).toMatchObject({ min: 10, max: 100 });
  expect(saved.survey_vars[1]!.default_value).toBe('true');

  // The run dialog: each type its control; three problems, all shown after one attempt.
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const run = page.getByRole('dialog');
  const portField = run.getByRole('spinbutton', { name: 'Port' });
  const slugField = run.getByRole('textbox', { name: 'Slug' });
  const tiersField = run.getByRole('combobox', { name: 'Tiers' });
  await expect(run.getByRole('switch', { name: 'Dry run' })).toBeChecked();
  await portField.fill('500');
  await slugField.fill('Not A Slug');
  await run.getByRole('button', { name: 'Run', exact: true }).click();
  await expect.poll(() => help(portField)).toBe('Port must be at most 100');
  expect(await help(slugField)).toBe('Slug does not match the required pattern');
  await expect(run.getByText('Tiers is required')).toBeVisible();
  await shot(page, 'parameters-run-errors');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'parameters-run-errors-phone');
  await page.setViewportSize({ width: 1366, height: 860 });

  await portField.fill('42');
  await slugField.fill('blue-green');
  await tiersField.click();
  await page.getByRole('option', { name: 'Web' }).click();
  await page.getByRole('option', { name: 'Database' }).click();
  await page.keyboard.press('Escape');
  await run.getByRole('switch', { name: 'Dry run' }).uncheck();
  await run.getByLabel('Day').fill('2026-03-01');
  await run.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page).toHaveURL(/\?t=\d+/);
  const taskId = Number(new URL(page.url()).searchParams.get('t'));
  const task = await apiGet<{ environment: string }>(page.request, `/api/project/${p}/tasks/${taskId}`);
  expect(JSON.parse(task.environment)).toEqual({
    port: 42,
    dry: false,
    tiers: ['web', 'db'],
    slug: 'blue-green',
    day: '2026-03-01',
  });
  await expect(page.getByText('port=42 dry=false tiers=["web","db"]')).toBeVisible();
});

test("a schedule's form answers its template's parameters and keeps them typed", async ({ page }) => {
  const p = await createProject(page, unique('SchedParams'));
  await bashTemplate(page, p, [
    { name: 'port', title: 'Port', type: 'int', max: 100, required: true },
    { name: 'dry', title: 'Dry run', type: 'boolean', default_value: 'true' },
    { name: 'token', title: 'Token', type: 'secret' },
  ]);

  await page.goto(`/project/${p}/schedules`);
  await page.getByRole('button', { name: 'New schedule' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Nightly');
  await choose(page, dialog.getByRole('combobox', { name: 'Template' }), 'Deploy');
  const answers = dialog.getByRole('group', { name: 'Parameters for each run' });
  // A secret is never asked here: a schedule's answers are stored in clear.
  await expect(answers.getByLabel('Token')).toHaveCount(0);
  await expect(answers.getByRole('switch', { name: 'Dry run' })).toBeChecked();
  const port = answers.getByRole('spinbutton', { name: 'Port' });
  await port.fill('500');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect.poll(() => help(port)).toBe('Port must be at most 100');
  await port.fill('80');
  await answers.getByRole('switch', { name: 'Dry run' }).uncheck();
  await shot(page, 'parameters-schedule');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();
  const [saved] = await apiGet<Array<{ id: number; task_params?: { environment: string } }>>(
    page.request,
    `/api/project/${p}/schedules`,
  );
  expect(JSON.parse(saved!.task_params!.environment)).toEqual({ port: 80, dry: false });

  // Editing shows the stored answers.
  await page.getByRole('button', { name: 'Edit Nightly' }).click();
  await expect(dialog.getByRole('spinbutton', { name: 'Port' })).toHaveValue('80');
  await expect(dialog.getByRole('switch', { name: 'Dry run' })).not.toBeChecked();
});

test('the run dialog: multiline text, a number within limits, a masked secret never shown back, a static choice', async ({
  page,
}) => {
  const p = await createProject(page, unique('RunControls'));
  const id = await bashTemplate(
    page,
    p,
    [
      { name: 'notes', title: 'Release notes', type: 'text' },
      { name: 'ratio', title: 'Canary ratio', type: 'number', min: 0, max: 1, required: true },
      { name: 'token', title: 'Deploy token', type: 'secret', required: true },
      {
        name: 'tier',
        title: 'Tier',
        type: 'enum',
        required: true,
        values: [
          { name: 'Web servers', value: 'web' },
          { name: 'Database', value: 'db' },
        ],
      },
    ],
    // The secret reaches the run; only its length is printed.
    'echo "ratio=$ratio tier=$tier token_length=${#token}"\n',
  );
  await page.goto(`/project/${p}/templates/${id}`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const run = page.getByRole('dialog');
  const notes = run.getByRole('textbox', { name: 'Release notes' });
  const ratio = run.getByRole('spinbutton', { name: 'Canary ratio' });
  const token = run.getByLabel('Deploy token');
  const tier = run.getByRole('combobox', { name: 'Tier' });

  // Multiline text: a text area, Enter makes a new line rather than running.
  expect(await notes.evaluate((el) => el.tagName)).toBe('TEXTAREA');
  await notes.fill('First line');
  await notes.press('Enter');
  await notes.pressSequentially('Second line');
  await expect(notes).toHaveValue('First line\nSecond line');
  await expect(run).toBeVisible();
  // A secret is typed into a masked field.
  await expect(token).toHaveAttribute('type', 'password');
  await token.fill('s3cr3t-value');
  await ratio.fill('1.5');
  await run.getByRole('button', { name: 'Run', exact: true }).click();
  await expect.poll(() => help(ratio)).toBe('Canary ratio must be at most 1');
  await expect(run.getByText('Tier is required')).toBeVisible();
  await ratio.fill('-0.1');
  await run.getByRole('button', { name: 'Run', exact: true }).click();
  await expect.poll(() => help(ratio)).toBe('Canary ratio must be at least 0');
  await shot(page, 'parameters-run-controls');
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'parameters-run-controls-phone');
  await page.setViewportSize({ width: 1366, height: 860 });

  await ratio.fill('0.25');
  await choose(page, tier, 'Database');
  await expect(tier).toHaveText('Database');
  await run.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page).toHaveURL(/\?t=\d+/);
  const taskId = Number(new URL(page.url()).searchParams.get('t'));
  await expect(page.getByText('ratio=0.25 tier=db token_length=12')).toBeVisible();
  const task = await apiGet<Record<string, unknown> & { environment: string }>(
    page.request,
    `/api/project/${p}/tasks/${taskId}`,
  );
  expect(JSON.parse(task.environment)).toEqual({ notes: 'First line\nSecond line', ratio: 0.25, tier: 'db' });
  // The secret answer is never sent back: not in the task, not on its page.
  expect(JSON.stringify(task)).not.toContain('s3cr3t-value');
  await expect(page.getByText('s3cr3t-value')).toHaveCount(0);

  // A re-run copies the answers but asks for the secret again.
  await page.goto(`/project/${p}/history`);
  await page.getByRole('button', { name: `Re-run task #${taskId}` }).click();
  const again = page.getByRole('dialog');
  await expect(again.getByRole('textbox', { name: 'Release notes' })).toHaveValue('First line\nSecond line');
  await expect(again.getByRole('spinbutton', { name: 'Canary ratio' })).toHaveValue('0.25');
  await expect(again.getByRole('combobox', { name: 'Tier' })).toHaveText('Database');
  await expect(again.getByLabel('Deploy token')).toHaveValue('');
  await again.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(again.getByText('Deploy token is required')).toBeVisible();
});
