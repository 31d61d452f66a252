import { expect, test, type APIRequestContext } from '@playwright/test';
import { seriousAxeFindings } from './axe';
import { signIn, unique } from './helpers';
import { gitRepo } from './repo';
import { shot } from './shots';

const H = { 'x-gantry-request': '1' };

/** A project with a bash template printing a line at once, through the API. */
async function quickTemplate(request: APIRequestContext): Promise<{ p: number; templateId: number }> {
  const project = await (
    await request.post('/api/projects', { data: { name: unique('Run to log') }, headers: H })
  ).json();
  const p = project.id as number;
  const key = await (
    await request.post(`/api/project/${p}/keys`, { data: { name: 'none', type: 'none' }, headers: H })
  ).json();
  const repo = await (
    await request.post(`/api/project/${p}/repositories`, {
      data: { name: 'scripts', git_url: gitRepo({ 'run.sh': 'echo "ready at once"\n' }), ssh_key_id: key.id },
      headers: H,
    })
  ).json();
  const env = await (
    await request.post(`/api/project/${p}/environment`, { data: { name: 'defaults', json: '{}' }, headers: H })
  ).json();
  const tpl = await (
    await request.post(`/api/project/${p}/templates`, {
      data: { name: 'Quick', app: 'bash', playbook: 'run.sh', repository_id: repo.id, environment_id: env.id },
      headers: H,
    })
  ).json();
  return { p, templateId: tpl.id as number };
}

test.beforeEach(async ({ page }) => signIn(page));

for (const [size, viewport] of [
  ['desktop', { width: 1366, height: 860 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test(`Run goes straight from the form to the new task’s log, reading the task list once (${size})`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    const { p, templateId } = await quickTemplate(page.request);
    await page.goto(`/project/${p}/templates/${templateId}/tasks`);
    await page.getByRole('main').getByRole('button', { name: 'Run', exact: true }).first().click();
    const form = page.getByRole('dialog', { name: 'New task: Quick' });
    await expect(form).toBeVisible();

    // From here on, every change to the page is noted with the names of the dialogs then open: there
    // must never be a moment with none (a blank between the form and the log).
    await page.evaluate(() => {
      const names = () =>
        [...document.querySelectorAll('[role="dialog"]')].map(
          (d) => document.getElementById(d.getAttribute('aria-labelledby') ?? '')?.textContent ?? '?',
        );
      const w = window as unknown as { dialogStates: string[][] };
      w.dialogStates = [];
      new MutationObserver(() => w.dialogStates.push(names())).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    });
    // The address names the log once what its first read found is on screen (a new address renders
    // the page under the dialog again, which would hold the lines back): note the log then.
    await page.evaluate(() => {
      const w = window as unknown as { logAtAddress: string | null };
      w.logAtAddress = null;
      const push = history.pushState.bind(history);
      history.pushState = (data: unknown, unused: string, url?: string | URL | null) => {
        if (w.logAtAddress === null && /[?&]t=/.test(String(url)))
          w.logAtAddress = document
            .querySelector('[role="dialog"] [data-testid="task-log"]')
            ?.querySelector('.log-text')?.textContent
            ? 'lines'
            : (document.querySelector('[role="dialog"] [data-testid="task-log"]')?.textContent ?? 'no log');
        push(data, unused, url);
      };
    });
    const listReads: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.endsWith('/tasks/last')) listReads.push(r.url());
    });

    const created = page.waitForResponse(
      (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === `/api/project/${p}/tasks`,
    );
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    const id = ((await (await created).json()) as { id: number }).id;

    const log = page.getByRole('dialog', { name: new RegExp(`^Task #${id}`) });
    await expect(log).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`[?&]t=${id}(&|$)`));
    await expect(form).toHaveCount(0);
    const logAtAddress = await page.evaluate(() => (window as unknown as { logAtAddress: string | null }).logAtAddress);
    // Lines, or the first read's answer (no line yet): not the log's loading state, nor no log at all.
    expect(logAtAddress).not.toBeNull();
    expect(logAtAddress).not.toBe('no log');
    expect(logAtAddress).not.toContain('Loading the log');
    await expect(log.getByTestId('task-log')).toContainText('ready at once');
    await expect(log.getByTestId('task-status')).toHaveAttribute('data-status', 'success');

    await shot(page, `run-to-log-dialog-${size}`);
    expect(await seriousAxeFindings(page)).toEqual([]);
    // The dialog fits the screen (the log itself scrolls sideways for long lines).
    const box = await log.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);

    const states = await page.evaluate(() => (window as unknown as { dialogStates: string[][] }).dialogStates);
    const shown = states.findIndex((names) => names.some((n) => n.startsWith(`Task #${id}`)));
    expect(shown, 'the log dialog was seen').toBeGreaterThanOrEqual(0);
    // Up to the log showing, the form was there; the log came in the same change that took the form away.
    expect(states.slice(0, shown).every((names) => names.includes('New task: Quick'))).toBe(true);
    expect(states.slice(shown).every((names) => names.length > 0)).toBe(true);

    // The list behind the dialog shows the task, finished, having read the list at most once.
    await page.waitForTimeout(1000);
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    const task = (await (await page.request.get(`/api/project/${p}/tasks/${id}`)).json()) as { commit_hash: string };
    const row = page
      .getByRole('main')
      .getByRole('row')
      .filter({ hasText: `#${id}` });
    await expect(row).toContainText('Success');
    // What the socket's updates do not carry (the commit) came with the finished task itself.
    await expect(row).toContainText(task.commit_hash.slice(0, 10));
    expect(listReads.length, listReads.join('\n')).toBeLessThanOrEqual(1);
    await shot(page, `run-to-log-${size}`);
  });
}
