import { Box, CircularProgress } from '@mui/material';

/** What shows while a screen's code loads: a small spinner, full-page or in the content area. */
export function RouteFallback({ fullPage = false }: { fullPage?: boolean }) {
  return (
    <Box sx={{ display: 'grid', placeItems: 'center', height: fullPage ? '100vh' : 240 }} aria-busy="true">
      <CircularProgress size={fullPage ? 40 : 28} />
    </Box>
  );
}
