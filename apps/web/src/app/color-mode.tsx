import { CssBaseline, ThemeProvider } from '@mui/material';
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { storage, StorageKeys } from '../lib/storage';
import { makeTheme } from '../lib/theme';

const ColorModeContext = createContext<{ dark: boolean; toggle(): void }>({ dark: false, toggle: () => undefined });

/** Light/dark theme, remembered in the browser. */
export function ColorModeProvider({ children }: { children: ReactNode }) {
  const [dark, setDark] = useState(() => storage.get(StorageKeys.darkMode) === 'true');
  const theme = useMemo(() => makeTheme(dark), [dark]);
  const value = useMemo(
    () => ({
      dark,
      toggle: () =>
        setDark((d) => {
          storage.set(StorageKeys.darkMode, String(!d));
          return !d;
        }),
    }),
    [dark],
  );
  return (
    <ColorModeContext.Provider value={value}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        <div data-theme={dark ? 'dark' : 'light'} style={{ display: 'contents' }}>
          {children}
        </div>
      </ThemeProvider>
    </ColorModeContext.Provider>
  );
}

export function useColorMode() {
  return useContext(ColorModeContext);
}
