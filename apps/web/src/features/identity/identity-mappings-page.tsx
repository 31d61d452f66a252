import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import { Box, Button, Chip, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import type { IdentityMapping } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { PagedTable, type Column } from '../../components/paged-table';
import { useSnackbar } from '../../components/snackbar';
import { errorText } from '../../lib/error-text';
import { useCurrentUser, useProjects } from '../../lib/session';
import { mappingsQuery, sourcesQuery, useDeleteMapping } from './api/mappings-api';
import { MappingDialog } from './components/mapping-dialog';

/** A chip whose text wraps at phone width instead of running off the table. */
const WRAPPING_CHIP = {
  maxWidth: '100%',
  height: 'auto',
  py: 0.25,
  borderRadius: 2,
  '& .MuiChip-label': { whiteSpace: 'normal', overflowWrap: 'break-word' },
};

/** /identity-mappings (admin): group to role mapping rules for LDAP and sign-in providers. */
export function IdentityMappingsPage() {
  const { t } = useTranslation();
  const me = useCurrentUser();
  const snackbar = useSnackbar();
  const query = useQuery({ ...mappingsQuery, enabled: me.admin });
  const sources = useQuery({ ...sourcesQuery, enabled: me.admin }).data ?? [];
  const projects = useProjects();
  const remove = useDeleteMapping();
  const [editing, setEditing] = useState<IdentityMapping | 'new' | null>(null);
  const [deleting, setDeleting] = useState<IdentityMapping | null>(null);
  if (!me.admin) return null;

  const sourceName = (id: string) => sources.find((s) => s.id === id)?.name ?? id;
  const projectName = (id: number) => projects.find((p) => p.id === id)?.name ?? t('identity.unknownProject', { id });
  const doDelete = async (m: IdentityMapping) => {
    setDeleting(null);
    await remove.mutateAsync(m.id).then(
      () => snackbar.success(t('identity.deleted', { group: m.group })),
      (e: unknown) => snackbar.error(errorText(e)),
    );
  };

  const columns: Column<IdentityMapping>[] = [
    { key: 'source', header: t('identity.source'), render: (m) => sourceName(m.source) },
    {
      key: 'group',
      header: t('identity.group'),
      render: (m) => <Box sx={{ overflowWrap: 'anywhere' }}>{m.group}</Box>,
    },
    {
      key: 'grants',
      header: t('identity.grants'),
      render: (m) => (
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
          {m.admin ? <Chip size="small" color="primary" variant="outlined" label={t('roles.admin')} /> : null}
          {m.project_id !== null && m.role !== null ? (
            <Chip
              size="small"
              sx={WRAPPING_CHIP}
              variant="outlined"
              label={t('identity.projectRole', { role: t(`roles.${m.role}`), project: projectName(m.project_id) })}
            />
          ) : null}
        </Stack>
      ),
    },
    {
      key: 'actions',
      header: '',
      align: 'right',
      render: (m) => (
        <Box sx={{ whiteSpace: 'nowrap' }}>
          <Tooltip title={t('common.edit')}>
            <IconButton size="small" aria-label={t('identity.edit', { group: m.group })} onClick={() => setEditing(m)}>
              <EditIcon fontSize="small" />
            </IconButton>
          </Tooltip>
          <Tooltip title={t('common.delete')}>
            <IconButton
              size="small"
              aria-label={t('identity.delete', { group: m.group })}
              onClick={() => setDeleting(m)}
            >
              <DeleteIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        </Box>
      ),
    },
  ];

  return (
    <Box>
      <PageHeader
        title={t('identity.title')}
        actions={
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            onClick={() => setEditing('new')}
            disabled={sources.length === 0}
          >
            {t('identity.new')}
          </Button>
        }
      />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {t('identity.intro')}
      </Typography>
      <PagedTable
        rows={query.data ?? []}
        query={query}
        empty={<EmptyState title={t('identity.empty')} hint={t('identity.emptyHint')} />}
        columns={columns}
        rowKey={(m) => m.id}
        label={t('identity.title')}
      />
      {editing !== null ? (
        <MappingDialog
          mapping={editing === 'new' ? null : editing}
          sources={sources}
          projects={projects}
          onClose={() => setEditing(null)}
        />
      ) : null}
      <ConfirmDialog
        open={!!deleting}
        title={t('common.confirmDeleteTitle', { object: t('identity.object') })}
        text={t('common.confirmDeleteText', { name: deleting?.group ?? '' })}
        onConfirm={() => deleting && void doDelete(deleting)}
        onClose={() => setDeleting(null)}
      />
    </Box>
  );
}
