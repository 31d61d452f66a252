import AddIcon from '@mui/icons-material/Add';
import { Box, Button, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** A titled part of the integration page: heading, a line of explanation, an optional add button, then its content. */
export function Section({
  title,
  hint,
  addLabel,
  onAdd,
  busy,
  children,
}: {
  title: string;
  hint: string;
  addLabel: string;
  onAdd?(): void;
  busy?: boolean;
  children: ReactNode;
}) {
  return (
    <Box component="section" aria-label={title}>
      <Box sx={{ display: 'flex', alignItems: 'flex-end', gap: 2, mb: 1 }}>
        <Box sx={{ flexGrow: 1, minWidth: 0 }}>
          <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
            {title}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {hint}
          </Typography>
        </Box>
        {onAdd ? (
          <Button
            size="small"
            variant="outlined"
            startIcon={<AddIcon />}
            onClick={onAdd}
            disabled={busy}
            sx={{ flexShrink: 0 }}
          >
            {addLabel}
          </Button>
        ) : null}
      </Box>
      {children}
    </Box>
  );
}
