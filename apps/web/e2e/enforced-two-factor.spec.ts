import { expect, test } from '@playwright/test';
import { seriousAxeFindings } from './axe';
import { unique } from './helpers';
import { shot } from './shots';
import { codeFor } from './totp-helpers';
import { POLICY_URL, seedTwoFactorPolicy } from './two-factor-seed';

test('an admin requires two-factor sign-in of everyone; a user without it can only enrol, then lands on their project', async ({
  page,
  browser,
  baseURL,
}) => {
  const projectName = unique('Enforced');
  const { sec, secAdmin, member, project, release } = await seedTwoFactorPolicy(baseURL!, 'sec', projectName);

  try {
    // The admin signs in (password, then a code) and sets "Everyone" on the Security page.
    await page.goto('/auth/login');
    await page.getByLabel('Username or email').fill(secAdmin.login);
    await page.getByLabel('Password', { exact: true }).fill(secAdmin.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByLabel('Verification code').pressSequentially(codeFor(secAdmin.totpSecret, 1));
    await expect(page.getByLabel('User menu')).toBeVisible();
    await page.getByLabel('User menu').click();
    await page.getByRole('menuitem', { name: 'Security' }).click();
    await expect(page.getByRole('heading', { name: 'Security' })).toBeVisible();
    const policy = page.getByRole('radiogroup', { name: 'Two-factor sign-in' });
    await expect(policy.getByRole('radio', { name: 'Off' })).toBeChecked();
    await policy.getByRole('radio', { name: 'Everyone' }).check();
    await expect(page.getByText('This covers you too')).toBeVisible();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('snackbar')).toHaveText('The two-factor sign-in setting has been saved.');
    expect(await seriousAxeFindings(page)).toEqual([]);
    await shot(page, 'security-page');
    // On a phone: nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(policy.getByRole('radio', { name: 'Everyone' })).toBeInViewport();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, 'security-phone');
    expect((await (await sec.get(POLICY_URL)).json()).required).toBe('all');

    // The user signs in with the password and sees only the enrolment screen.
    const userContext = await browser.newContext();
    const user = await userContext.newPage();
    await user.goto(`/project/${project.id}/history`);
    await user.getByLabel('Username or email').fill(member.login);
    await user.getByLabel('Password', { exact: true }).fill(member.password);
    await user.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(user.getByRole('heading', { name: 'Set up two-factor sign-in' })).toBeVisible();
    await expect(user.getByLabel('User menu')).toHaveCount(0);
    await expect(user.getByRole('navigation')).toHaveCount(0);
    await expect(user.getByRole('button', { name: 'Sign out' })).toBeVisible();
    // Everything else answers the enrolment code meanwhile.
    const blocked = await user.request.get('/api/projects');
    expect(blocked.status()).toBe(403);
    expect(await blocked.json()).toEqual({
      error: 'Set up two-factor sign-in to continue',
      code: 'totp_enrolment_required',
    });

    await user.getByLabel('Current password').fill(member.password);
    await user.getByRole('button', { name: 'Continue' }).click();
    const qr = user.getByRole('img', { name: 'QR code for your authenticator app' });
    await expect(qr).toBeVisible();
    await expect
      .poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(100);
    const key = (await user.getByTestId('totp-secret').textContent())!;
    expect(await seriousAxeFindings(user)).toEqual([]);
    // On a phone: nothing scrolls sideways.
    await user.setViewportSize({ width: 390, height: 844 });
    await expect(qr).toBeVisible();
    expect(await user.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(user, 'enrolment-phone');
    await user.setViewportSize({ width: 1366, height: 860 });

    await user.getByLabel('Verification code').fill(codeFor(key));
    await user.getByLabel('Verification code').press('Enter');
    await expect(user.getByText('Two-factor sign-in is on.')).toBeVisible();
    await expect(user.getByTestId('recovery-code')).toHaveText(/^[a-z0-9]{16}$/);
    await shot(user, 'enrolment-done');
    await user.getByRole('button', { name: 'Continue' }).click();

    // The same session goes on to the page the user was going to: the project.
    await expect(user.getByTestId('current-project-name')).toHaveText(projectName);
    await expect(user).toHaveURL(new RegExp(`/project/${project.id}/history$`));
    await expect(user.getByLabel('User menu')).toBeVisible();
    await userContext.close();
  } finally {
    // The other specs sign in without two-factor: the requirement goes off again.
    await release();
  }
});
