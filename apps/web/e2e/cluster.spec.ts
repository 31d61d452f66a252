import { expect, test } from '@playwright/test';
import type { ClusterNode } from '@gantry/contracts';
import { openUserMenu, signIn, signInAsNewUser } from './helpers';
import { shot } from './shots';

test('an admin sees the server nodes; a non-admin does not', async ({ page }) => {
  await signIn(page);
  // On SQLite the one server heartbeats too: the list is this node alone.
  const nodes = (await (await page.request.get('/api/nodes')).json()) as ClusterNode[];
  expect(nodes).toHaveLength(1);
  const self = nodes[0]!;
  expect(self.self).toBe(true);

  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Cluster' }).click();
  await expect(page).toHaveURL(/\/cluster$/);
  await expect(page.getByRole('heading', { name: 'Cluster' })).toBeVisible();
  await expect(page.getByText(/GANTRY_NODE_TIMEOUT_SECONDS/)).toBeVisible();

  const table = page.getByRole('table', { name: 'Server nodes' });
  const row = table.getByRole('row').filter({ hasText: self.id });
  await expect(row).toHaveCount(1);
  await expect(row.getByText('this node', { exact: true })).toBeVisible();
  await expect(row.getByRole('cell').nth(1)).toHaveText(self.address);
  await expect(row.getByRole('cell').nth(2)).toHaveText(self.version);
  await expect(row.getByRole('cell').nth(4)).toHaveText(/^\d+(\.\d)? s ago$/);
  // What the API counts now (other specs may leave a plan waiting for confirmation on this node).
  const runningNow = async () =>
    ((await (await page.request.get('/api/nodes')).json()) as ClusterNode[]).find((n) => n.id === self.id)!
      .running_tasks;
  await expect
    .poll(async () => (await row.getByRole('cell').nth(5).textContent()) === String(await runningNow()))
    .toBe(true);
  // A live node's heartbeat is recent: no warning.
  await expect(page.getByTestId('stale-heartbeat')).toHaveCount(0);
  await expect(page.getByRole('menu')).toBeHidden();
  await shot(page, 'cluster');

  await signInAsNewUser(page, 'cluster', 'Cleo Cluster', 'cluster-pass-1');
  await openUserMenu(page);
  await expect(page.getByRole('menuitem', { name: 'Sign out' })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'Cluster' })).toHaveCount(0);
  await page.keyboard.press('Escape');
  // The page renders nothing for a non-admin and does not even ask for the nodes.
  const asked: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/nodes') asked.push(r.url());
  });
  await page.goto('/cluster');
  await expect(page.getByTestId('user-name')).toHaveText('Cleo Cluster');
  await page.waitForLoadState('networkidle');
  await expect(page.getByRole('table')).toHaveCount(0);
  expect(asked).toEqual([]);
  await expect(page.getByText(self.address)).toHaveCount(0);
  expect((await page.request.get('/api/nodes')).status()).toBe(403);
});

test('the page flags a silent node, shows a failed load with Retry, a skeleton while loading and an empty list', async ({
  page,
}) => {
  // The states one live server cannot produce, from answers given in the browser.
  const now = Date.now();
  const node = (id: string, age: number, self: boolean): ClusterNode => ({
    id,
    address: `${id}.example:3000`,
    version: '0.1.0',
    started: new Date(now - 3_600_000).toISOString(),
    last_heartbeat: new Date(now - age * 1000).toISOString(),
    heartbeat_age_seconds: age,
    running_tasks: self ? 0 : 3,
    self,
  });
  let answer: 'error' | 'slow' | 'nodes' | 'empty' = 'error';
  await page.route('**/api/nodes', async (route) => {
    if (answer === 'error') return route.fulfill({ status: 503, json: { error: 'Database is not reachable' } });
    if (answer === 'empty') return route.fulfill({ json: [] });
    if (answer === 'slow') await new Promise((r) => setTimeout(r, 3_000));
    return route.fulfill({ json: [node('node-a', 1.2, true), node('node-b', 42, false)] });
  });

  await signIn(page);
  await page.goto('/cluster');
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('Database is not reachable');
  await expect(page.getByRole('table')).toHaveCount(0);
  await shot(page, 'cluster-error');
  answer = 'slow';
  await alert.getByRole('button', { name: 'Retry' }).click();
  await expect(alert).toBeHidden();
  await expect(page.getByRole('table', { name: 'Server nodes' })).toBeVisible();

  const stale = page.getByRole('row').filter({ hasText: 'node-b' });
  await expect(stale.getByTestId('stale-heartbeat')).toHaveText(/^\d+ s ago$/);
  await expect(stale.getByRole('cell').nth(5)).toHaveText('3');
  await expect(page.getByRole('row').filter({ hasText: 'node-a' }).getByTestId('stale-heartbeat')).toHaveCount(0);
  await stale.getByTestId('stale-heartbeat').hover();
  const tooltip = page.getByRole('tooltip');
  await expect(tooltip).toHaveText('No heartbeat for more than 10 s: this node may be down');
  await expect(tooltip).toHaveCSS('opacity', '1');
  await shot(page, 'cluster-stale');

  // A fresh visit waits for the slow answer behind placeholder rows.
  await page.goto('/cluster');
  await expect(page.getByRole('table', { name: 'Loading server nodes' })).toBeVisible();
  await shot(page, 'cluster-loading');
  await expect(page.getByRole('table', { name: 'Server nodes' })).toBeVisible();

  answer = 'empty';
  await page.goto('/cluster');
  await expect(page.getByText('No server nodes yet')).toBeVisible();
  await shot(page, 'cluster-empty');
});
