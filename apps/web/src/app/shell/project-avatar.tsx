import { Avatar, Box } from '@mui/material';
import { PROJECT_COLORS, projectInitials } from '@gantry/contracts';
import { projectColors } from '../../lib/theme';

/**
 * Initials on the project's colour; colours cycle red, blue, orange, green by position. The
 * project's name is always beside it, so the initials are decoration: drawn by CSS and hidden from
 * screen readers, they are not part of the name of the button or menu item that shows them.
 */
export function ProjectAvatar({ name, index, size = 32 }: { name: string; index: number; size?: number }) {
  const color = projectColors[PROJECT_COLORS[index % PROJECT_COLORS.length]!];
  return (
    <Avatar variant="rounded" aria-hidden="true" sx={{ bgcolor: color, color: '#fff', width: size, height: size, fontSize: size * 0.42, fontWeight: 700 }}>
      <Box component="span" data-initials={projectInitials(name)} sx={{ '&::before': { content: 'attr(data-initials)' } }} />
    </Avatar>
  );
}
