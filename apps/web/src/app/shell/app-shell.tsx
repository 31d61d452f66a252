import MenuIcon from '@mui/icons-material/Menu';
import { AppBar, Box, Drawer, IconButton, Toolbar, Typography, useMediaQuery, useTheme } from '@mui/material';
import { SIDEBAR_WIDTH } from '@gantry/contracts';
import { useState, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router';
import { NewTaskHost } from '../../features/tasks/new-task-host';
import { TaskLogHost } from '../../features/tasks/task-log-host';
import { visuallyHidden } from '../../components/visually-hidden';
import { RouteBoundary } from '../route-boundary';
import { Sidebar } from './sidebar';

const MAIN_ID = 'main-content';

/** The first tab stop: hidden until focused, it moves focus past the sidebar into the page. */
function SkipLink() {
  const { t } = useTranslation();
  return (
    <Box
      component="a"
      href={`#${MAIN_ID}`}
      onClick={(e: MouseEvent) => {
        // Focus moves without a fragment in the address (the router owns the URL).
        e.preventDefault();
        document.getElementById(MAIN_ID)?.focus();
      }}
      sx={[
        visuallyHidden,
        {
          '&:focus': {
            clip: 'auto',
            width: 'auto',
            height: 'auto',
            margin: 0,
            overflow: 'visible',
            whiteSpace: 'normal',
            position: 'fixed',
            top: 8,
            left: 8,
            zIndex: (theme) => theme.zIndex.tooltip + 1,
            px: 2,
            py: 1,
            borderRadius: 1,
            bgcolor: 'background.paper',
            color: 'primary.main',
            fontWeight: 600,
            boxShadow: 3,
          },
        },
      ]}
    >
      {t('shell.skipToContent')}
    </Box>
  );
}

/** Sidebar (260 px) beside the page; below 960 px a top bar opens it as a drawer. */
export function AppShell() {
  const { t } = useTranslation();
  const theme = useTheme();
  // Read at once (not after a first render as a phone): a desktop does not render the phone's bar first.
  const desktop = useMediaQuery(theme.breakpoints.up('md'), { noSsr: true });
  const [open, setOpen] = useState(false);
  // A phone's drawer is built the first time it opens, not with the page: the page shows sooner.
  const [drawerUsed, setDrawerUsed] = useState(false);
  if (open && !drawerUsed) setDrawerUsed(true);
  const location = useLocation();
  const [lastPath, setLastPath] = useState(location.pathname);
  if (lastPath !== location.pathname) {
    // Navigating closes the mobile drawer.
    setLastPath(location.pathname);
    setOpen(false);
  }
  const drawer = <Sidebar />;
  return (
    <Box sx={{ display: 'flex', minHeight: '100vh' }}>
      <SkipLink />
      {desktop ? (
        <Drawer variant="permanent" sx={{ width: SIDEBAR_WIDTH, flexShrink: 0, '& .MuiDrawer-paper': { width: SIDEBAR_WIDTH, boxSizing: 'border-box' } }}>
          {drawer}
        </Drawer>
      ) : (
        <>
          <AppBar position="fixed" color="default" elevation={1}>
            <Toolbar variant="dense">
              <IconButton edge="start" aria-label={t('shell.openMenu')} onClick={() => setOpen(true)}>
                <MenuIcon />
              </IconButton>
              <Typography variant="h6" component="p" sx={{ ml: 1 }}>
                {t('app.name')}
              </Typography>
            </Toolbar>
          </AppBar>
          <Drawer variant="temporary" open={open} onClose={() => setOpen(false)} ModalProps={{ keepMounted: drawerUsed }} sx={{ '& .MuiDrawer-paper': { width: SIDEBAR_WIDTH } }}>
            {drawer}
          </Drawer>
        </>
      )}
      <Box component="main" id={MAIN_ID} tabIndex={-1} sx={{ flexGrow: 1, minWidth: 0, p: { xs: 2, md: 3 }, pt: { xs: 9, md: 3 } }}>
        <RouteBoundary resetKey={location.pathname}>
          <Outlet />
        </RouteBoundary>
      </Box>
      <TaskLogHost />
      <NewTaskHost />
    </Box>
  );
}
