import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { seriousAxeFindings } from './axe';
import { signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };
const FINISHED = ['success', 'error', 'stopped', 'rejected'];

/** A project with a bash template running `script` from a local repository, through the API. */
async function bashTemplate(request: APIRequestContext, script: string, name = 'Print'): Promise<{ p: number; templateId: number }> {
  const project = await (await request.post('/api/projects', { data: { name: unique('Logs') }, headers: H })).json();
  const p = project.id as number;
  const key = await (await request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })).json();
  const repo = await (
    await request.post(`/api/project/${p}/repositories`, { data: { name: 'scripts', git_url: gitRepo({ 'run.sh': script }), ssh_key_id: key.id }, headers: H })
  ).json();
  const env = await (await request.post(`/api/project/${p}/environment`, { data: { name: 'defaults', json: '{}' }, headers: H })).json();
  const tpl = await (
    await request.post(`/api/project/${p}/templates`, {
      data: { name, app: 'bash', playbook: 'run.sh', repository_id: repo.id, environment_id: env.id },
      headers: H,
    })
  ).json();
  return { p, templateId: tpl.id as number };
}

async function runTask(request: APIRequestContext, p: number, templateId: number): Promise<number> {
  const res = await request.post(`/api/project/${p}/tasks`, { data: { template_id: templateId }, headers: H });
  expect(res.status()).toBe(201);
  return (await res.json()).id as number;
}

async function waitFinished(request: APIRequestContext, p: number, id: number): Promise<string> {
  let status = '';
  await expect
    .poll(
      async () => {
        status = (await (await request.get(`/api/project/${p}/tasks/${id}`)).json()).status as string;
        return FINISHED.includes(status);
      },
      { timeout: 90_000, intervals: [500] },
    )
    .toBe(true);
  return status;
}

/** The log row numbered `seq` (the gutter's number). */
const row = (page: Page, seq: number) => page.locator(`[data-testid="log-line"][data-seq="${seq}"]`);
/** The log row whose line is exactly `text` (a row also shows its number, outside its text). */
const line = (page: Page, text: string) => page.locator('[data-testid="log-line"]').filter({ has: page.locator('.log-text', { hasText: new RegExp(`^${text}$`) }) });

test.beforeEach(async ({ page }) => signIn(page));

