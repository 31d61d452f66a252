import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect } from 'react';
import { BrowserRouter } from 'react-router';
import { SnackbarProvider } from '../components/snackbar';
import { queryClient } from '../lib/query-client';
import { watchStaleBuild } from '../lib/stale-build';
import { ColorModeProvider } from './color-mode';
import { OfflineBanner } from './offline-banner';
import { AppRoutes } from './routes';
import { closeSignInWindow } from './sign-in-window';

export function App() {
  // A lazy chunk of this build that is gone from the server: reload into the server's build.
  useEffect(() => watchStaleBuild(), []);
  // The provider's window of "sign in again", back from the provider, closes (see the dialog).
  useEffect(() => closeSignInWindow(), []);
  return (
    <QueryClientProvider client={queryClient}>
      <ColorModeProvider>
        <SnackbarProvider>
          <BrowserRouter>
            <AppRoutes />
          </BrowserRouter>
          <OfflineBanner />
        </SnackbarProvider>
      </ColorModeProvider>
    </QueryClientProvider>
  );
}
