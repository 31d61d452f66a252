import fs from 'node:fs';
import type { Page } from '@playwright/test';

/** Saves a screenshot for a person to look at (GANTRY_SHOTS=dir); no-op otherwise. */
export async function shot(page: Page, name: string): Promise<void> {
  const dir = process.env.GANTRY_SHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}
