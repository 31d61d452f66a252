import { expect, test, type Page } from '@playwright/test';
import { seriousAxeFindings } from './axe';
import { choose, createProject, signIn, unique } from './helpers';
import { gitRepo } from './repo';

const H = { 'x-gantry-request': '1' };
const SHOTS = process.env.GANTRY_SHOTS;

// Local time is not UTC here, so the dialog's two clocks differ: 03:30 UTC is 09:00 in Kolkata.
test.use({ timezoneId: 'Asia/Kolkata', locale: 'en-US' });

type Stored = { id: number; name: string; cron_format: string; repository_id: number | null };

/** A project with a template (and the repository it runs from); answers the project id and the repository's. */
async function seed(page: Page, prefix: string): Promise<{ p: number; repositoryId: number }> {
  await signIn(page);
  const p = await createProject(page, unique(prefix));
  const key = await (await page.request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })).json();
  const repo = await (await page.request.post(`/api/project/${p}/repositories`, { data: { name: 'Code', git_url: gitRepo({ 'a.sh': 'echo a\n' }), ssh_key_id: key.id }, headers: H })).json();
  const env = await (await page.request.post(`/api/project/${p}/environment`, { data: { name: 'e' }, headers: H })).json();
  await page.request.post(`/api/project/${p}/templates`, { data: { name: 'Backup', app: 'bash', playbook: 'a.sh', repository_id: repo.id, environment_id: env.id }, headers: H });
  return { p, repositoryId: repo.id };
}

async function openNew(page: Page, p: number, name: string) {
  await page.goto(`/project/${p}/schedules`);
  await page.getByRole('button', { name: 'New schedule' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
  await choose(page, dialog.getByLabel('Template'), 'Backup');
  return dialog;
}

const stored = async (page: Page, p: number, name: string): Promise<Stored> =>
  ((await (await page.request.get(`/api/project/${p}/schedules`)).json()) as Stored[]).find((s) => s.name === name)!;

test('the builder and the expression are one: what the dialog shows is what is saved', async ({ page }) => {
  const { p } = await seed(page, 'Cron one');
  const dialog = await openNew(page, p, 'Daily backup');
  const cron = dialog.getByLabel('Cron (UTC)');
  await expect(cron).toHaveValue('* * * * *');

  // Every minute is nothing the builder can show: it says so and leaves the expression alone.
  await dialog.getByRole('button', { name: 'Builder' }).click();
  const builder = dialog.getByTestId('cron-builder');
  await expect(builder.getByTestId('cron-builder-cannot-show')).toBeVisible();
  await expect(builder.getByRole('combobox', { name: 'Every' })).not.toHaveText('Day');
  await expect(cron).toHaveValue('* * * * *');

  // Each choice rewrites the expression at once.
  await choose(page, builder.getByLabel('Every'), 'Day');
  await expect(cron).toHaveValue('0 0 * * *');
  await expect(builder.getByTestId('cron-builder-cannot-show')).toBeHidden();
  await choose(page, builder.getByLabel('Hour (UTC)'), '03');
  await expect(cron).toHaveValue('0 3 * * *');
  // The minute by keyboard: open, six steps of 5 down, pick.
  await builder.getByRole('combobox', { name: 'Minute' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('listbox')).toBeVisible();
  for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('listbox')).toBeHidden();
  await expect(cron).toHaveValue('30 3 * * *');

  // The next three runs, from the server: 03:30 UTC on three days, 09:00 on this browser's clock.
  const runs = dialog.getByTestId('next-runs').getByRole('listitem');
  await expect(runs).toHaveCount(3);
  for (let i = 0; i < 3; i++) {
    await expect(runs.nth(i)).toContainText('03:30 UTC');
    await expect(runs.nth(i)).toContainText(/your time: .*9:00\sAM GMT\+5:30/);
  }
  if (SHOTS) {
    await page.screenshot({ path: `${SHOTS}/schedule-builder-desktop.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => dialog.evaluate((d) => d.scrollWidth <= d.clientWidth)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await page.screenshot({ path: `${SHOTS}/schedule-builder-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1366, height: 860 });
  }
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);

  // Typing in the expression moves the builder with it.
  await cron.fill('15 6 * * 2');
  await expect(builder.getByRole('combobox', { name: 'Every' })).toHaveText('Week');
  await expect(builder.getByRole('combobox', { name: 'Weekday' })).toHaveText('Tuesday');
  await expect(builder.getByRole('combobox', { name: 'Hour (UTC)' })).toHaveText('06');
  await expect(builder.getByRole('combobox', { name: 'Minute' })).toHaveText('15');
  await choose(page, builder.getByLabel('Every'), 'Day');
  await expect(cron).toHaveValue('15 6 * * *');
  await choose(page, builder.getByLabel('Hour (UTC)'), '03');
  await choose(page, builder.getByLabel('Minute'), '30');
  await expect(cron).toHaveValue('30 3 * * *');

  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('row', { name: /Daily backup/ })).toContainText('30 3 * * *');
  expect((await stored(page, p, 'Daily backup')).cron_format).toBe('30 3 * * *');

  // Reopened, it shows the same in the builder.
  await page.getByRole('button', { name: 'Edit Daily backup' }).click();
  await expect(cron).toHaveValue('30 3 * * *');
  await expect(builder.getByRole('combobox', { name: 'Every' })).toHaveText('Day');
  await expect(builder.getByRole('combobox', { name: 'Hour (UTC)' })).toHaveText('03');
  await expect(builder.getByRole('combobox', { name: 'Minute' })).toHaveText('30');
  await expect(runs).toHaveCount(3);
  await expect(runs.first()).toContainText('03:30 UTC');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  expect((await stored(page, p, 'Daily backup')).cron_format).toBe('30 3 * * *');
});

