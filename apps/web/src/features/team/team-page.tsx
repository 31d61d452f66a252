import AddIcon from '@mui/icons-material/PersonAddAlt';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import ExitIcon from '@mui/icons-material/ExitToApp';
import { Box, Button, Chip, IconButton, MenuItem, Stack, TextField, Tooltip } from '@mui/material';
import { PROJECT_ROLES, type ProjectRole, type ProjectUser } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { PagedTable } from '../../components/paged-table';
import { useSnackbar } from '../../components/snackbar';
import { errorText } from '../../lib/error-text';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { projectQueries } from '../../lib/project-queries';
import { useCurrentUser } from '../../lib/session';
import { useTeamMutations } from './api/team-api';
import { AddMemberDialog } from './components/add-member-dialog';

/** /project/{id}/team: members and roles; only manageProjectUsers may change them. */
export function TeamPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const me = useCurrentUser();
  const access = useProjectAccess(projectId);
  const snackbar = useSnackbar();
  const query = useQuery(projectQueries.team(projectId));
  const members = query.data ?? [];
  const m = useTeamMutations(projectId);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<ProjectUser | null>(null);
  const [leaving, setLeaving] = useState(false);
  const canGrantOwner = me.admin || access.role === 'owner';
  const myRole = members.find((x) => x.id === me.id)?.role;

  const changeRole = (u: ProjectUser, role: ProjectRole) => m.setRole.mutateAsync({ userId: u.id, role }).catch((e: unknown) => snackbar.error(errorText(e)));
  const remove = async (u: ProjectUser) => {
    setRemoving(null);
    await m.remove.mutateAsync(u.id).catch((e: unknown) => snackbar.error(errorText(e)));
  };
  const leave = async () => {
    setLeaving(false);
    // Leaving reloads the page (spec 4): the project list and rights all change.
    await m.leave.mutateAsync().then(() => window.location.assign('/'), (e: unknown) => snackbar.error(errorText(e)));
  };

  return (
    <Box>
      <PageHeader
        title={t('team.title')}
        actions={
          <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
            {myRole ? (
              <Button startIcon={<ExitIcon />} onClick={() => setLeaving(true)} disabled={myRole === 'owner'}>
                {t('team.leave')}
              </Button>
            ) : null}
            {access.canManageUsers ? (
              <Button variant="contained" startIcon={<AddIcon />} onClick={() => setAdding(true)}>
                {t('team.addMember')}
              </Button>
            ) : null}
          </Stack>
        }
      />
      <PagedTable<ProjectUser>
        rows={members}
        query={query}
        empty={<EmptyState title={t('team.none')} hint={t('team.noneHint')} />}
        paged={false}
        label={t('team.title')}
        rowKey={(u) => u.id}
        columns={[
          {
            key: 'name',
            header: t('common.name'),
            render: (u) => (
              <>
                {u.name}
                {/* A membership a group mapping made at sign-in: it follows the directory, not this page. */}
                {u.mapped ? (
                  <Tooltip title={t('team.mappedFrom', { source: u.mapped.source, group: u.mapped.group })}>
                    <Chip size="small" variant="outlined" tabIndex={0} label={t('team.fromDirectory')} aria-label={t('team.mappedFrom', { source: u.mapped.source, group: u.mapped.group })} sx={{ ml: 1 }} />
                  </Tooltip>
                ) : null}
              </>
            ),
          },
          { key: 'username', header: t('users.username'), render: (u) => u.username },
          {
            key: 'role',
            header: t('team.role'),
            width: 220,
            render: (u) =>
              access.canManageUsers && (canGrantOwner || u.role !== 'owner') ? (
                <TextField select size="small" value={u.role} onChange={(e) => void changeRole(u, e.target.value as ProjectRole)} slotProps={{ htmlInput: { 'aria-label': t('team.roleOf', { name: u.username }) } }} sx={{ minWidth: 170 }}>
                  {PROJECT_ROLES.filter((r) => r !== 'owner' || canGrantOwner).map((r) => (
                    <MenuItem key={r} value={r}>
                      {t(`roles.${r}`)}
                    </MenuItem>
                  ))}
                </TextField>
              ) : (
                t(`roles.${u.role}`)
              ),
          },
          {
            key: 'actions',
            header: '',
            align: 'right',
            render: (u) =>
              access.canManageUsers ? (
                <IconButton size="small" aria-label={t('team.remove', { name: u.username })} onClick={() => setRemoving(u)}>
                  <DeleteIcon fontSize="small" />
                </IconButton>
              ) : null,
          },
        ]}
      />
      {adding ? <AddMemberDialog projectId={projectId} memberIds={members.map((x) => x.id)} canGrantOwner={canGrantOwner} onClose={() => setAdding(false)} /> : null}
      <ConfirmDialog open={!!removing} title={t('team.removeTitle')} text={t('team.removeText', { name: removing?.name ?? '' })} confirmLabel={t('team.removeConfirm')} onConfirm={() => removing && void remove(removing)} onClose={() => setRemoving(null)} />
      <ConfirmDialog open={leaving} title={t('team.leaveTitle')} text={t('team.leaveText')} confirmLabel={t('team.leave')} onConfirm={() => void leave()} onClose={() => setLeaving(false)} />
    </Box>
  );
}
