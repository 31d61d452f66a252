import './lib/zod-config';
import { BOOT_STEPS, nextTask } from './app/boot-steps';
import { firstRouteOf } from './app/first-routes';
import { loadShell } from './app/shell-loader';
import { prefetchSession } from './lib/query-client';

// The first page's code is asked for now, beside the entry's last work, not after the first render
// found out which page it is (then the app shell, then the screen: a round trip each); the server
// already named these files in index.html's answer (first-routes.ts). A failure is left to the
// page's own loading, which shows it.
const ignore = () => undefined;
const path = window.location.pathname;
const firstModules: Record<string, () => Promise<unknown>> = {
  'src/app/screens/sign-in.tsx': () => import('./app/screens/sign-in'),
  'src/app/shell/app-shell.tsx': loadShell,
  'src/app/screens/project-dashboard.ts': () => import('./app/screens/project-dashboard'),
  'src/app/screens/templates.ts': () => import('./app/screens/templates'),
};
if (!path.startsWith('/auth/')) prefetchSession(path);
for (const m of firstRouteOf(path)?.modules ?? []) void firstModules[m]?.().catch(ignore);

// The rest of the entry's code runs in steps, a task each (boot-steps.ts); the first render waits
// for the saved language's dictionary (English is already there).
void (async () => {
  await nextTask();
  const { i18nReady } = await BOOT_STEPS.i18n();
  await nextTask();
  await BOOT_STEPS.app();
  await nextTask();
  const { renderRoot } = await BOOT_STEPS.render();
  await i18nReady;
  renderRoot(document.getElementById('root')!);
})();