test('an expression the builder cannot show stays as typed and is saved as typed', async ({ page }) => {
  const { p } = await seed(page, 'Cron typed');
  const dialog = await openNew(page, p, 'Odd hours');
  const cron = dialog.getByLabel('Cron (UTC)');
  await cron.fill('*/7 2-5 * * 1,3');
  await dialog.getByRole('button', { name: 'Builder' }).click();
  const builder = dialog.getByTestId('cron-builder');
  await expect(builder.getByTestId('cron-builder-cannot-show')).toBeVisible();
  await expect(builder.getByRole('combobox', { name: 'Every' })).not.toHaveText('Day');
  await expect(builder.getByRole('combobox', { name: 'Hour (UTC)' })).toHaveCount(0);
  await expect(cron).toHaveValue('*/7 2-5 * * 1,3');
  await dialog.getByRole('button', { name: 'Expression' }).click();
  await expect(cron).toHaveValue('*/7 2-5 * * 1,3');
  await dialog.getByRole('button', { name: 'Builder' }).click();
  await expect(cron).toHaveValue('*/7 2-5 * * 1,3');
  // The server's scheduler knows when it fires: 02:00 UTC on a Monday or Wednesday comes first.
  const runs = dialog.getByTestId('next-runs').getByRole('listitem');
  await expect(runs).toHaveCount(3);
  await expect(runs.first()).toContainText(/^(Mon|Wed), .* 02:00 UTC/);
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/schedule-builder-cannot-show.png` });

  // A bad expression has no next runs, and says so.
  await cron.fill('61 * * * *');
  await expect(dialog.getByTestId('next-runs')).toContainText('Enter a valid expression to see the next runs.');
  await cron.fill('*/7 2-5 * * 1,3');
  await expect(runs).toHaveCount(3);

  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();
  expect((await stored(page, p, 'Odd hours')).cron_format).toBe('*/7 2-5 * * 1,3');
  // Reopened, it opens on the expression it is, not on a builder that cannot show it.
  await page.getByRole('button', { name: 'Edit Odd hours' }).click();
  await expect(cron).toHaveValue('*/7 2-5 * * 1,3');
  await expect(dialog.getByRole('button', { name: 'Expression' })).toHaveAttribute('aria-pressed', 'true');
});

test('toggling "run on new commit" on and off keeps the cron the user typed', async ({ page }) => {
  const { p, repositoryId } = await seed(page, 'Cron commit');
  const dialog = await openNew(page, p, 'Friday night');
  const cron = dialog.getByLabel('Cron (UTC)');
  await cron.fill('45 23 * * 5');
  const onCommit = dialog.getByRole('checkbox', { name: 'Run on new commit' });
  await onCommit.check();
  const every = dialog.getByRole('combobox', { name: 'Check every' });
  await expect(every).toHaveText('5 minutes');
  await choose(page, dialog.getByLabel('Check every'), '10 minutes');
  await onCommit.uncheck();
  await expect(cron).toHaveValue('45 23 * * 5');
  // And back on: the check interval chosen before is kept too.
  await onCommit.check();
  await expect(every).toHaveText('10 minutes');
  await onCommit.uncheck();
  await expect(cron).toHaveValue('45 23 * * 5');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();
  expect(await stored(page, p, 'Friday night')).toMatchObject({ cron_format: '45 23 * * 5', repository_id: null });

  // Made a commit schedule, it stores its check interval and repository.
  await page.getByRole('button', { name: 'Edit Friday night' }).click();
  await onCommit.check();
  await choose(page, dialog.getByLabel('Repository'), 'Code');
  await choose(page, dialog.getByLabel('Check every'), '10 minutes');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  expect(await stored(page, p, 'Friday night')).toMatchObject({ cron_format: '*/10 * * * *', repository_id: repositoryId });
});
