import { expect, test, type Page } from '@playwright/test';
import { shot } from './shots';
import {
  MAIN_PAGES,
  PHONE_PAGES,
  apiSignIn,
  dictionary,
  seedConsole,
  visit,
  type ConsoleFixture,
  type Dictionary,
} from './console-pages';

const PHONE = { width: 390, height: 844 };

test.use({ viewport: PHONE, isMobile: true, hasTouch: true });

let fixture: ConsoleFixture;

test.beforeAll(async ({ playwright }, info) => {
  test.setTimeout(120_000);
  fixture = await seedConsole(playwright, info.project.use.baseURL!);
});

/** Picks a language the way a person does: the drawer, the user menu, Language, the language. */
async function chooseLanguage(page: Page, from: Dictionary, name: string, to: Dictionary): Promise<void> {
  await page.getByRole('button', { name: from.shell.openMenu }).click();
  await page.getByLabel(from.shell.userMenu).click();
  await page.getByRole('menuitem', { name: from.shell.language }).click();
  await page.getByRole('menu', { name: from.shell.language }).getByRole('menuitem', { name, exact: true }).click();
  await expect(page.getByRole('menu')).toHaveCount(0);
  await expect(page.locator('html')).toHaveAttribute('lang', to === from ? 'en' : /^(de|ru)$/);
}

/** What sticks out of a phone's screen: the page scrolling sideways, cut buttons, cut labels. */
async function problems(page: Page, where: string, buttons: string[]): Promise<string[]> {
  const found: string[] = [];
  const page_ = await page.evaluate(() => {
    const s = document.scrollingElement!;
    // The widest elements that reach past the right edge, to say what overflows.
    const wide = [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => el.getBoundingClientRect().right > s.clientWidth + 1 && getComputedStyle(el).position !== 'fixed')
      .filter(
        (el) => !el.closest('[data-testid="task-log"], .MuiTableContainer-root, .MuiTabs-scroller, [role="tablist"]'),
      )
      .slice(-3)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}.${[...el.classList].slice(0, 2).join('.')} "${(el.textContent ?? '').trim().slice(0, 30)}"`,
      );
    return { scrollWidth: s.scrollWidth, clientWidth: s.clientWidth, wide };
  });
  if (page_.scrollWidth > page_.clientWidth)
    found.push(
      `${where}: the page scrolls sideways (${page_.scrollWidth} > ${page_.clientWidth}): ${page_.wide.join(', ')}`,
    );
  for (const name of buttons) {
    const button = page
      .getByRole('button', { name, exact: true })
      .or(page.getByRole('tab', { name, exact: true }))
      .first();
    const box = await button.boundingBox();
    if (!box) found.push(`${where}: "${name}" is not shown`);
    else if (box.x < 0 || box.x + box.width > PHONE.width + 0.5)
      found.push(`${where}: "${name}" is cut (${Math.round(box.x)}..${Math.round(box.x + box.width)})`);
  }
  // Field labels and tabs shown whole: not cut with an ellipsis, not hidden past a tab bar's end.
  const cut = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('[role="dialog"] .MuiInputLabel-root, [role="tab"]')]
      .filter((el) => {
        if (!el.offsetParent) return false;
        if (el.scrollWidth > el.clientWidth + 1) return true;
        const bar = el.closest('.MuiTabs-fixed');
        return !!bar && el.getBoundingClientRect().right > bar.getBoundingClientRect().right + 1;
      })
      .map((el) => (el.textContent ?? '').trim()),
  );
  for (const label of cut) found.push(`${where}: "${label}" is cut`);
  return found;
}

for (const [code, name] of [
  ['en', 'English'],
  ['de', 'Deutsch'],
  ['ru', 'Русский'],
] as const) {
  test(`every main page fits a phone in ${code}`, async ({ page }) => {
    test.setTimeout(240_000);
    const en = dictionary('en');
    const d = dictionary(code);
    const found: string[] = [];

    await apiSignIn(page.request);
    await page.goto(`/project/${fixture.p}/history`);
    if (code !== 'en') await chooseLanguage(page, en, name, d);

    for (const screen of [...MAIN_PAGES, ...PHONE_PAGES]) {
      await visit(page, screen, d, fixture);
      found.push(...(await problems(page, screen.name, screen.buttons?.(d) ?? [])));
      await shot(page, `phone-${code}-${screen.name.replace(/ /g, '-')}`);
      if (screen.name === 'task log dialog') {
        // The header keeps the template's name readable.
        const header = page.getByRole('dialog').getByText(fixture.logTemplate, { exact: true });
        const clipped = await header.evaluate(
          (el) => el.getBoundingClientRect().width < 40 || el.scrollWidth > el.clientWidth + 1,
        );
        if (clipped) found.push(`${screen.name}: the template name "${fixture.logTemplate}" is cut`);
      }
    }
    // Signed out, the sign-in page keeps the chosen language.
    await page.context().clearCookies();
    await page.goto('/auth/login');
    await expect(page.getByRole('heading', { level: 1, name: d.auth.title })).toBeVisible();
    found.push(...(await problems(page, 'sign-in', [d.auth.signIn])));
    expect(found, `layout problems at 390 px in ${code}:\n${found.join('\n')}`).toEqual([]);
  });
}
