import { Box, Link as MuiLink, Stack } from '@mui/material';
import type { WorkflowRunNode } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PagedTable } from '../../../components/paged-table';
import { useTaskHref } from '../../../components/tasks/task-table';
import { formatDateTime } from '../../../lib/format';
import { RunStatus } from './run-status';

/** Where helper pages open an approval (the approvals inbox's own page). */
const approvalHref = (projectId: number, approvalId: number) => `/project/${projectId}/approvals/${approvalId}`;

/** Every node of a run: status, tries, next try, error, a link to each try's task log, and its approval. */
export function RunNodesTable({ projectId, nodes }: { projectId: number; nodes: WorkflowRunNode[] }) {
  const { t } = useTranslation();
  const taskHref = useTaskHref();
  return (
    <PagedTable<WorkflowRunNode>
      rows={nodes}
      paged={false}
      label={t('workflows.nodes')}
      rowKey={(n) => n.id}
      columns={[
        {
          key: 'id',
          header: t('workflows.nodeId'),
          render: (n) => <Box sx={{ overflowWrap: 'anywhere', fontWeight: 600 }}>{n.id}</Box>,
        },
        { key: 'type', header: t('fieldLabels.type'), render: (n) => t(`workflows.types.${n.type}`) },
        {
          key: 'status',
          header: t('workflows.status'),
          render: (n) => (
            <Box data-node={n.id}>
              <RunStatus status={n.status} kind="node" />
            </Box>
          ),
        },
        { key: 'attempts', header: t('workflows.attempts'), render: (n) => n.attempts, align: 'right' },
        {
          key: 'tasks',
          header: t('workflows.tasks'),
          render: (n) => (
            <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
              {n.task_ids.map((taskId, i) => (
                <MuiLink
                  key={taskId}
                  component={Link}
                  to={taskHref(taskId)}
                  underline="hover"
                  aria-label={t('workflows.attemptLog', { n: i + 1, id: taskId })}
                >
                  #{taskId}
                </MuiLink>
              ))}
              {n.approval_id !== null ? (
                <MuiLink component={Link} to={approvalHref(projectId, n.approval_id)} underline="hover">
                  {t('workflows.openApproval')}
                </MuiLink>
              ) : null}
            </Stack>
          ),
        },
        {
          key: 'next',
          header: t('workflows.nextTry'),
          render: (n) => (n.next_try_at ? formatDateTime(n.next_try_at) : ''),
          nowrap: true,
        },
        {
          key: 'error',
          header: t('workflows.error'),
          render: (n) => (n.error ? <Box sx={{ color: 'error.main', overflowWrap: 'anywhere' }}>{n.error}</Box> : ''),
        },
      ]}
    />
  );
}
