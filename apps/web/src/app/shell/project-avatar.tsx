import { Avatar } from '@mui/material';
import { PROJECT_COLORS, projectInitials } from '@gantry/contracts';
import { projectColors } from '../../lib/theme';

/** Initials on the project's colour; colours cycle red, blue, orange, green by position. */
export function ProjectAvatar({ name, index, size = 32 }: { name: string; index: number; size?: number }) {
  const color = projectColors[PROJECT_COLORS[index % PROJECT_COLORS.length]!];
  return (
    <Avatar variant="rounded" sx={{ bgcolor: color, color: '#fff', width: size, height: size, fontSize: size * 0.42, fontWeight: 700 }}>
      {projectInitials(name)}
    </Avatar>
  );
}
