import DarkModeIcon from '@mui/icons-material/DarkModeOutlined';
import FingerprintIcon from '@mui/icons-material/Fingerprint';
import KeyIcon from '@mui/icons-material/KeyOutlined';
import LockIcon from '@mui/icons-material/LockOutlined';
import LogoutIcon from '@mui/icons-material/Logout';
import PeopleIcon from '@mui/icons-material/PeopleOutlined';
import TasksIcon from '@mui/icons-material/PendingActionsOutlined';
import AppsIcon from '@mui/icons-material/AppsOutlined';
import ClusterIcon from '@mui/icons-material/HubOutlined';
import RunnersIcon from '@mui/icons-material/DnsOutlined';
import SecurityIcon from '@mui/icons-material/SecurityOutlined';
import PersonIcon from '@mui/icons-material/PersonOutlined';
import GroupsIcon from '@mui/icons-material/GroupsOutlined';
import AuditIcon from '@mui/icons-material/ManageSearchOutlined';
import NotificationsIcon from '@mui/icons-material/NotificationsOutlined';
import { Avatar, Box, ButtonBase, Divider, ListItemIcon, ListItemText, Menu, MenuItem, Switch, Typography } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { VisuallyHidden } from '../../components/visually-hidden';
import { api } from '../../lib/api-client';
import { paths } from '../../lib/paths';
import { infoQuery, useCurrentUser } from '../../lib/session';
import { useColorMode } from '../color-mode';
import { LanguageMenuItem } from './language-menu';

// The account dialogs (forms, two-factor setup) load when opened, not with every page.
const UserDialog = lazy(async () => ({ default: (await import('../../features/users/components/user-dialog')).UserDialog }));
const PasswordDialog = lazy(async () => ({ default: (await import('../../features/users/components/password-dialog')).PasswordDialog }));
const PasskeysDialog = lazy(async () => ({ default: (await import('../../features/passkeys/components/passkeys-dialog')).PasskeysDialog }));

