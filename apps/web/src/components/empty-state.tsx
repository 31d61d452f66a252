import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/**
 * A list with nothing in it, or a page with nothing to show: the title, a one-line hint of what
 * belongs here, and an action (the create button, or a way back).
 */
export function EmptyState({ title, hint, icon, action, heading = false }: { title: string; hint?: string; icon?: ReactNode; action?: ReactNode; heading?: boolean }) {
  return (
    <Box sx={{ textAlign: 'center', py: 6, color: 'text.secondary' }}>
      {icon}
      {/* A page that is only this message (not found, no access) names it as its heading. */}
      <Typography variant="h6" component={heading ? 'h1' : 'p'}>
        {title}
      </Typography>
      {hint ? (
        <Typography variant="body2" data-testid="empty-hint">
          {hint}
        </Typography>
      ) : null}
      {action ? <Box sx={{ mt: 2 }}>{action}</Box> : null}
    </Box>
  );
}
