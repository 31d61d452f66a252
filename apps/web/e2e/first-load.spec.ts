import { expect, test, type Request } from '@playwright/test';
import { seriousAxeFindings } from './axe';
import { signIn, unique } from './helpers';

const H = { 'x-gantry-request': '1' };

/**
 * A first load, as a phone on a slow network meets it: something on screen before any script,
 * and the page's files and first API calls named with index.html (Link preloads), each asked for
 * once (a preload the page's own call did not take would be a second request).
 */
test('a first load shows the spinner before any script, then the dashboard, asking for each file and call once', async ({ page }) => {
  await signIn(page);
  const project = await (await page.request.post('/api/projects', { data: { name: unique('First load') }, headers: H })).json();

  // Without its scripts the page still shows the spinner (and nothing for a screen reader).
  await page.route('**/assets/*.js', (route) => route.abort());
  await page.goto(`/project/${project.id}/history`);
  await expect(page.locator('#root .boot svg')).toBeVisible();
  await expect(page.locator('#root .boot')).toHaveAttribute('aria-hidden', 'true');
  await page.unroute('**/assets/*.js');

  // The socket stays shut here: once open it reads the task lists again on purpose (updates sent
  // before it opened were missed), which would hide a preload the page did not take.
  await page.routeWebSocket(/\/api\/ws/, (ws) => ws.close());
  const asked: string[] = [];
  const count = (r: Request) => asked.push(new URL(r.url()).pathname + new URL(r.url()).search);
  page.on('request', count);
  const answer = await page.goto(`/project/${project.id}/history`);
  const link = answer?.headers().link ?? '';
  expect(link).toContain('rel=modulepreload');
  expect(link).toContain(`</api/project/${project.id}/tasks/last?limit=100>; rel=preload; as=fetch; crossorigin`);
  await expect(page.getByRole('heading', { level: 1, name: project.name })).toBeVisible();
  // The spinner is gone with the first render.
  await expect(page.locator('#root .boot')).toHaveCount(0);
  await page.waitForLoadState('networkidle');
  page.off('request', count);

  for (const url of ['/api/user', '/api/info', '/api/projects', `/api/project/${project.id}/role`, `/api/project/${project.id}/tasks/last?limit=100`]) {
    expect(asked.filter((u) => u === url), url).toHaveLength(1);
  }
  const files = asked.filter((u) => u.startsWith('/assets/'));
  expect(new Set(files).size, files.join(' ')).toBe(files.length);
  // Every file the header names was used by the page (asked for once, never twice).
  for (const [, file] of link.matchAll(/<(\/assets\/[^>]+)>/g)) expect(files, file).toContain(file);
  expect(await seriousAxeFindings(page)).toEqual([]);
});

test('the sign-in page loads its own few files, not the signed-in console’s', async ({ page }) => {
  const asked: string[] = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  const answer = await page.goto('/auth/login');
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await page.waitForLoadState('networkidle');
  const files = asked.filter((u) => u.startsWith('/assets/') && u.endsWith('.js'));
  expect(files.some((f) => /\/console-/.test(f)), files.join(' ')).toBe(false);
  expect(files.length, files.join(' ')).toBeLessThanOrEqual(8);
  for (const [, file] of (answer?.headers().link ?? '').matchAll(/<(\/assets\/[^>]+)>/g)) expect(files).toContain(file);
});
