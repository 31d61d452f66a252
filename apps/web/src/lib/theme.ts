import { createTheme, type Theme } from '@mui/material/styles';
import { MOBILE_BREAKPOINT } from '@gantry/contracts';

/** One focus ring for everything a keyboard reaches; a selected item shows only its background. */
export function focusRing(dark: boolean) {
  return { outline: `2px solid ${dark ? '#90caf9' : '#1565c0'}`, outlineOffset: 2 };
}

/** Light or dark; the "md" breakpoint is the spec's mobile threshold (960 px). */
export function makeTheme(dark: boolean): Theme {
  const ring = focusRing(dark);
  return createTheme({
    palette: {
      mode: dark ? 'dark' : 'light',
      primary: { main: dark ? '#64b5f6' : '#1565c0' },
      background: dark ? { default: '#121417', paper: '#1b1e23' } : { default: '#f5f7fa', paper: '#ffffff' },
    },
    breakpoints: { values: { xs: 0, sm: 600, md: MOBILE_BREAKPOINT, lg: 1280, xl: 1920 } },
    shape: { borderRadius: 8 },
    typography: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif' },
    components: {
      MuiCssBaseline: {
        styleOverrides: {
          '*:focus-visible': ring,
          // Targets of a skip link or of focus moved by code: focus lands, no frame around a page.
          '[tabindex="-1"]:focus': { outline: 'none' },
        },
      },
      MuiButtonBase: { styleOverrides: { root: { '&.Mui-focusVisible': ring } } },
      // Inside a menu or list the ring sits inside the item, so the list's edge does not cut it.
      MuiMenuItem: { styleOverrides: { root: { '&.Mui-focusVisible': { ...ring, outlineOffset: -2 } } } },
      MuiListItemButton: { styleOverrides: { root: { '&.Mui-focusVisible': { ...ring, outlineOffset: -2 } } } },
      // Subtitles head sections: under a page's h1 (or a dialog's h2 title) they are h2 and h3,
      // not MUI's h6, so no heading level is skipped.
      MuiTypography: { defaultProps: { variantMapping: { subtitle1: 'h2', subtitle2: 'h3' } } },
      MuiTableCell: { styleOverrides: { root: { paddingTop: 8, paddingBottom: 8 } } },
      MuiButton: { defaultProps: { disableElevation: true } },
    },
  });
}

/**
 * Avatar colours of projects, cycled in the spec's order: red, blue, orange, green. Dark shades,
 * so the white initials keep a contrast of at least 4.5:1 (WCAG AA for small text).
 */
export const projectColors: Record<string, string> = {
  red: '#c62828',
  blue: '#1565c0',
  orange: '#c2410c',
  green: '#2e7d32',
};
