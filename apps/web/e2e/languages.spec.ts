import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type english from '../src/locales/en.json';
import { signIn, unique } from './helpers';

type Dictionary = typeof english;

/** A dictionary as the console ships it; the expected texts come from here, not from this test. */
function dictionary(code: string): Dictionary {
  return JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, `../src/locales/${code}.json`), 'utf8')) as Dictionary;
}

const en = dictionary('en');

/** The texts this test looks for, in one language. */
function texts(d: Dictionary) {
  return {
    language: d.shell.language,
    nav: d.shell.projects,
    dashboard: d.shell.dashboard,
    templates: d.templates.title,
    keys: d.keys.title,
    newTemplate: d.templates.new,
    newTemplateTitle: d.templates.newTitle,
    cancel: d.common.cancel,
    activity: d.projects.activity,
    activityTime: d.activity.time,
    userMenu: d.shell.userMenu,
  };
}
type Texts = ReturnType<typeof texts>;

/** Loanwords that a translation may rightly keep ("Dashboard" in German). */
const MAY_STAY: readonly (keyof Texts)[] = ['dashboard'];

/** The translated texts, checked to differ from English, so an untranslated file cannot pass. */
function translated(code: string): Texts {
  const t = texts(dictionary(code));
  const english = texts(en);
  for (const key of Object.keys(t) as (keyof Texts)[]) {
    if (!MAY_STAY.includes(key)) expect(t[key], `${code}: ${key} is translated`).not.toBe(english[key]);
  }
  return t;
}

/** Dictionaries the page downloads (assets/locale-<code>-<hash>.js), in order. */
function watchDictionaries(page: Page): string[] {
  const loaded: string[] = [];
  page.on('request', (r) => {
    const m = /\/assets\/locale-([A-Za-z-]+?)-[\w-]{8}\.js$/.exec(new URL(r.url()).pathname);
    if (m) loaded.push(m[1]!);
  });
  return loaded;
}

async function chooseLanguage(page: Page, from: Texts, name: string): Promise<void> {
  await page.getByLabel(from.userMenu).click();
  await page.getByRole('menuitem', { name: from.language }).click();
  await page.getByRole('menu', { name: from.language }).getByRole('menuitem', { name, exact: true }).click();
  await expect(page.getByRole('menu')).toHaveCount(0);
}

/** The sidebar, the templates page and its New template dialog, and the activity page's dates. */
async function expectConsoleIn(page: Page, code: string, t: Texts, date: RegExp): Promise<void> {
  await expect(page.locator('html')).toHaveAttribute('lang', code);
  await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
  const nav = page.getByRole('navigation', { name: t.nav });
  await expect(nav.getByRole('link', { name: t.dashboard })).toBeVisible();
  await expect(nav.getByRole('link', { name: t.keys })).toBeVisible();

  await nav.getByRole('link', { name: t.templates }).click();
  await expect(page.getByRole('heading', { level: 1, name: t.templates })).toBeVisible();
  await page.getByRole('button', { name: t.newTemplate }).click();
  const dialog = page.getByRole('dialog', { name: t.newTemplateTitle });
  await dialog.getByRole('button', { name: t.cancel, exact: true }).click();
  await expect(dialog).toBeHidden();

  await nav.getByRole('link', { name: t.dashboard }).click();
  await page.getByRole('tab', { name: t.activity }).click();
  await expect(page.getByRole('columnheader', { name: t.activityTime })).toBeVisible();
  const time = page.getByRole('row').nth(1).getByRole('cell').first();
  await expect(time).toHaveText(date);
}

const GERMAN_DATE = /^\d{1,2}\.\d{1,2}\.\d{4}, \d{2}:\d{2}:\d{2}$/;
const JAPANESE_DATE = /^\d{4}\/\d{1,2}\/\d{1,2} \d{1,2}:\d{2}:\d{2}$/;
const ENGLISH_DATE = /^\d{1,2}\/\d{1,2}\/\d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M$/;

declare global {
  interface Window {
    __sawEnglish?: boolean;
  }
}

test('the console switches to German and Japanese at once, downloads only that dictionary, remembers it, and goes back to English', async ({ page }) => {
  const de = translated('de');
  const ja = translated('ja');
  const english = texts(en);
  const loaded = watchDictionaries(page);

  await signIn(page);
  const project = await page.request.post('/api/projects', { data: { name: unique('Languages') }, headers: { 'x-gantry-request': '1' } });
  expect(project.status()).toBe(201);
  await page.goto(`/project/${((await project.json()) as { id: number }).id}/history`);
  await expectConsoleIn(page, 'en', english, ENGLISH_DATE);
  // English is in the main bundle: nothing else was fetched.
  expect(loaded).toEqual([]);

  await chooseLanguage(page, english, 'Deutsch');
  await expectConsoleIn(page, 'de', de, GERMAN_DATE);
  expect(loaded).toEqual(['de']);

  // A new visit starts in German.
  await page.reload();
  await expect(page.getByRole('navigation', { name: de.nav }).getByRole('link', { name: de.templates })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  expect(new Set(loaded)).toEqual(new Set(['de']));

  loaded.length = 0;
  await chooseLanguage(page, de, '日本語');
  await expectConsoleIn(page, 'ja', ja, JAPANESE_DATE);
  expect(loaded).toEqual(['ja']);

  loaded.length = 0;
  await chooseLanguage(page, ja, 'English');
  await expectConsoleIn(page, 'en', english, ENGLISH_DATE);
  expect(loaded).toEqual([]);
});

test('a saved language shows from the first render on, sign-in page included', async ({ page }) => {
  const de = dictionary('de');
  expect(de.auth.title).not.toBe(en.auth.title);
  await page.addInitScript((english) => {
    window.localStorage.setItem('lang', 'de');
    new MutationObserver(() => {
      if (document.body?.textContent?.includes(english)) window.__sawEnglish = true;
    }).observe(document, { subtree: true, childList: true, characterData: true });
  }, en.auth.title);
  // A slow dictionary: were the page drawn before it arrived, it would be drawn in English.
  await page.route(/\/assets\/locale-/, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await route.continue();
  });
  await page.goto('/auth/login');
  await expect(page.getByRole('heading', { name: de.auth.title })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  expect(await page.evaluate(() => window.__sawEnglish ?? false)).toBe(false);
});

test('the language menu lists all fourteen languages, each in its own name', async ({ page }) => {
  await signIn(page);
  await page.getByLabel(en.shell.userMenu).click();
  await page.getByRole('menuitem', { name: en.shell.language }).click();
  await expect(page.getByRole('menu', { name: en.shell.language }).getByRole('menuitem')).toHaveText([
    'English',
    'Español',
    'Русский',
    'Deutsch',
    'Nederlands',
    '简体中文',
    '繁體中文',
    'Français',
    'Italiano',
    'Polski',
    'Português',
    'Português (Brasil)',
    '日本語',
    '한국어',
  ]);
});
