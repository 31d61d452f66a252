import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** A page's title with its actions on the right; on a narrow screen the actions wrap below it. */
export function PageHeader({ title, actions }: { title: ReactNode; actions?: ReactNode }) {
  return (
    <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 2, mb: 2, minHeight: 40 }}>
      <Typography variant="h5" component="h1" sx={{ flexGrow: 1, fontWeight: 600, minWidth: 0, overflowWrap: 'anywhere' }}>
        {title}
      </Typography>
      {actions}
    </Box>
  );
}
