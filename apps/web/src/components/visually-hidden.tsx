import { Box } from '@mui/material';
import type { ReactNode } from 'react';

/**
 * Styles that hide an element from view but not from screen readers. Pinned to the top left of
 * its positioned ancestor: left where it would flow (at the end of a wide table inside a
 * scrolling frame, say), it could widen the page, which the frame does not clip.
 */
export const visuallyHidden = {
  border: 0,
  clip: 'rect(0 0 0 0)',
  height: '1px',
  margin: '-1px',
  overflow: 'hidden',
  padding: 0,
  position: 'absolute',
  top: 0,
  left: 0,
  whiteSpace: 'nowrap',
  width: '1px',
} as const;

/** Text for screen readers only, e.g. the header of a column of action buttons. */
export function VisuallyHidden({ children, id }: { children: ReactNode; id?: string }) {
  return (
    <Box component="span" id={id} sx={visuallyHidden}>
      {children}
    </Box>
  );
}
