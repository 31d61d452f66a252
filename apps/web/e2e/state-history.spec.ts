import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E_ADMIN } from '../playwright.config';
import { seriousAxeFindings } from './axe';
import { signIn, unique } from './helpers';
import { gitRepo } from './repo';

const H = { 'x-gantry-request': '1' };
const SHOTS = '/tmp/forms';
const SECRET = 'e2e-history-secret';

/** Version `n` of the configuration: `web` changes, `old` goes and `new` comes, outputs change (one of them sensitive). */
const config = (n: 'one' | 'two') => `
resource "terraform_data" "web" {
  input = "web-${n}-${'x'.repeat(80)}"
}
resource "terraform_data" "${n === 'one' ? 'old' : 'new'}" {
  input = "${n}"
}
output "greeting" {
  value = "hello-${n}"
}
output "pw" {
  value     = "${SECRET}-${n}"
  sensitive = true
}
`;

function commit(repo: string, mainTf: string): void {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'e2e',
    GIT_AUTHOR_EMAIL: 'e@e',
    GIT_COMMITTER_NAME: 'e2e',
    GIT_COMMITTER_EMAIL: 'e@e',
  };
  fs.writeFileSync(path.join(repo, 'main.tf'), mainTf);
  execFileSync('git', ['commit', '-qam', 'change'], { cwd: repo, env });
}

/** Runs the template, confirms its plan as the signed-in user and waits for the apply to succeed. */
async function runAndConfirm(page: Page, p: number, templateId: number): Promise<number> {
  const res = await page.request.post(`/api/project/${p}/tasks`, { data: { template_id: templateId }, headers: H });
  expect(res.status(), await res.text()).toBe(201);
  const id = ((await res.json()) as { id: number }).id;
  const status = async () =>
    ((await (await page.request.get(`/api/project/${p}/tasks/${id}`)).json()) as { status: string }).status;
  await expect.poll(status, { timeout: 60_000 }).toBe('waiting_confirmation');
  const confirmed = await page.request.post(`/api/project/${p}/tasks/${id}/confirm`, { headers: H });
  expect(confirmed.status(), await confirmed.text()).toBe(204);
  await expect.poll(status, { timeout: 60_000 }).toBe('success');
  return id;
}

test.beforeEach(async ({ page }) => signIn(page));

