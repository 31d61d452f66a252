import { Box, Divider, List, ListItem, ListItemButton, ListItemIcon, ListItemText } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { NavLink, useMatch } from 'react-router';
import { ApprovalsNavItem } from '../../features/approvals/components/approvals-nav-item';
import { paths } from '../../lib/paths';
import { useProjects } from '../../lib/session';
import { storage, StorageKeys } from '../../lib/storage';
import { PROJECT_LINKS } from './project-links';
import { ProjectSwitcher } from './project-switcher';
import { UserMenu } from './user-menu';

export function Sidebar() {
  const { t } = useTranslation();
  const match = useMatch('/project/:projectId/*');
  // Pages outside a project (users, tokens, apps, ...) keep the last visited project's links.
  const projectId = Number(match ? match.params.projectId : storage.get(StorageKeys.projectId));
  const projects = useProjects();
  const current = projects.find((p) => p.id === projectId);
  const links = current ? PROJECT_LINKS.filter((l) => !l.requiresNormalProject || current.type === '') : [];
  return (
    <Box
      sx={{ display: 'flex', flexDirection: 'column', height: '100%' }}
      component="nav"
      aria-label={t('shell.projects')}
    >
      <Box sx={{ p: 1 }}>
        <ProjectSwitcher current={current} />
      </Box>
      <Divider />
      <List dense sx={{ flexGrow: 1, px: 1 }}>
        {current
          ? links.map((l) => (
              <ListItem key={l.key} disablePadding>
                <ListItemButton
                  component={NavLink}
                  to={paths.projectSection(current.id, l.section)}
                  sx={{ borderRadius: 1, '&.active': { bgcolor: 'action.selected' } }}
                >
                  <ListItemIcon sx={{ minWidth: 36 }}>
                    <l.icon fontSize="small" />
                  </ListItemIcon>
                  <ListItemText primary={t(l.labelKey)} />
                </ListItemButton>
              </ListItem>
            ))
          : null}
      </List>
      <Divider />
      {/* The user's own inbox, whatever the project: its count says when someone waits for them. */}
      <List dense sx={{ px: 1 }}>
        <ApprovalsNavItem />
      </List>
      <Divider />
      <UserMenu />
    </Box>
  );
}
