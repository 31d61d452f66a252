import { CssBaseline, ThemeProvider } from '@mui/material';
import type { Localization } from '@mui/material/locale';
import { createTheme } from '@mui/material/styles';
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { loadMuiLocale } from '../lib/mui-locale';
import { storage, StorageKeys } from '../lib/storage';
import { makeTheme } from '../lib/theme';

const ColorModeContext = createContext<{ dark: boolean; toggle(): void }>({ dark: false, toggle: () => undefined });

/** Light/dark theme, remembered in the browser; MUI's own texts follow the console's language. */
export function ColorModeProvider({ children }: { children: ReactNode }) {
  const [dark, setDark] = useState(() => storage.get(StorageKeys.darkMode) === 'true');
  const { i18n } = useTranslation();
  const [muiLocale, setMuiLocale] = useState<Localization | null>(null);
  useEffect(() => {
    let current = true;
    void loadMuiLocale(i18n.language)
      .catch(() => null)
      .then((l) => {
        if (current) setMuiLocale(l);
      });
    return () => {
      current = false;
    };
  }, [i18n.language]);
  const theme = useMemo(() => (muiLocale ? createTheme(makeTheme(dark), muiLocale) : makeTheme(dark)), [dark, muiLocale]);
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
