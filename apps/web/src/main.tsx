import './lib/zod-config';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { i18nReady } from './lib/i18n';
import { App } from './app/app';
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

// The first render waits for the saved language's dictionary (English is already there).
void i18nReady.then(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
