import { Link as MuiLink } from '@mui/material';
import type { WorkflowRunSummary } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PagedTable } from '../../../components/paged-table';
import { formatDateTime } from '../../../lib/format';
import { paths } from '../../../lib/paths';
import { runsQuery } from '../api/workflows-api';
import { RunStatus } from './run-status';

/** A workflow's runs, newest first, each a link to its run view (the current one marked as the page). */
export function RunsTable({
  projectId,
  workflowId,
  current,
}: {
  projectId: number;
  workflowId: number;
  current?: number;
}) {
  const { t } = useTranslation();
  const query = useQuery(runsQuery(projectId, workflowId));
  const rows = [...(query.data ?? [])].sort((a, b) => b.id - a.id);
  return (
    <PagedTable<WorkflowRunSummary>
      rows={rows}
      query={query}
      label={t('workflows.runs')}
      rowKey={(r) => r.id}
      empty={t('workflows.noRuns')}
      columns={[
        {
          key: 'id',
          header: t('workflows.run'),
          // The current run is a link too (marked as the page): on a phone, where the table scrolls
          // sideways, a row of only it still has something the keyboard can reach the scroll by.
          render: (r) => (
            <MuiLink
              component={Link}
              to={paths.workflowRun(projectId, workflowId, r.id)}
              underline="hover"
              aria-current={r.id === current ? 'page' : undefined}
              sx={r.id === current ? { fontWeight: 600, color: 'text.primary' } : undefined}
            >
              #{r.id}
            </MuiLink>
          ),
        },
        { key: 'status', header: t('workflows.status'), render: (r) => <RunStatus status={r.status} kind="run" /> },
        { key: 'created', header: t('workflows.started'), render: (r) => formatDateTime(r.created), nowrap: true },
        {
          key: 'ended',
          header: t('workflows.ended'),
          render: (r) => (r.ended ? formatDateTime(r.ended) : ''),
          nowrap: true,
        },
      ]}
    />
  );
}
