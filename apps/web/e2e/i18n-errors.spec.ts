import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page, type Route } from '@playwright/test';
import i18next, { type TFunction } from 'i18next';
import type english from '../src/locales/en.json';
import { seriousAxeFindings } from './axe';
import { E2E_ADMIN } from './helpers';
import { shot } from './shots';

type Dictionary = typeof english;

/** A dictionary as the console ships it; the expected texts come from here, not from this test. */
function dictionary(code: string): Dictionary {
  return JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, `../src/locales/${code}.json`), 'utf8')) as Dictionary;
}

const de = dictionary('de');
const fr = dictionary('fr');
const en = dictionary('en');

/** German texts as the console words them (nesting and {{params}} included). */
let deT: TFunction;
test.beforeAll(async () => {
  const i = i18next.createInstance();
  await i.init({ lng: 'de', resources: { de: { translation: de } }, interpolation: { escapeValue: false } });
  deT = i.t;
});

// A browser set to German, visiting for the first time (nothing remembered).
test.use({ locale: 'de-DE' });

async function signInByApi(page: Page): Promise<void> {
  const res = await page.request.post('/api/auth/login', { data: { auth: E2E_ADMIN.login, password: E2E_ADMIN.password }, headers: { 'x-gantry-request': '1' } });
  expect(res.status()).toBe(204);
}

/** Answers the sign-in call (POST) as given; the page's other calls, its GET included, go through. */
async function onSignIn(page: Page, answer: (route: Route) => Promise<void>): Promise<void> {
  await page.route('**/api/auth/login', (route) => (route.request().method() === 'POST' ? answer(route) : route.fallback()));
}

/** Fills the sign-in form in German and sends it. */
async function submitSignIn(page: Page, password: string): Promise<void> {
  await page.getByLabel(de.auth.username).fill(E2E_ADMIN.login);
  await page.getByLabel(de.auth.password, { exact: true }).fill(password);
  await page.getByRole('button', { name: de.auth.signIn, exact: true }).click();
}

test("a first visit follows the browser's language; the sign-in page's language menu switches, and the choice wins", async ({ page }) => {
  await page.goto('/auth/login');
  await expect(page.getByRole('heading', { level: 1, name: de.auth.title })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  await expect(page.getByLabel(de.auth.username)).toBeVisible();

  const menuButton = page.getByRole('button', { name: de.shell.languageButton.replace('{{language}}', 'Deutsch') });
  await expect(menuButton).toHaveText('Deutsch');
  await shot(page, 'i18n-sign-in-de');
  expect(await seriousAxeFindings(page)).toEqual([]);
  await menuButton.click();
  const menu = page.getByRole('menu', { name: de.shell.language });
  await expect(menu.getByRole('menuitem', { name: 'Deutsch' })).toHaveClass(/Mui-selected/);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await menu.getByRole('menuitem', { name: 'Français', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: fr.auth.title })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await expect(page.getByRole('button', { name: fr.shell.languageButton.replace('{{language}}', 'Français') })).toBeFocused();

  // The choice is remembered and wins over the browser's German.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: fr.auth.title })).toBeVisible();

  // The menu by keyboard: Enter opens it, arrows move, Enter picks.
  await page.getByRole('button', { name: fr.shell.languageButton.replace('{{language}}', 'Français') }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('menu', { name: fr.shell.language }).getByRole('menuitem', { name: 'Français' })).toBeFocused();
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: en.auth.title })).toBeVisible();

  // At phone width nothing runs off the side.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('button', { name: en.shell.languageButton.replace('{{language}}', 'English') })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'i18n-sign-in-en-phone');
  await page.getByRole('button', { name: en.shell.languageButton.replace('{{language}}', 'English') }).click();
  await expect(page.getByRole('menu', { name: en.shell.language })).toBeVisible();
  await expect(page.locator('.MuiMenu-paper')).toHaveCSS('opacity', '1');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'i18n-language-menu-phone');
});

test('a wrong password is told in German', async ({ page }) => {
  await page.goto('/auth/login');
  await submitSignIn(page, 'not-the-password');
  const expected = deT('errors.incorrect_login');
  expect(expected).not.toBe('errors.incorrect_login');
  await expect(page.getByRole('alert')).toHaveText(expected);
});

test("a form's own check of a contracts rule is worded in German", async ({ page }) => {
  await signInByApi(page);
  await page.goto('/project/new');
  await expect(page.getByRole('heading', { level: 1, name: de.projects.newTitle })).toBeVisible();
  await page.getByRole('button', { name: de.projects.create, exact: true }).click();
  const name = page.getByRole('textbox', { name: de.projects.name });
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  const expected = deT('errors.field_required', { label_key: 'project_name' });
  expect(expected).not.toMatch(/errors\.|fieldLabels\.|Project name/);
  await expect(page.getByText(expected, { exact: true })).toBeVisible();
  await shot(page, 'i18n-new-project-de');
});

test('a server that cannot be reached is told so, in German, with what to do', async ({ page }) => {
  await page.goto('/auth/login');
  await onSignIn(page, (route) => route.abort('internetdisconnected'));
  await submitSignIn(page, 'whatever');
  await expect(page.getByRole('alert').filter({ hasText: de.app.unreachable })).toHaveText(de.app.unreachable);
  await expect(page.getByText('Failed to fetch')).toHaveCount(0);
});

test("the server's own failure is told in German with what to do, not as a bare 500", async ({ page }) => {
  await page.goto('/auth/login');
  await onSignIn(page, (route) => route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: 'Internal server error', code: 'internal_error' }) }));
  await submitSignIn(page, 'whatever');
  const expected = de.app.serverProblem.replace('{{status}}', '500');
  await expect(page.getByRole('alert')).toHaveText(expected);
  await shot(page, 'i18n-server-problem-de');
});

test("an unreachable sign-in provider is named in German, without the server's internals", async ({ page }) => {
  // Where the server sends the browser back when the provider did not answer (oidc.routes.ts).
  const query = new URLSearchParams({ error: 'The sign-in provider Corp SSO could not be reached; please try again later', code: 'oidc_provider_unreachable', provider: 'Corp SSO' });
  await page.goto(`/auth/login?${query.toString()}`);
  await expect(page.getByRole('alert')).toHaveText(de.errors.oidc_provider_unreachable.replace('{{provider}}', 'Corp SSO'));
});
