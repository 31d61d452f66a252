import AddIcon from '@mui/icons-material/Add';
import RestoreIcon from '@mui/icons-material/RestoreOutlined';
import UnfoldMoreIcon from '@mui/icons-material/UnfoldMore';
import { Box, ButtonBase, Divider, ListItemIcon, ListItemText, Menu, MenuItem, Typography } from '@mui/material';
import type { Project } from '@gantry/contracts';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { VisuallyHidden } from '../../components/visually-hidden';
import { paths } from '../../lib/paths';
import { useCurrentUser, useProjects } from '../../lib/session';
import { ProjectAvatar } from './project-avatar';

function roleLabel(t: (k: string) => string, p: Project, admin: boolean): string {
  if (p.role) return t(`roles.${p.role}`);
  return admin ? t('roles.admin') : '';
}

/** The current project with its role, and a menu to switch or create projects. */
export function ProjectSwitcher({ current }: { current: Project | undefined }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const projects = useProjects();
  const user = useCurrentUser();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const id = useId();
  const index = current ? projects.findIndex((p) => p.id === current.id) : 0;
  const go = (to: string) => {
    setAnchor(null);
    void navigate(to);
  };
  return (
    <>
      {/* Named by what it shows (project, role) and then what it does, so speech input finds it by its text. */}
      <ButtonBase
        onClick={(e) => setAnchor(e.currentTarget)}
        aria-labelledby={`${id}-shown ${id}-does`}
        aria-haspopup="menu"
        aria-expanded={anchor ? 'true' : 'false'}
        data-testid="project-switcher"
        sx={{ width: '100%', justifyContent: 'flex-start', gap: 1.5, p: 1.5, borderRadius: 1, textAlign: 'left' }}
      >
        {current ? <ProjectAvatar name={current.name} index={index} /> : null}
        <VisuallyHidden id={`${id}-does`}>{t('shell.switchProject')}</VisuallyHidden>
        <Box id={`${id}-shown`} sx={{ minWidth: 0, flexGrow: 1 }}>
          <Typography noWrap sx={{ fontWeight: 600 }} data-testid="current-project-name">
            {current?.name ?? t('shell.noProject')}
          </Typography>
          {/* A space between name and role, so the text reads (and is matched by speech) as two words. */}{' '}
          {current ? (
            <Typography variant="caption" color="text.secondary" data-testid="current-project-role">
              {roleLabel(t, current, user.admin)}
            </Typography>
          ) : null}
        </Box>
        <UnfoldMoreIcon fontSize="small" color="action" />
      </ButtonBase>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)} slotProps={{ paper: { sx: { minWidth: 240 } } }}>
        {projects.map((p, i) => (
          <MenuItem key={p.id} selected={p.id === current?.id} onClick={() => go(paths.history(p.id))}>
            <ListItemIcon sx={{ mr: 1 }}>
              <ProjectAvatar name={p.name} index={i} size={28} />
            </ListItemIcon>
            <ListItemText primary={p.name} secondary={roleLabel(t, p, user.admin)} />
          </MenuItem>
        ))}
        {user.can_create_project ? [
          projects.length ? <Divider key="divider" /> : null,
          <MenuItem key="new" onClick={() => go(paths.newProject)}>
            <ListItemIcon>
              <AddIcon />
            </ListItemIcon>
            <ListItemText primary={t('shell.newProject')} />
          </MenuItem>,
          <MenuItem key="restore" onClick={() => go(paths.restoreProject)}>
            <ListItemIcon>
              <RestoreIcon />
            </ListItemIcon>
            <ListItemText primary={t('shell.restoreProject')} />
          </MenuItem>,
        ] : null}
      </Menu>
    </>
  );
}