/** The signed-in user's menu: version, admin pages, account, tokens, theme, language, sign out. */
export function UserMenu() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const info = useQuery(infoQuery).data;
  const version = info?.version ?? '';
  const { dark, toggle } = useColorMode();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [dialog, setDialog] = useState<'account' | 'password' | 'passkeys' | null>(null);
  const id = useId();
  const go = (to: string) => {
    setAnchor(null);
    void navigate(to);
  };
  const signOut = async () => {
    setAnchor(null);
    await api.post('/auth/logout').catch(() => undefined);
    qc.clear();
    void navigate(paths.login, { replace: true });
  };
  return (
    <>
      {/* Named by what it shows (who is signed in) and then what it does; the initial is decoration. */}
      <ButtonBase
        onClick={(e) => setAnchor(e.currentTarget)}
        aria-labelledby={`${id}-shown ${id}-does`}
        aria-haspopup="menu"
        aria-expanded={anchor ? 'true' : 'false'}
        sx={{ p: 1.5, gap: 1.5, justifyContent: 'flex-start', width: '100%' }}
      >
        <Avatar aria-hidden="true" sx={{ width: 32, height: 32, bgcolor: 'primary.main', color: 'primary.contrastText' }}>
          <Box component="span" data-initial={user.name.charAt(0).toUpperCase()} sx={{ '&::before': { content: 'attr(data-initial)' } }} />
        </Avatar>
        <VisuallyHidden id={`${id}-does`}>{t('shell.userMenu')}</VisuallyHidden>
        <Box id={`${id}-shown`} sx={{ minWidth: 0, textAlign: 'left' }}>
          <Typography noWrap sx={{ fontWeight: 600 }} data-testid="user-name">
            {user.name}
          </Typography>
          {/* A space between the lines, so the text reads as separate words. */}{' '}
          <Typography variant="caption" color="text.secondary" noWrap component="div">
            {user.username}
            {user.admin ? ` · ${t('roles.admin')}` : ''}
          </Typography>
        </Box>
      </ButtonBase>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)} anchorOrigin={{ vertical: 'top', horizontal: 'left' }} transformOrigin={{ vertical: 'bottom', horizontal: 'left' }}>
        <MenuItem disabled dense>
          <Typography variant="caption" data-testid="app-version">
            {t('shell.version', { version: version.split('-')[0] })}
          </Typography>
        </MenuItem>
        <Divider />
        {user.admin ? (
          <MenuItem onClick={() => go(paths.users)}>
            <ListItemIcon>
              <PeopleIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('shell.users')} />
          </MenuItem>
        ) : null}
        {user.admin ? (
          <MenuItem onClick={() => go(paths.identityMappings)}>
            <ListItemIcon>
              <GroupsIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('shell.identityMappings')} />
          </MenuItem>
        ) : null}
        {user.admin ? (
          <MenuItem onClick={() => go(paths.audit)}>
            <ListItemIcon>
              <AuditIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('shell.audit')} />
          </MenuItem>
        ) : null}
        {user.admin ? (
          <MenuItem onClick={() => go(paths.globalNotifications)}>
            <ListItemIcon>
              <NotificationsIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('shell.notifications')} />
          </MenuItem>
        ) : null}
        {user.admin ? (
          <MenuItem onClick={() => go(paths.tasks)}>
            <ListItemIcon>
              <TasksIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('shell.activeTasks')} />
          </MenuItem>
        ) : null}
        {user.admin ? (
          <MenuItem onClick={() => go(paths.apps)}>
            <ListItemIcon>
              <AppsIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('shell.apps')} />
          </MenuItem>
        ) : null}
        {user.admin ? (
          <MenuItem onClick={() => go(paths.cluster)}>
            <ListItemIcon>
              <ClusterIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('shell.cluster')} />
          </MenuItem>
        ) : null}
        {user.admin ? (
          <MenuItem onClick={() => go(paths.security)}>
            <ListItemIcon>
              <SecurityIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('shell.security')} />
          </MenuItem>
        ) : null}
        {user.admin && info?.use_remote_runner ? (
          <MenuItem onClick={() => go(paths.runners)}>
            <ListItemIcon>
              <RunnersIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('shell.runners')} />
          </MenuItem>
        ) : null}
        <MenuItem onClick={() => { setAnchor(null); setDialog('account'); }}>
          <ListItemIcon>
            <PersonIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={t('shell.editAccount')} />
        </MenuItem>
        <MenuItem onClick={() => { setAnchor(null); setDialog('password'); }}>
          <ListItemIcon>
            <LockIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={t('shell.changePassword')} />
        </MenuItem>
        {user.external ? null : (
          <MenuItem onClick={() => { setAnchor(null); setDialog('passkeys'); }}>
            <ListItemIcon>
              <FingerprintIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary={t('passkeys.menu')} />
          </MenuItem>
        )}
        <MenuItem onClick={() => go(paths.tokens)}>
          <ListItemIcon>
            <KeyIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={t('shell.apiTokens')} />
        </MenuItem>
        <Divider />
        <MenuItem onClick={toggle}>
          <ListItemIcon>
            <DarkModeIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={t('shell.darkMode')} />
          <Switch edge="end" size="small" checked={dark} slotProps={{ input: { 'aria-label': t('shell.darkMode') } }} />
        </MenuItem>
        <LanguageMenuItem onChosen={() => setAnchor(null)} />
        <Divider />
        <MenuItem onClick={() => void signOut()}>
          <ListItemIcon>
            <LogoutIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText primary={t('shell.signOut')} />
        </MenuItem>
      </Menu>
      <Suspense fallback={null}>
        {dialog === 'account' ? <UserDialog userId={user.id} onClose={() => setDialog(null)} /> : null}
        {dialog === 'password' ? <PasswordDialog userId={user.id} name={user.name} onClose={() => setDialog(null)} /> : null}
        {dialog === 'passkeys' ? <PasskeysDialog hasPassword={!user.external} onClose={() => setDialog(null)} /> : null}
      </Suspense>
    </>
  );
}
