import './lib/zod-config';
import { BOOT_STEPS, nextTask, startIntl } from './app/boot-steps';
import { firstRouteOf } from './app/first-routes';
import { loadShell } from './app/shell-loader';
import { prefetchSession } from './lib/query-client';

// The first page's files are on their way already (the server named them in index.html's answer:
// first-routes.ts), as are its first API calls (prefetchSession, started at once).
const path = window.location.pathname;
const signedInPage = !path.startsWith('/auth/');
if (signedInPage) prefetchSession(path);
const firstModules: Record<string, () => Promise<unknown>> = {
  'src/app/screens/sign-in.tsx': () => import('./app/screens/sign-in'),
  'src/app/shell/app-shell.tsx': loadShell,
  'src/app/screens/project-dashboard.ts': () => import('./app/screens/project-dashboard'),
  'src/app/screens/templates.ts': () => import('./app/screens/templates'),
};

// The rest of the entry's code, then the first page's, runs a step per task (boot-steps.ts), so
// that no single task holds the main thread for long; the page's modules are loaded before the first
// render rather than found missing by it (a suspended render, then another). A page module that
// fails to load is left to the page's own loading, which shows it. The first render waits for the
// saved language's dictionary (English is already there).
const ignore = () => undefined;
void (async () => {
  await nextTask();
  const { i18nReady } = await BOOT_STEPS.i18n();
  for (const step of [BOOT_STEPS.theme, BOOT_STEPS.routes, BOOT_STEPS.app]) {
    await nextTask();
    await step();
  }
  await nextTask();
  const { renderRoot } = await BOOT_STEPS.render();
  if (signedInPage) {
    await nextTask();
    startIntl();
  }
  for (const m of firstRouteOf(path)?.modules ?? []) {
    await nextTask();
    await firstModules[m]?.().catch(ignore);
  }
  await i18nReady;
  await nextTask();
  renderRoot(document.getElementById('root')!);
})();
