import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { shot } from './shots';
import { MAIN_PAGES, apiSignIn, dictionary, seedConsole, settle, visit, type ConsoleFixture } from './console-pages';

const en = dictionary('en');

/**
 * What fails the check: every serious or critical violation, and the structure problems axe rates
 * lower that the console promises anyway (no skipped heading level, every column has a header, the
 * content in a main landmark).
 */
const ALSO_FAILS = new Set(['heading-order', 'empty-table-header', 'landmark-one-main']);

/** Runs axe on the page as it is; answers one line per violating element. */
async function violations(page: Page, where: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical' || ALSO_FAILS.has(v.id))
    .flatMap((v) =>
      v.nodes.map(
        (n) =>
          `${where}: ${v.id} (${v.impact}) ${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1, 2).join('').trim() ?? ''}`,
      ),
    );
}

let fixture: ConsoleFixture;

test.beforeAll(async ({ playwright }, info) => {
  test.setTimeout(120_000);
  fixture = await seedConsole(playwright, info.project.use.baseURL!);
});

for (const mode of ['light', 'dark'] as const) {
  test(`every main page passes axe in ${mode} mode`, async ({ page }) => {
    test.setTimeout(240_000);
    await page.addInitScript((dark) => window.localStorage.setItem('darkMode', String(dark)), mode === 'dark');
    const found: string[] = [];

    await page.goto('/auth/login');
    await expect(page.getByRole('heading', { level: 1, name: en.auth.title })).toBeVisible();
    await settle(page);
    found.push(...(await violations(page, 'sign-in')));

    await apiSignIn(page.request);
    for (const screen of MAIN_PAGES) {
      await visit(page, screen, en, fixture);
      found.push(...(await violations(page, screen.name)));
      await shot(page, `${mode}-${screen.name.replace(/ /g, '-')}`);
    }
    expect(found, `axe violations in ${mode} mode:\n${found.join('\n')}`).toEqual([]);
  });
}

/** The outline the focused element draws (width in px, style). */
async function focusRing(page: Page): Promise<{ tag: string; text: string; width: number; style: string; bg: string }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const s = getComputedStyle(el);
    return {
      tag: el.tagName,
      text: (el.textContent ?? '').trim(),
      width: parseFloat(s.outlineWidth),
      style: s.outlineStyle,
      bg: s.backgroundColor,
    };
  });
}

test('the keyboard: skip link first, focus rings on links, buttons and the log, distinct from the selected link', async ({
  page,
}) => {
  await apiSignIn(page.request);
  await page.goto(`/project/${fixture.p}/keys`);
  await expect(page.getByRole('heading', { level: 1, name: en.keys.title })).toBeVisible();
  await settle(page);

  // The first tab stop skips the sidebar and moves focus into the page.
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: en.shell.skipToContent });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await shot(page, 'keyboard-skip-link');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => !!document.activeElement?.closest('main'))).toBe(true);
  const button = await focusRing(page);
  expect(button.style, `focused ${button.tag} "${button.text}" shows a ring`).toBe('solid');
  expect(button.width).toBeGreaterThanOrEqual(2);

  // In the sidebar, the focused link has a ring; the selected one only its background.
  const nav = page.getByRole('navigation', { name: en.shell.projects });
  const selected = nav.getByRole('link', { name: en.keys.title });
  const other = nav.getByRole('link', { name: en.templates.title });
  await other.focus();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  await expect(other).toBeFocused();
  await shot(page, 'keyboard-sidebar-focus');
  const focused = await focusRing(page);
  expect(focused.style).toBe('solid');
  expect(focused.width).toBeGreaterThanOrEqual(2);
  const selectedStyle = await selected.evaluate((el) => {
    const s = getComputedStyle(el);
    return { style: s.outlineStyle, bg: s.backgroundColor };
  });
  expect(selectedStyle.style).toBe('none');
  expect(selectedStyle.bg).not.toBe(focused.bg);

  // The log scrolls by keyboard: it takes focus and shows it.
  await page.goto(`/project/${fixture.p}/history?t=${fixture.taskId}`);
  const log = page.getByRole('region', { name: en.tasks.log.region });
  await expect(log.getByTestId('log-line').first()).toBeVisible();
  await log.focus();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  await expect(log).toBeFocused();
  await shot(page, 'keyboard-log-focus');
  const ring = await focusRing(page);
  expect(ring.style).toBe('solid');
  expect(ring.width).toBeGreaterThanOrEqual(2);
});

test("the dashboard's tabs by keyboard: one tab stop, arrows, Home and End move, Enter and Space open, the ring shows", async ({
  page,
}) => {
  await apiSignIn(page.request);
  await page.goto(`/project/${fixture.p}/history`);
  const tabs = page.getByRole('tablist');
  const history = tabs.getByRole('tab', { name: en.projects.history });
  await expect(history).toHaveAttribute('aria-selected', 'true');
  await settle(page);
  // The selected tab is the row's only tab stop.
  expect(await tabs.getByRole('tab').evaluateAll((els) => els.map((el) => el.getAttribute('tabindex')))).toEqual([
    '0',
    '-1',
    '-1',
    '-1',
    '-1',
  ]);
  await history.focus();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  await expect(history).toBeFocused();

  await page.keyboard.press('ArrowRight');
  await expect(tabs.getByRole('tab', { name: en.projects.stats })).toBeFocused();
  const ring = await focusRing(page);
  expect(ring.style, 'a tab reached by an arrow shows the ring').toBe('solid');
  expect(ring.width).toBeGreaterThanOrEqual(2);
  await shot(page, 'keyboard-dashboard-tabs');
  await page.keyboard.press('End');
  await expect(tabs.getByRole('tab', { name: en.projects.runners })).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(history).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(tabs.getByRole('tab', { name: en.projects.runners })).toBeFocused();
  await page.keyboard.press('Home');
  await expect(history).toBeFocused();

  // Enter opens the focused tab; it becomes the selected one and the tab stop.
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/project/${fixture.p}/activity$`));
  const activity = tabs.getByRole('tab', { name: en.projects.activity });
  await expect(activity).toHaveAttribute('aria-selected', 'true');
  await expect(activity).toHaveAttribute('tabindex', '0');
  await expect(history).toHaveAttribute('aria-selected', 'false');
  // Space too.
  await activity.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Space');
  await expect(page).toHaveURL(new RegExp(`/project/${fixture.p}/settings$`));
  await expect(tabs.getByRole('tab', { name: en.projects.settings })).toHaveAttribute('aria-selected', 'true');
});
