import { Alert, Snackbar } from '@mui/material';
import { SNACKBAR_TIMEOUT_MS } from '@gantry/contracts';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

interface Notice {
  key: number;
  text: string;
  severity: 'success' | 'error';
}

interface SnackbarApi {
  success(text: string): void;
  error(text: string): void;
}

const SnackbarContext = createContext<SnackbarApi | null>(null);

/** One snackbar for the whole console: errors in red, successes in green, 3000 ms each. */
export function SnackbarProvider({ children }: { children: ReactNode }) {
  const [notice, setNotice] = useState<Notice | null>(null);
  const show = useCallback((text: string, severity: Notice['severity']) => setNotice({ key: Date.now(), text, severity }), []);
  const value = useMemo<SnackbarApi>(() => ({ success: (t) => show(t, 'success'), error: (t) => show(t, 'error') }), [show]);
  return (
    <SnackbarContext.Provider value={value}>
      {children}
      <Snackbar
        key={notice?.key}
        open={!!notice}
        autoHideDuration={SNACKBAR_TIMEOUT_MS}
        onClose={() => setNotice(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
      >
        {notice ? (
          // Long names wrap inside a readable width instead of running off the screen.
          <Alert severity={notice.severity} variant="filled" onClose={() => setNotice(null)} data-testid="snackbar" sx={{ maxWidth: 600, overflowWrap: 'anywhere', minWidth: 0 }}>
            {notice.text}
          </Alert>
        ) : undefined}
      </Snackbar>
    </SnackbarContext.Provider>
  );
}

export function useSnackbar(): SnackbarApi {
  const api = useContext(SnackbarContext);
  if (!api) throw new Error('useSnackbar outside SnackbarProvider');
  return api;
}
