import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { apiGet, apiPost } from './api-calls';
import { choose, createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

/** Choice parameters whose options come from a source: a cascade ("region" decides "cluster") and a URL. */
const REGION = {
  name: 'region',
  title: 'Region',
  type: 'enum',
  values: [
    { name: 'Europe', value: 'eu' },
    { name: 'America', value: 'us' },
  ],
};
const CLUSTER = {
  name: 'cluster',
  title: 'Cluster',
  type: 'enum',
  options_source: {
    kind: 'parameter',
    parameter: 'region',
    options: {
      eu: [
        { name: 'Paris', value: 'par' },
        { name: 'Berlin', value: 'ber' },
      ],
      us: [{ name: 'Ohio', value: 'ohio' }],
    },
  },
};

async function template(request: APIRequestContext, p: number, surveyVars: unknown[]): Promise<number> {
  const key = await apiPost<{ id: number }>(request, `/api/project/${p}/keys`, { name: 'none', type: 'none' });
  const repo = await apiPost<{ id: number }>(request, `/api/project/${p}/repositories`, {
    name: 'scripts',
    git_url: gitRepo({ 'deploy.sh': 'echo "deploying to $region/$cluster"\n' }),
    ssh_key_id: key.id,
  });
  const env = await apiPost<{ id: number }>(request, `/api/project/${p}/environment`, { name: 'defaults' });
  const tpl = await apiPost<{ id: number }>(request, `/api/project/${p}/templates`, {
    name: 'Deploy',
    app: 'bash',
    playbook: 'deploy.sh',
    repository_id: repo.id,
    environment_id: env.id,
    survey_vars: surveyVars,
  });
  return tpl.id;
}

/** The options a select offers (its menu opened, then closed again). */
async function optionsOf(page: Page, name: string): Promise<string[]> {
  await page.getByRole('dialog').getByRole('combobox', { name }).click();
  const listbox = page.getByRole('listbox');
  await expect(listbox).toBeVisible();
  const texts = await listbox.getByRole('option').allInnerTexts();
  await page.keyboard.press('Escape');
  await expect(listbox).toBeHidden();
  return texts.map((x) => x.trim());
}

test.beforeEach(async ({ page }) => signIn(page));

test('in the run dialog, the region chosen decides the clusters offered', async ({ page }) => {
  const p = await createProject(page, unique('Cascade'));
  const id = await template(page.request, p, [REGION, CLUSTER]);
  await page.goto(`/project/${p}/templates/${id}`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const dialog = page.getByRole('dialog');
  const region = dialog.getByRole('combobox', { name: 'Region' });
  const cluster = dialog.getByRole('combobox', { name: 'Cluster' });

  // No region yet: no cluster to offer.
  expect(await optionsOf(page, 'Cluster')).not.toContain('Paris');
  await choose(page, region, 'Europe');
  expect(await optionsOf(page, 'Cluster')).toEqual(expect.arrayContaining(['Paris', 'Berlin']));
  await choose(page, cluster, 'Berlin');
  await expect(cluster).toHaveText('Berlin');

  await choose(page, region, 'America');
  const american = await optionsOf(page, 'Cluster');
  expect(american).toContain('Ohio');
  expect(american).not.toContain('Paris');
  await choose(page, cluster, 'Ohio');
  await expect(page.locator('.MuiPopover-root')).toHaveCount(0);
  await shot(page, 'parameter-options-cascade');
  await dialog.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page).toHaveURL(/\?t=\d+/);
  const taskId = Number(new URL(page.url()).searchParams.get('t'));
  const task = await apiGet<{ environment: string }>(page.request, `/api/project/${p}/tasks/${taskId}`);
  expect(JSON.parse(task.environment)).toMatchObject({ region: 'us', cluster: 'ohio' });
});

test('on a phone the run dialog fits and says why a URL source failed', async ({ page }) => {
  const p = await createProject(page, unique('UrlOptions'));
  const id = await template(page.request, p, [
    REGION,
    CLUSTER,
    // The cloud metadata address: never fetched unless an admin allows it.
    {
      name: 'version',
      title: 'Version',
      type: 'enum',
      options_source: { kind: 'url', url: 'http://169.254.169.254/latest/versions' },
    },
  ]);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/project/${p}/templates/${id}`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByText(/private, local or reserved address/)).toBeVisible();
  await choose(page, dialog.getByRole('combobox', { name: 'Region' }), 'Europe');
  await choose(page, dialog.getByRole('combobox', { name: 'Cluster' }), 'Paris');
  await expect(page.locator('.MuiPopover-root')).toHaveCount(0);
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'parameter-options-phone');
});

test("the template form edits a cascade's cases", async ({ page }) => {
  const p = await createProject(page, unique('CascadeForm'));
  const id = await template(page.request, p, [REGION, CLUSTER]);
  await page.goto(`/project/${p}/templates/${id}`);
  await page.getByRole('button', { name: 'Edit template' }).click();
  const dialog = page.getByRole('dialog');
  const cluster = dialog.getByRole('group', { name: 'Survey variable 2' });
  await expect(cluster.getByRole('combobox', { name: 'Options from' })).toHaveText('Another parameter');
  await expect(cluster.getByRole('combobox', { name: 'Follows parameter' })).toHaveText('region');
  await expect(cluster.getByRole('group', { name: 'Case 1' }).getByRole('textbox', { name: 'Options' })).toHaveValue(
    'Paris | par\nBerlin | ber',
  );

  await cluster.getByRole('button', { name: 'Add a case' }).click();
  const added = cluster.getByRole('group', { name: 'Case 3' });
  await added.getByRole('textbox', { name: 'When region is' }).fill('asia');
  await added.getByRole('textbox', { name: 'Options' }).fill('Tokyo | tyo\nseoul');
  await cluster.getByRole('group', { name: 'Case 2' }).getByRole('button', { name: 'Remove this case' }).click();
  await shot(page, 'parameter-options-editor');
  // On a phone each case stacks its fields: nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await cluster.getByRole('group', { name: 'Case 2' }).scrollIntoViewIfNeeded();
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'parameter-options-editor-phone');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();

  const saved = await apiGet<{ survey_vars: Array<{ options_source: unknown }> }>(
    page.request,
    `/api/project/${p}/templates/${id}`,
  );
  expect(saved.survey_vars[1]!.options_source).toEqual({
    kind: 'parameter',
    parameter: 'region',
    options: {
      eu: [
        { name: 'Paris', value: 'par' },
        { name: 'Berlin', value: 'ber' },
      ],
      asia: [
        { name: 'Tokyo', value: 'tyo' },
        { name: 'seoul', value: 'seoul' },
      ],
    },
  });
});
