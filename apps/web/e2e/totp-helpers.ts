import { expect, type Locator, type Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';

/** The code an authenticator app holding this setup key (as the console shows it, in groups) gives `steps` steps from now. */
export function codeFor(shownKey: string, steps = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(shownKey.replace(/\s+/g, '')) });
  return totp.generate({ timestamp: Date.now() + steps * 30_000 });
}

/** A six-digit code that is none of this key's codes around now. */
export function wrongCodeFor(shownKey: string): string {
  const valid = new Set([-1, 0, 1, 2].map((s) => codeFor(shownKey, s)));
  let n = 0;
  while (valid.has(String(n).padStart(6, '0'))) n += 1;
  return String(n).padStart(6, '0');
}

/**
 * In the account's Security tab: Enable, the current password, then a code computed from the
 * setup key the dialog shows. Answers the setup key (grouped as shown).
 */
export async function enrolTotp(page: Page, account: Locator, password: string): Promise<string> {
  await account.getByRole('button', { name: 'Enable two-factor sign-in' }).click();
  const enable = page.getByRole('dialog', { name: 'Enable two-factor sign-in' });
  await enable.getByLabel('Current password').fill(password);
  await enable.getByRole('button', { name: 'Continue' }).click();
  const key = (await enable.getByTestId('totp-secret').textContent())!;
  await enable.getByLabel('Verification code').fill(codeFor(key));
  await enable.getByRole('button', { name: 'Enable', exact: true }).click();
  await expect(enable).toHaveCount(0);
  return key;
}
