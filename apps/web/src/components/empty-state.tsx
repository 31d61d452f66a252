import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';

export function EmptyState({ title, hint, icon }: { title: string; hint?: string; icon?: ReactNode }) {
  return (
    <Box sx={{ textAlign: 'center', py: 6, color: 'text.secondary' }}>
      {icon}
      <Typography variant="h6" component="p">
        {title}
      </Typography>
      {hint ? <Typography variant="body2">{hint}</Typography> : null}
    </Box>
  );
}
