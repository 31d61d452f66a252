import AddIcon from '@mui/icons-material/Add';
import CheckIcon from '@mui/icons-material/Check';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import LockIcon from '@mui/icons-material/LockReset';
import { Box, Button, IconButton, Tooltip } from '@mui/material';
import type { User } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { PagedTable, type Column } from '../../components/paged-table';
import { useSnackbar } from '../../components/snackbar';
import { errorText } from '../../lib/error-text';
import { useCurrentUser } from '../../lib/session';
import { useDeleteUser, usersQuery } from './api/users-api';
import { PasswordDialog } from './components/password-dialog';
import { UserDialog } from './components/user-dialog';

const yes = (v: boolean) => (v ? <CheckIcon fontSize="small" color="success" /> : null);

/** /users (admin): paged at 20; create, edit, change password, delete. */
export function UsersPage() {
  const { t } = useTranslation();
  const me = useCurrentUser();
  const snackbar = useSnackbar();
  const query = useQuery({ ...usersQuery, enabled: me.admin });
  const users = query.data ?? [];
  const remove = useDeleteUser();
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [password, setPassword] = useState<User | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);
  if (!me.admin) return null;

  const doDelete = async (u: User) => {
    setDeleting(null);
    await remove.mutateAsync(u.id).then(
      () => snackbar.success(t('users.deleted', { name: u.name })),
      (e: unknown) => snackbar.error(errorText(e)),
    );
  };

  const columns: Column<User>[] = [
    { key: 'name', header: t('users.name'), render: (u) => u.name },
    { key: 'username', header: t('users.username'), render: (u) => u.username },
    { key: 'email', header: t('users.email'), render: (u) => u.email },
    { key: 'alert', header: t('users.alert'), render: (u) => yes(u.alert), align: 'center' },
    { key: 'admin', header: t('users.admin'), render: (u) => yes(u.admin), align: 'center' },
    { key: 'external', header: t('users.external'), render: (u) => yes(u.external), align: 'center' },
    { key: 'totp', header: t('users.twoFactor'), render: (u) => yes(u.totp !== null), align: 'center' },
    {
      key: 'actions',
      header: '',
      align: 'right',
      render: (u) => (
        <Box sx={{ whiteSpace: 'nowrap' }}>
          <Tooltip title={t('common.edit')}>
            <IconButton size="small" aria-label={t('users.edit', { name: u.username })} onClick={() => setEditing(u.id)}>
              <EditIcon fontSize="small" />
            </IconButton>
          </Tooltip>
          {!u.external ? (
            <Tooltip title={t('shell.changePassword')}>
              <IconButton size="small" aria-label={t('users.changePassword', { name: u.username })} onClick={() => setPassword(u)}>
                <LockIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          ) : null}
          <Tooltip title={t('common.delete')}>
            <span>
              <IconButton size="small" aria-label={t('users.delete', { name: u.username })} disabled={u.id === me.id} onClick={() => setDeleting(u)}>
                <DeleteIcon fontSize="small" />
              </IconButton>
            </span>
          </Tooltip>
        </Box>
      ),
    },
  ];

  return (
    <Box>
      <PageHeader
        title={t('users.title')}
        actions={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')}>
            {t('users.new')}
          </Button>
        }
      />
      <PagedTable rows={users} query={query} empty={<EmptyState title={t('users.empty')} hint={t('users.emptyHint')} />} columns={columns} rowKey={(u) => u.id} label={t('users.title')} />
      {editing !== null ? <UserDialog userId={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
      {password ? <PasswordDialog userId={password.id} name={password.name} onClose={() => setPassword(null)} /> : null}
      <ConfirmDialog
        open={!!deleting}
        title={t('common.confirmDeleteTitle', { object: t('users.object') })}
        text={t('common.confirmDeleteText', { name: deleting?.name ?? '' })}
        onConfirm={() => deleting && void doDelete(deleting)}
        onClose={() => setDeleting(null)}
      />
    </Box>
  );
}
