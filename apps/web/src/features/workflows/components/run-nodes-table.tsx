import { Box, Link as MuiLink, Stack } from '@mui/material';
import { WORKFLOW_NODE_APPROVAL_ERRORS, type WorkflowRunNode } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PagedTable } from '../../../components/paged-table';
import { useTaskHref } from '../../../components/tasks/task-table';
import { formatDateTime } from '../../../lib/format';
import { paths } from '../../../lib/paths';
import { RunStatus } from './run-status';

/** Where helper pages open an approval (the approvals inbox's own page). */
const approvalHref = (projectId: number, approvalId: number) => `/project/${projectId}/approvals/${approvalId}`;

/** The node errors the console says in the reader's language (the others are the server's own words). */
const NODE_ERROR_KEYS: Record<string, string> = {
  [WORKFLOW_NODE_APPROVAL_ERRORS.rejected]: 'workflows.nodeErrors.rejected',
  [WORKFLOW_NODE_APPROVAL_ERRORS.timedOut]: 'workflows.nodeErrors.approvalTimedOut',
};

/**
 * Every node of a run: status, tries, next try, error, a link to each try's task log, to the
 * approval it waits for or went through (an approval node's, or its template's policy's), and to
 * a nested node's own run.
 */
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
          // Whole words where they fit (the table scrolls on a phone); only a very long id breaks.
          render: (n) => <Box sx={{ overflowWrap: 'break-word', fontWeight: 600 }}>{n.id}</Box>,
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
                <MuiLink
                  component={Link}
                  to={approvalHref(projectId, n.approval_id)}
                  underline="hover"
                  // Its description says whose (the name stays the words it shows, as WCAG 2.5.3 asks).
                  title={t('workflows.openApprovalOf', { node: n.id })}
                  data-testid={`node-approval-${n.id}`}
                >
                  {t('workflows.openApproval')}
                </MuiLink>
              ) : null}
              {n.child_run_id !== null && n.child_workflow_id ? (
                <MuiLink
                  component={Link}
                  to={paths.workflowRun(projectId, n.child_workflow_id, n.child_run_id)}
                  underline="hover"
                  data-testid={`node-child-run-${n.id}`}
                >
                  {t('workflows.openChildRun', { id: n.child_run_id })}
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
          render: (n) =>
            n.error ? (
              <Box sx={{ color: 'error.main', overflowWrap: 'anywhere' }} data-testid={`node-error-${n.id}`}>
                {NODE_ERROR_KEYS[n.error] ? t(NODE_ERROR_KEYS[n.error]!) : n.error}
              </Box>
            ) : (
              ''
            ),
        },
      ]}
    />
  );
}