test('a 200,000-line log opens at once, jumps to its end and finds a line', async ({ page }) => {
  test.setTimeout(180_000);
  const { p, templateId } = await bashTemplate(page.request, 'seq 1 200000\n');
  const id = await runTask(page.request, p, templateId);
  expect(await waitFinished(page.request, p, id)).toBe('success');

  const started = Date.now();
  await page.goto(`/project/${p}/history?t=${id}`);
  const dialog = page.getByRole('dialog');
  await expect(line(page, '1')).toBeVisible({ timeout: 2000 });
  expect(Date.now() - started).toBeLessThan(2000);
  await expect(dialog.getByTestId('task-status')).toHaveAttribute('data-status', 'success', { timeout: 1000 });
  await expect(dialog.getByRole('link', { name: 'Raw log' })).toHaveAttribute('href', new RegExp(`/tasks/${id}/raw_output$`));
  await expect(dialog.getByRole('link', { name: 'Download' })).toHaveAttribute('href', /raw_output\?download=1$/);

  await dialog.getByRole('button', { name: 'Jump to last' }).click();
  await expect(line(page, '200000')).toBeVisible();

  await dialog.getByRole('textbox', { name: 'Search the log' }).fill('123456');
  await dialog.getByRole('textbox', { name: 'Search the log' }).press('Enter');
  const results = dialog.getByRole('list', { name: 'Matching lines' });
  await expect(results.getByRole('button')).toHaveCount(1);
  await expect(dialog.getByRole('status')).toHaveText('1 matching line');
  await results.getByRole('button', { name: /123456/ }).click();
  await expect(line(page, '123456')).toBeVisible();
  await expect(line(page, '123456')).toHaveClass(/log-row-hit/);

  await dialog.getByRole('button', { name: 'Show timestamps' }).click();
  await expect(line(page, '123456').locator('.log-time')).toHaveText(/\d\d:\d\d:\d\d/);
  await dialog.getByRole('button', { name: 'Jump to first' }).click();
  await expect(line(page, '1')).toBeVisible();
  await shot(page, 'task-log-200k');

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(dialog.getByRole('button', { name: 'More actions' })).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeInViewport();
  // Long lines scroll sideways instead of being cut.
  await expect.poll(() => dialog.getByTestId('task-log').evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  await shot(page, 'task-log-200k-mobile');
  await dialog.getByRole('button', { name: 'More actions' }).click();
  await expect(page.getByRole('menuitem', { name: 'Download' })).toHaveAttribute('href', /raw_output\?download=1$/);
  await expect(page.getByRole('menuitem', { name: 'Raw log' })).toBeVisible();
  await page.waitForTimeout(300); // the menu's fade-in, for the picture only
  await shot(page, 'task-log-200k-mobile-menu');
});

test('a 2,000,000-line log, past Chrome’s height limit, scrolls to its end and goes to any line', async ({ page }) => {
  test.setTimeout(90_000);
  const { p, templateId } = await bashTemplate(page.request, 'seq 1 2000000\n');
  const id = await runTask(page.request, p, templateId);
  expect(await waitFinished(page.request, p, id)).toBe('success');
  await page.goto(`/project/${p}/history?t=${id}`);
  const dialog = page.getByRole('dialog');
  const log = dialog.getByTestId('task-log');
  await expect(line(page, '1')).toBeInViewport();
  // 2M rows of 22 px would be 44M px: the list stays under Chrome's 33.5M px cap.
  expect(await log.evaluate((el) => el.scrollHeight)).toBeLessThan(33_554_400);

  // The End key scrolls the log to its very last line.
  await log.focus();
  await page.keyboard.press('End');
  await expect(line(page, '2000000')).toBeInViewport();
  // A wheel notch up from there moves a few lines, not thousands.
  await log.hover();
  await page.mouse.wheel(0, -100);
  await expect(line(page, '2000000')).not.toBeInViewport();
  await expect(line(page, '1999990')).toBeInViewport();

  // Dragging the thumb to the middle shows the middle of the log.
  await log.evaluate((el) => (el.scrollTop = (el.scrollHeight - el.clientHeight) / 2));
  await expect(line(page, '1000000')).toBeInViewport();

  // Go to line (by number, as the gutter shows it): the line shows near the top, marked for a
  // moment, and its page is read.
  const go = dialog.getByRole('textbox', { name: 'Go to line' });
  await go.fill('1234567');
  await go.press('Enter');
  const target = row(page, 1234567);
  await expect(target).toHaveClass(/log-row-hit/);
  await expect(target).toBeInViewport();
  await expect(target).toHaveAttribute('data-state', 'line');
  const logBox = (await log.boundingBox())!;
  expect((await target.boundingBox())!.y - logBox.y).toBeLessThan(logBox.height / 4);
  await shot(page, 'task-log-2m-go-to-line');
  expect(await seriousAxeFindings(page, '[role="dialog"]')).toEqual([]);

  // A number past the end goes to the last line and says so in the field.
  await go.fill('99999999');
  await go.press('Enter');
  await expect(go).toHaveValue(/^\d+$/);
  const lastSeq = Number(await go.inputValue());
  expect(lastSeq).toBeGreaterThan(2_000_000);
  // The log's last row (the task's closing line, after "2000000") is that number, on screen.
  await expect(page.getByTestId('log-line').last()).toHaveAttribute('data-seq', String(lastSeq));
  await expect(row(page, lastSeq)).toBeInViewport();
  await expect(line(page, '2000000')).toBeInViewport();

  // A search result still lands on its line.
  await dialog.getByRole('textbox', { name: 'Search the log' }).fill('1876543');
  await dialog.getByRole('textbox', { name: 'Search the log' }).press('Enter');
  await dialog.getByRole('list', { name: 'Matching lines' }).getByRole('button', { name: /1876543/ }).click();
  await expect(line(page, '1876543')).toBeInViewport();

  // On a phone the search keeps a row of its own; the line field and buttons share the next.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(go).toBeInViewport({ ratio: 1 });
  await expect(dialog.getByRole('button', { name: 'Show timestamps' })).toBeInViewport({ ratio: 1 });
  const search = (await dialog.getByRole('textbox', { name: 'Search the log' }).boundingBox())!;
  expect(search.width).toBeGreaterThan(250);
  await shot(page, 'task-log-2m-mobile');
});

test('a running task streams its lines into the open log and ends with its status', async ({ page }) => {
  const { p, templateId } = await bashTemplate(page.request, 'for i in $(seq 1 50); do echo line-$i; sleep 0.1; done\n');
  const id = await runTask(page.request, p, templateId);
  await page.goto(`/project/${p}/history?t=${id}`);
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('task-status')).toHaveAttribute('data-status', /waiting|starting|running/);
  await expect(dialog.getByTestId('task-log')).toContainText('line-10');
  await expect(dialog.getByTestId('task-status')).toHaveAttribute('data-status', 'running');
  await shot(page, 'task-log-running');
  // On a phone the dialog fills the screen and Stop moves above the log, fully on screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(dialog.getByRole('button', { name: 'Stop' })).toBeInViewport({ ratio: 1 });
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeInViewport({ ratio: 1 });
  await shot(page, 'task-log-running-mobile');
  await expect(dialog.getByTestId('task-status')).toHaveAttribute('data-status', 'success', { timeout: 30_000 });
  // Followed to the end: the last line is on screen without scrolling.
  await expect(line(page, 'line-50')).toBeVisible();
  const rows = await page.getByTestId('log-line').count();
  expect(rows).toBeGreaterThan(10);
});

