import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import WarningIcon from '@mui/icons-material/WarningAmberOutlined';
import { Box, Button, IconButton, Switch, Tooltip, Typography } from '@mui/material';
import type { App, References } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { PageHeader } from '../../components/page-header';
import { PagedTable, type Column } from '../../components/paged-table';
import { useSnackbar } from '../../components/snackbar';
import { VisuallyHidden } from '../../components/visually-hidden';
import { ApiError } from '../../lib/api-client';
import { errorText } from '../../lib/error-text';
import { useCurrentUser } from '../../lib/session';
import { appsQuery, useDeleteApp, useSetAppActive } from './api/apps-api';
import { AppDialog } from './components/app-dialog';
import { AppIcon } from './components/app-icon';
import { AppReferencesDialog } from './components/app-references-dialog';
import { SandboxAlert } from './components/sandbox-alert';

/** /apps (admin): built-in and custom apps, paged at 20; the active switch applies at once. */
export function AppsPage() {
  const { t } = useTranslation();
  const me = useCurrentUser();
  const snackbar = useSnackbar();
  const query = useQuery({ ...appsQuery, enabled: me.admin });
  const apps = query.data ?? [];
  const setActive = useSetAppActive();
  const remove = useDeleteApp();
  const [editing, setEditing] = useState<App | 'new' | null>(null);
  const [deleting, setDeleting] = useState<App | null>(null);
  const [usedBy, setUsedBy] = useState<References['templates'] | null>(null);
  if (!me.admin) return null;

  const toggle = (a: App, active: boolean) =>
    setActive.mutate(
      { id: a.id, active },
      {
        onSuccess: () => snackbar.success(t(active ? 'apps.activated' : 'apps.deactivated', { name: a.title })),
        onError: (e) => snackbar.error(errorText(e)),
      },
    );

  const doDelete = async (a: App) => {
    setDeleting(null);
    await remove.mutateAsync(a.id).then(
      () => snackbar.success(t('apps.deleted', { name: a.title })),
      (e: unknown) => {
        const refs = e instanceof ApiError ? (e.body?.references as References | undefined) : undefined;
        if (refs?.templates.length) setUsedBy(refs.templates);
        else snackbar.error(errorText(e));
      },
    );
  };

  const columns: Column<App>[] = [
    { key: 'icon', header: <VisuallyHidden>{t('common.icon')}</VisuallyHidden>, width: 40, render: (a) => <AppIcon icon={a.icon} /> },
    { key: 'title', header: t('apps.appTitle'), render: (a) => a.title },
    {
      key: 'id',
      header: t('apps.id'),
      render: (a) => (
        <Typography variant="body2" sx={{ fontFamily: 'monospace' }}>
          {a.id}
        </Typography>
      ),
    },
    {
      key: 'path',
      header: t('apps.path'),
      render: (a) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5 }}>
          <Typography variant="body2" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
            {[a.path, ...a.args].join(' ')}
          </Typography>
          {a.found ? null : (
            <Tooltip title={t('apps.notFound')}>
              <WarningIcon fontSize="small" color="warning" aria-label={t('apps.notFound')} />
            </Tooltip>
          )}
        </Box>
      ),
    },
    { key: 'priority', header: t('apps.priority'), align: 'right', render: (a) => a.priority },
    {
      key: 'active',
      header: t('apps.active'),
      align: 'center',
      render: (a) => (
        <Switch
          size="small"
          checked={a.active}
          onChange={(e) => toggle(a, e.target.checked)}
          slotProps={{ input: { 'aria-label': t('apps.activeNamed', { name: a.title }) } }}
        />
      ),
    },
    {
      key: 'actions',
      header: '',
      align: 'right',
      render: (a) => (
        <Box sx={{ whiteSpace: 'nowrap' }}>
          <Tooltip title={t('common.edit')}>
            <IconButton
              size="small"
              aria-label={t('common.editNamed', { name: a.title })}
              onClick={() => setEditing(a)}
            >
              <EditIcon fontSize="small" />
            </IconButton>
          </Tooltip>
          {a.builtin ? null : (
            <Tooltip title={t('common.delete')}>
              <IconButton
                size="small"
                aria-label={t('common.deleteNamed', { name: a.title })}
                onClick={() => setDeleting(a)}
              >
                <DeleteIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          )}
        </Box>
      ),
    },
  ];

  return (
    <Box>
      <PageHeader
        title={t('apps.title')}
        actions={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')}>
            {t('apps.new')}
          </Button>
        }
      />
      <SandboxAlert />
      <PagedTable rows={apps} query={query} columns={columns} rowKey={(a) => a.id} label={t('apps.title')} />
      {editing !== null ? (
        <AppDialog app={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />
      ) : null}
      <ConfirmDialog
        open={!!deleting}
        title={t('common.confirmDeleteTitle', { object: t('apps.object') })}
        text={t('common.confirmDeleteText', { name: deleting?.title ?? '' })}
        onConfirm={() => deleting && void doDelete(deleting)}
        onClose={() => setDeleting(null)}
      />
      {usedBy ? <AppReferencesDialog templates={usedBy} onClose={() => setUsedBy(null)} /> : null}
    </Box>
  );
}
