import NavigateBeforeIcon from '@mui/icons-material/NavigateBefore';
import NavigateNextIcon from '@mui/icons-material/NavigateNext';
import { Box, Button, Link, Stack, Typography } from '@mui/material';
import { PAGE_SIZE, type AuditEntry } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { PagedTable, type Column } from '../../components/paged-table';
import { formatDateTime } from '../../lib/format';
import { useCurrentUser, useProjects } from '../../lib/session';
import { auditQuery, EMPTY_AUDIT_FILTERS, type AuditFilters } from './api/audit-api';
import { AuditEntryDialog } from './components/audit-entry-dialog';
import { AuditExportPanel } from './components/audit-export-panel';
import { AuditFiltersBar } from './components/audit-filters';

/** /audit (admin): the audit trail, newest first, filtered and paged by the server, with each entry's diff. */
export function AuditPage() {
  const { t } = useTranslation();
  const me = useCurrentUser();
  const projects = useProjects();
  const [filters, setFilters] = useState<AuditFilters>(EMPTY_AUDIT_FILTERS);
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<AuditEntry | null>(null);
  const query = useQuery({ ...auditQuery(filters, offset, PAGE_SIZE), enabled: me.admin });
  if (!me.admin) return null;

  const rows = (query.data ?? []).slice(0, PAGE_SIZE);
  const hasNext = (query.data?.length ?? 0) > PAGE_SIZE;
  const actionLabel = (a: string) => t(`audit.actions.${a}`, { defaultValue: a });
  const objectLabel = (o: string) => t(`audit.objectTypes.${o}`, { defaultValue: o });
  // A project deleted since (or one the admin is not in) shows by its id.
  const projectLabel = (id: number | null) =>
    id === null ? '—' : (projects.find((p) => p.id === id)?.name ?? `#${id}`);
  const changeFilters = (next: AuditFilters) => {
    setFilters(next);
    setOffset(0);
  };

  const columns: Column<AuditEntry>[] = [
    { key: 'time', header: t('audit.time'), nowrap: true, render: (e) => formatDateTime(e.time) },
    {
      key: 'actor',
      header: t('audit.actor'),
      // Logins stay whole; the table scrolls sideways inside its box on a narrow screen.
      nowrap: true,
      render: (e) => e.actor ?? t('audit.system'),
    },
    {
      key: 'action',
      header: t('audit.action'),
      render: (e) => (
        <Link
          component="button"
          type="button"
          variant="body2"
          onClick={() => setOpen(e)}
          aria-label={t('audit.showDetails', { id: e.id, action: actionLabel(e.action) })}
        >
          {actionLabel(e.action)}
        </Link>
      ),
    },
    {
      key: 'object',
      header: t('audit.object'),
      render: (e) => (
        <Box sx={{ overflowWrap: 'anywhere' }}>
          {objectLabel(e.object_type)}
          {e.object_id === null ? '' : ` #${e.object_id}`}
        </Box>
      ),
    },
    {
      key: 'project',
      header: t('audit.project'),
      render: (e) => <Box sx={{ wordBreak: 'break-word' }}>{projectLabel(e.project_id)}</Box>,
    },
    {
      key: 'address',
      header: t('audit.address'),
      render: (e) => <Box sx={{ overflowWrap: 'anywhere' }}>{e.ip ?? '—'}</Box>,
    },
  ];

  return (
    <Box>
      <PageHeader title={t('audit.title')} />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {t('audit.intro')}
      </Typography>
      <AuditExportPanel />
      <AuditFiltersBar value={filters} onChange={changeFilters} />
      <PagedTable
        rows={rows}
        query={query}
        paged={false}
        empty={<EmptyState title={t('audit.empty')} hint={t('audit.emptyHint')} />}
        columns={columns}
        rowKey={(e) => e.id}
        label={t('audit.title')}
      />
      <Stack direction="row" spacing={1} sx={{ mt: 1, justifyContent: 'flex-end', alignItems: 'center' }}>
        <Button
          startIcon={<NavigateBeforeIcon />}
          disabled={offset === 0}
          onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
        >
          {t('audit.previous')}
        </Button>
        <Button endIcon={<NavigateNextIcon />} disabled={!hasNext} onClick={() => setOffset(offset + PAGE_SIZE)}>
          {t('audit.next')}
        </Button>
      </Stack>
      {open ? (
        <AuditEntryDialog
          entry={open}
          labels={{
            action: actionLabel(open.action),
            object: objectLabel(open.object_type),
            project: projectLabel(open.project_id),
          }}
          onClose={() => setOpen(null)}
        />
      ) : null}
    </Box>
  );
}
