import { createTheme, type Theme } from '@mui/material/styles';
import { MOBILE_BREAKPOINT } from '@gantry/contracts';

/** Light or dark; the "md" breakpoint is the spec's mobile threshold (960 px). */
export function makeTheme(dark: boolean): Theme {
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
      MuiTableCell: { styleOverrides: { root: { paddingTop: 8, paddingBottom: 8 } } },
      MuiButton: { defaultProps: { disableElevation: true } },
    },
  });
}

/** Avatar colours of projects, cycled in the spec's order: red, blue, orange, green. */
export const projectColors: Record<string, string> = {
  red: '#e53935',
  blue: '#1e88e5',
  orange: '#fb8c00',
  green: '#43a047',
};
