import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/** Waits until no transition or finite animation runs: axe measures colours, and a menu fading in has half its contrast. */
export async function stillFrame(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity),
  );
}

/** Serious and critical axe findings on the page once it stopped moving (or only inside `within`), one line per element. */
export async function seriousAxeFindings(page: Page, within?: string): Promise<string[]> {
  await stillFrame(page);
  const builder = new AxeBuilder({ page });
  const result = await (within ? builder.include(within) : builder).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}
