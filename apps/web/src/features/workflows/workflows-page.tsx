import AddIcon from '@mui/icons-material/Add';
import PlayIcon from '@mui/icons-material/PlayArrow';
import { Box, Button, Link as MuiLink } from '@mui/material';
import type { Workflow } from '@gantry/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { QueryStates } from '../../components/query-states';
import { ResourceTable } from '../../components/resource-table';
import { useSnackbar } from '../../components/snackbar';
import { useSafeDelete } from '../../components/use-safe-delete';
import { errorText } from '../../lib/error-text';
import { paths } from '../../lib/paths';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { runsQuery, useStartRun, workflowKeys, workflowsQuery } from './api/workflows-api';
import { RunStatus } from './components/run-status';

/** The status of a workflow's newest run, linking to it (nothing before the first run). */
function LastRun({ projectId, workflowId }: { projectId: number; workflowId: number }) {
  const runs = useQuery(runsQuery(projectId, workflowId)).data ?? [];
  const last = runs.reduce<(typeof runs)[number] | null>((a, r) => (!a || r.id > a.id ? r : a), null);
  if (!last) return null;
  return (
    <MuiLink component={Link} to={paths.workflowRun(projectId, workflowId, last.id)} underline="none">
      <RunStatus status={last.status} kind="run" />
    </MuiLink>
  );
}

/** Starts a run and opens its view. */
function RunButton({ projectId, workflow }: { projectId: number; workflow: Workflow }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const snackbar = useSnackbar();
  const start = useStartRun(projectId);
  return (
    <Button
      size="small"
      variant="outlined"
      startIcon={<PlayIcon />}
      disabled={start.isPending}
      aria-label={t('workflows.runNamed', { name: workflow.name })}
      onClick={() =>
        start.mutate(workflow.id, {
          onSuccess: (run) => void navigate(paths.workflowRun(projectId, workflow.id, run.id)),
          onError: (e) => snackbar.error(errorText(e)),
        })
      }
    >
      {t('workflows.runAction')}
    </Button>
  );
}

/** /project/{id}/workflows: the project's workflows with their last run, and New / Edit / Delete / Run. */
export function WorkflowsPage() {
  const { t } = useTranslation();
  const projectId = useProjectId();
  const navigate = useNavigate();
  // Workflows are not managed by `gantry apply`: editable in a project managed by code too.
  const { roleCanManage: canManage, canRun } = useProjectAccess(projectId);
  const query = useQuery(workflowsQuery(projectId));
  const rows = query.data ?? [];
  // Deleting a workflow another one runs is refused (409 workflow_in_use), shown translated.
  const del = useSafeDelete({
    projectId,
    object: t('workflows.object'),
    baseUrl: `/project/${projectId}/workflows`,
    invalidate: workflowKeys.list(projectId),
  });
  const create = () => void navigate(paths.workflow(projectId, 'new'));
  return (
    <Box>
      <PageHeader
        title={t('workflows.title')}
        actions={
          canManage ? (
            <Button variant="contained" startIcon={<AddIcon />} onClick={create}>
              {t('workflows.new')}
            </Button>
          ) : null
        }
      />
      {rows.length ? (
        <ResourceTable<Workflow>
          tableId="workflows"
          label={t('workflows.title')}
          rows={rows}
          canManage={canManage}
          onEdit={(w) => void navigate(paths.workflow(projectId, w.id))}
          onDelete={(w) => void del.request(w)}
          renderName={(w) => (
            <MuiLink component={Link} to={paths.workflow(projectId, w.id)} underline="hover">
              {w.name}
            </MuiLink>
          )}
          columns={[
            { key: 'description', header: t('fieldLabels.description'), render: (w) => w.description },
            { key: 'nodes', header: t('workflows.nodeCount'), render: (w) => w.nodes.length },
            {
              key: 'last',
              header: t('workflows.lastRun'),
              render: (w) => <LastRun projectId={projectId} workflowId={w.id} />,
            },
            ...(canRun
              ? [
                  {
                    key: 'run',
                    header: t('workflows.runAction'),
                    render: (w: Workflow) => <RunButton projectId={projectId} workflow={w} />,
                  },
                ]
              : []),
          ]}
        />
      ) : (
        <QueryStates
          query={query}
          empty={
            <EmptyState
              title={t('workflows.none')}
              hint={t('workflows.noneHint')}
              action={
                canManage ? (
                  <Button variant="outlined" onClick={create}>
                    {t('workflows.createFirst')}
                  </Button>
                ) : null
              }
            />
          }
        />
      )}
      {del.dialogs}
    </Box>
  );
}