test('state history: each version shows its plan and who confirmed it; Compare shows what changed per attribute', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const post = async <T>(url: string, data?: unknown): Promise<T> => {
    const res = await page.request.post(url, { data, headers: H });
    expect(res.ok(), await res.text()).toBe(true);
    return (await res.json().catch(() => null)) as T;
  };
  const p = (await post<{ id: number }>('/api/projects', { name: unique('History') })).id;
  const key = await post<{ id: number }>(`/api/project/${p}/keys`, { name: 'none', type: 'none' });
  const repoDir = gitRepo({ 'main.tf': config('one') });
  const repo = await post<{ id: number }>(`/api/project/${p}/repositories`, {
    name: 'infra',
    git_url: repoDir,
    ssh_key_id: key.id,
  });
  const env = await post<{ id: number }>(`/api/project/${p}/environment`, { name: 'defaults', json: '{}' });
  const tpl = await post<{ id: number }>(`/api/project/${p}/templates`, {
    name: 'Infra',
    app: 'terraform',
    repository_id: repo.id,
    environment_id: env.id,
    task_params: {},
  });
  const ws = await post<{ id: number }>(`/api/project/${p}/inventory`, {
    name: 'production',
    type: 'terraform-workspace',
    inventory: 'production',
    ssh_key_id: key.id,
  });
  await post(`/api/project/${p}/templates/${tpl.id}/inventory/${ws.id}/set_default`);

  // Two applies, each confirmed: the second updates web, destroys old and creates new.
  const first = await runAndConfirm(page, p, tpl.id);
  commit(repoDir, config('two'));
  const second = await runAndConfirm(page, p, tpl.id);

  await page.goto(`/project/${p}/templates/${tpl.id}/state`);
  const versions = page.getByRole('table', { name: 'State versions' });
  await expect(versions.getByRole('row')).toHaveCount(3);
  const newest = versions.getByRole('row').nth(1);
  const oldest = versions.getByRole('row').nth(2);
  await expect(newest).toContainText(`#${second}`);
  await expect(oldest).toContainText(`#${first}`);
  const counts = newest.getByRole('img', { name: '1 to add, 1 to change, 0 to replace, 1 to destroy' });
  await expect(counts).toBeVisible();
  await expect(counts).toHaveText('+1~1±0-1');
  await expect(oldest.getByRole('img', { name: '2 to add, 0 to change, 0 to replace, 0 to destroy' })).toBeVisible();
  await expect(newest.getByTestId('state-confirmed-by')).toHaveText(`Confirmed by ${E2E_ADMIN.name}`);
  await expect(oldest.getByTestId('state-confirmed-by')).toHaveText(`Confirmed by ${E2E_ADMIN.name}`);
  // The counts' sentence opens from the keyboard too.
  await counts.focus();
  await expect(page.getByRole('tooltip')).toHaveText('1 to add, 1 to change, 0 to replace, 1 to destroy');
  await page.keyboard.press('Escape');

  // The new column and captions fit: the versions table needs no sideways scrolling on a laptop.
  const table = versions.locator('xpath=..');
  expect(await table.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/state-history-versions.png` });

  // Compare, from the keyboard: the two newest versions.
  const compare = page.getByRole('button', { name: 'Compare' });
  await compare.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Compare state versions' });
  const diff = dialog.getByTestId('state-diff');
  await expect(diff).toContainText('1 added, 1 changed, 1 removed; 2 outputs changed');
  const web = dialog.getByRole('region', { name: '~ terraform_data.web' });
  await expect(web).toContainText('Changed');
  const webTable = web.getByRole('table', { name: 'Changed attributes of terraform_data.web' });
  const input = webTable.getByRole('row', { name: /^input\.value / });
  await expect(input.getByRole('cell').nth(0)).toHaveText(`web-one-${'x'.repeat(80)}`);
  await expect(input.getByRole('cell').nth(1)).toHaveText(`web-two-${'x'.repeat(80)}`);
  await expect(dialog.getByRole('region', { name: '+ terraform_data.new' })).toContainText('Added');
  await expect(dialog.getByRole('region', { name: '- terraform_data.old' })).toContainText('Removed');
  const outputs = dialog.getByRole('table', { name: 'Changed outputs' });
  await expect(outputs.getByRole('row', { name: /^greeting / })).toContainText('hello-onehello-two');
  await expect(outputs.getByRole('row', { name: /^pw / })).toContainText('(sensitive)(sensitive)');
  await expect(page.locator('body')).not.toContainText(SECRET);
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
  await page.waitForTimeout(400); // the dialog finishes fading in
  await page.screenshot({ path: `${SHOTS}/state-history-desktop.png` });

  // The same version twice: nothing to compare.
  await dialog.getByLabel('From').click();
  await page.getByRole('option').first().click();
  await expect(dialog.getByText('Choose two different versions to compare.')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);

  // On a phone the dialog takes the screen and long values wrap: nothing runs off sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('button', { name: 'Compare' }).click();
  await expect(dialog.getByTestId('state-diff')).toContainText('1 added, 1 changed, 1 removed');
  await page.waitForTimeout(400);
  const overflow = await page.evaluate(() => {
    const d = document.querySelector('[role="dialog"]')!;
    return {
      page: document.documentElement.scrollWidth - window.innerWidth,
      dialog: d.scrollWidth - d.clientWidth,
      tables: [...d.querySelectorAll('table')].map((t) => t.getBoundingClientRect().right - window.innerWidth),
    };
  });
  expect(overflow.page).toBeLessThanOrEqual(0);
  expect(overflow.dialog).toBeLessThanOrEqual(0);
  for (const right of overflow.tables) expect(right).toBeLessThanOrEqual(0);
  await page.screenshot({ path: `${SHOTS}/state-history.png` });
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);
});
