import './lib/zod-config';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { i18nReady } from './lib/i18n';
import { App } from './app/app';
import { loadShell } from './app/shell-loader';
import { prefetchSession } from './lib/query-client';

// The first page's code is asked for now, beside the entry's last work, not after the first render
// found out which page it is (then the app shell, then the screen: a round trip each). A failure
// is left to the page's own loading, which shows it.
const ignore = () => undefined;
const path = window.location.pathname;
if (path.startsWith('/auth/')) {
  void import('./app/screens/sign-in').catch(ignore);
} else {
  prefetchSession(path);
  void loadShell().catch(ignore);
  if (path === '/' || /^\/project\/\d+(\/(history|settings|activity|stats|runners))?\/?$/.test(path))
    void import('./app/screens/project-dashboard').catch(ignore);
  else if (/^\/project\/\d+\/(views\/\d+\/)?templates(\/|$)/.test(path))
    void import('./app/screens/templates').catch(ignore);
}

// The first render waits for the saved language's dictionary (English is already there).
void i18nReady.then(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