test('a 200,000-line task watched while it runs shows its end and its final status within a second', async ({ page }) => {
  test.setTimeout(180_000);
  // 200,000 lines in bursts of 10,000 over about five seconds, so the dialog opens while it runs.
  const script = 'for i in $(seq 0 19); do seq $((i * 10000 + 1)) $((i * 10000 + 10000)); sleep 0.25; done\n';
  const { p, templateId } = await bashTemplate(page.request, script);
  const id = await runTask(page.request, p, templateId);
  await page.goto(`/project/${p}/history?t=${id}`);
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('task-status')).toHaveAttribute('data-status', 'running');
  await expect(dialog.getByTestId('task-log')).toBeVisible();
  await waitFinished(page.request, p, id);
  // The API knew the final status no more than one poll interval (500 ms) before this point.
  await expect(dialog.getByTestId('task-status')).toHaveAttribute('data-status', 'success', { timeout: 500 });
  // It followed the end all along: the last line is on screen.
  await expect(line(page, '200000')).toBeVisible();
  await shot(page, 'task-log-200k-live');
});

test('on a phone the log fills the screen with its title, buttons and template name in view and its lines whole', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const long = 'Nightly database maintenance for every regional replica';
  const { p, templateId } = await bashTemplate(page.request, `echo short\nprintf 'wide %0200d end\\n' 0\n`, long);
  const id = await runTask(page.request, p, templateId);
  expect(await waitFinished(page.request, p, id)).toBe('success');
  await page.goto(`/project/${p}/history?t=${id}`);
  const dialog = page.getByRole('dialog');
  await expect(line(page, 'short')).toBeVisible();
  expect(await dialog.boundingBox()).toEqual({ x: 0, y: 0, width: 390, height: 844 });
  // The number, status and buttons keep one line; the template's name has its own below, whole.
  const title = dialog.locator('.MuiDialogTitle-root');
  const heading = title.getByText(`Task #${id}`);
  await expect(heading).toBeInViewport({ ratio: 1 });
  const name = title.getByText(long);
  await expect(name).toBeInViewport({ ratio: 1 });
  expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight)).toBe(true);
  const headingBox = (await heading.boundingBox())!;
  expect((await name.boundingBox())!.y).toBeGreaterThanOrEqual(headingBox.y + headingBox.height);
  for (const button of ['More actions', 'Full screen', 'Close']) await expect(dialog.getByRole('button', { name: button })).toBeInViewport({ ratio: 1 });
  // The wide line is not cut: the log scrolls sideways to its end, inside the screen.
  const log = dialog.getByTestId('task-log');
  const logBox = (await log.boundingBox())!;
  expect(logBox.x + logBox.width).toBeLessThanOrEqual(390);
  expect(await log.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  await log.evaluate((el) => (el.scrollLeft = el.scrollWidth));
  await expect(line(page, `wide ${'0'.repeat(200)} end`).getByText(/end$/)).toBeInViewport();
  await shot(page, 'task-log-mobile');
});
