import { defineConfig } from '@playwright/test';
import base from './playwright.config';

/**
 * `npm run screenshots` (after `npm run build`): e2e/screenshots.spec.ts visits every screen in
 * each look below and writes docs/screenshots/<look>/<screen>.png. The normal browser suite skips
 * that spec, so `npm test` does not grow. Pictures at device scale 1 keep the files small.
 */
export default defineConfig({
  ...base,
  testIgnore: [],
  testMatch: 'screenshots.spec.ts',
  projects: [
    { name: 'light', use: { viewport: { width: 1366, height: 860 }, deviceScaleFactor: 1 } },
    { name: 'dark', use: { viewport: { width: 1366, height: 860 }, deviceScaleFactor: 1, colorScheme: 'dark' } },
    { name: 'mobile', use: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true } },
  ],
});
