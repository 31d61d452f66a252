import { expect, test, type Page } from '@playwright/test';
import { apiPost } from './api-calls';
import { seriousAxeFindings, stillFrame } from './axe';
import { openUserMenu } from './helpers';
import { addVirtualAuthenticator } from './passkey-helpers';
import { shot } from './shots';
import { codeFor } from './totp-helpers';
import { POLICY_URL, seedTwoFactorPolicy } from './two-factor-seed';

// WebAuthn takes a domain as the relying party, never an IP address: this spec goes through "localhost".
const port = Number(process.env.GANTRY_E2E_PORT ?? 3917);
test.use({ baseURL: `http://localhost:${port}` });

const H = { 'x-gantry-request': '1' };

async function passwordStep(page: Page, login: string, password: string): Promise<void> {
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function signOut(page: Page): Promise<void> {
  await openUserMenu(page);
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Gantry' })).toBeVisible();
}

/** Nothing scrolls sideways at 390 px; a picture of each width for a person to look at. */
async function bothWidths(page: Page, name: string): Promise<void> {
  await shot(page, `${name}-desktop`);
  await page.setViewportSize({ width: 390, height: 844 });
  await stillFrame(page);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, `${name}-phone`);
  await page.setViewportSize({ width: 1366, height: 860 });
}

test('with two-factor required, a user enrols with a passkey, lands in the console, and the second step offers what they have', async ({
  page,
  baseURL,
}) => {
  const projectName = `Passkey enrolment ${Date.now().toString(36)}`;
  const { sec, member, project, release } = await seedTwoFactorPolicy(baseURL!, 'pk', projectName);
  const on = await sec.put(POLICY_URL, { data: { required: 'all' }, headers: H });
  expect(on.status()).toBe(200);

  try {
    await addVirtualAuthenticator(page);
    // The password: the enrolment screen offers an authenticator app and a passkey.
    await page.goto(`/project/${project.id}/history`);
    await passwordStep(page, member.login, member.password);
    await expect(page.getByRole('heading', { name: 'Set up two-factor sign-in' })).toBeVisible();
    await expect(page.getByText('Set it up with an authenticator app or a passkey to continue.')).toBeVisible();
    const methods = page.getByRole('tablist', { name: 'Two-factor method' });
    await expect(methods.getByRole('tab', { name: 'Authenticator app' })).toHaveAttribute('aria-selected', 'true');
    await methods.getByRole('tab', { name: 'Passkey' }).click();
    const panel = page.getByRole('tabpanel', { name: 'Passkey' });
    await expect(panel.getByLabel('Name')).toHaveValue('My passkey');
    expect(await seriousAxeFindings(page)).toEqual([]);
    await bothWidths(page, 'enrolment-passkey');

    await panel.getByLabel('Name').fill('Pia phone');
    await panel.getByLabel('Current password').fill(member.password);
    await panel.getByRole('button', { name: 'Add a passkey' }).click();
    // The requirement is met: the same session goes on to the page the user was going to.
    await expect(page.getByTestId('current-project-name')).toHaveText(projectName);
    await expect(page).toHaveURL(new RegExp(`/project/${project.id}/history$`));
    await signOut(page);

    // Passkey only: the second step shows no code field and no recovery code, only the passkey.
    await passwordStep(page, member.login, member.password);
    await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible();
    const usePasskey = page.getByRole('button', { name: 'Use a passkey' });
    await expect(usePasskey).toBeVisible();
    await expect(usePasskey).toBeFocused();
    await expect(page.getByLabel('Verification code')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Use a recovery code' })).toHaveCount(0);
    expect(await seriousAxeFindings(page)).toEqual([]);
    await bothWidths(page, 'second-step-passkey-only');
    await usePasskey.click();
    await expect(page.getByTestId('user-name')).toHaveText(member.name);

    // With an authenticator app as well: both ways, and the recovery code (the server allows it).
    const totp = await apiPost<{ id: number; secret: string }>(page.request, `/api/users/${member.id}/2fas/totp`, {
      password: member.password,
    });
    await apiPost(page.request, `/api/users/${member.id}/2fas/totp/${totp.id}/confirm`, {
      code: codeFor(totp.secret),
    });
    await signOut(page);
    await passwordStep(page, member.login, member.password);
    await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible();
    await expect(page.getByLabel('Verification code')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Use a passkey' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Use a recovery code' })).toBeVisible();
    expect(await seriousAxeFindings(page)).toEqual([]);
    await bothWidths(page, 'second-step-both');
    await page.getByLabel('Verification code').pressSequentially(codeFor(totp.secret, 1));
    await expect(page.getByTestId('user-name')).toHaveText(member.name);
  } finally {
    // The other specs sign in without two-factor: the requirement goes off again.
    await release();
  }
});
