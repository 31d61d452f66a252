import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import ReplayIcon from '@mui/icons-material/Replay';
import ResumeIcon from '@mui/icons-material/PlayCircleOutlined';
import StopIcon from '@mui/icons-material/Stop';
import { Box, Button, Stack, Typography } from '@mui/material';
import { WORKFLOW_RUN_FINISHED, type WorkflowNode, type WorkflowNodeStatus, type WorkflowRun } from '@gantry/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { PageHeader } from '../../components/page-header';
import { PageSkeleton, QueryStates } from '../../components/query-states';
import { useSnackbar } from '../../components/snackbar';
import { errorText } from '../../lib/error-text';
import { formatDateTime } from '../../lib/format';
import { paths } from '../../lib/paths';
import { useProjectAccess, useProjectId } from '../../lib/project-access';
import { projectQueries } from '../../lib/project-queries';
import { runQuery, useRunActions, workflowKeys, workflowQuery } from './api/workflows-api';
import { draftOf, emptyDraft } from './components/draft';
import { RunNodesTable } from './components/run-nodes-table';
import { RunStatus } from './components/run-status';
import { RunsTable } from './components/runs-table';
import { WorkflowCanvas } from './components/workflow-canvas';

/** /project/{id}/workflows/{wid}/runs/{rid}: a run's nodes, live while it runs, with Stop / Resume / Re-run and the workflow's other runs. */
export function WorkflowRunPage() {
  const projectId = useProjectId();
  const params = useParams();
  const workflowId = Number(params.id);
  const runId = Number(params.runId);
  const query = useQuery(runQuery(projectId, workflowId, runId));
  if (!query.data) return <QueryStates query={query} loading={<PageSkeleton />} />;
  return <RunView projectId={projectId} workflowId={workflowId} run={query.data} />;
}

function RunView({ projectId, workflowId, run }: { projectId: number; workflowId: number; run: WorkflowRun }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const snackbar = useSnackbar();
  const qc = useQueryClient();
  const { canRun } = useProjectAccess(projectId);
  const workflow = useQuery(workflowQuery(projectId, workflowId)).data;
  const templates = useQuery(projectQueries.templates(projectId)).data ?? [];
  const actions = useRunActions(projectId, workflowId);
  const [selected, setSelected] = useState<string | null>(null);
  const finished = WORKFLOW_RUN_FINISHED.includes(run.status);
  const busy = actions.stop.isPending || actions.resume.isPending || actions.rerun.isPending;
  const draft = useMemo(() => {
    const base = workflow ? draftOf(workflow) : emptyDraft();
    // Nodes of the run the workflow no longer has are still drawn (without edges).
    const extra = run.nodes
      .filter((n) => !base.nodes.some((b) => b.id === n.id))
      .map((n): WorkflowNode => ({
        id: n.id,
        type: n.type,
        retries: 0,
        retry_delay_seconds: 0,
        allow_self_approval: false,
        on_timeout: 'reject',
      }));
    return { ...base, nodes: [...base.nodes, ...extra] };
  }, [workflow, run.nodes]);
  const statuses = useMemo(
    () => Object.fromEntries(run.nodes.map((n) => [n.id, n.status])) as Record<string, WorkflowNodeStatus>,
    [run.nodes],
  );
  // What a node runs, for the canvas and the lists (read afresh each render: the names may change).
  const detail = (id: string) => {
    const n = draft.nodes.find((x) => x.id === id);
    return n?.type === 'template' ? (templates.find((x) => x.id === n.template_id)?.name ?? '') : '';
  };
  const fail = (e: unknown) => snackbar.error(errorText(e));
  const show = (next: WorkflowRun) => {
    qc.setQueryData(workflowKeys.run(projectId, workflowId, next.id), next);
    void navigate(paths.workflowRun(projectId, workflowId, next.id));
  };
  const refresh = () => qc.invalidateQueries({ queryKey: workflowKeys.run(projectId, workflowId, run.id) });
  const failedOrStopped = run.status === 'failed' || run.status === 'stopped';
  return (
    <Box>
      <PageHeader
        title={t('workflows.runTitle', { id: run.id, name: run.workflow_name })}
        actions={
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
            <Button component={Link} to={paths.workflow(projectId, workflowId)} startIcon={<ArrowBackIcon />}>
              {t('workflows.toWorkflow')}
            </Button>
            {canRun ? (
              <>
                <Button
                  variant="outlined"
                  color="warning"
                  startIcon={<StopIcon />}
                  disabled={run.status !== 'running' || busy}
                  onClick={() => actions.stop.mutate(run.id, { onSuccess: () => void refresh(), onError: fail })}
                >
                  {t('workflows.stop')}
                </Button>
                <Button
                  variant="outlined"
                  startIcon={<ResumeIcon />}
                  disabled={!failedOrStopped || busy}
                  onClick={() => actions.resume.mutate(run.id, { onSuccess: show, onError: fail })}
                >
                  {t('workflows.resume')}
                </Button>
                <Button
                  variant="outlined"
                  startIcon={<ReplayIcon />}
                  disabled={!finished || busy}
                  onClick={() => actions.rerun.mutate(run.id, { onSuccess: show, onError: fail })}
                >
                  {t('workflows.rerun')}
                </Button>
              </>
            ) : null}
          </Stack>
        }
      />
      <Stack direction="row" sx={{ gap: 2, flexWrap: 'wrap', alignItems: 'center', mb: 2 }} aria-live="polite">
        <RunStatus status={run.status} kind="run" />
        <Typography variant="body2" color="text.secondary">
          {t('workflows.startedAt', { time: formatDateTime(run.created) })}
          {run.ended ? ` · ${t('workflows.endedAt', { time: formatDateTime(run.ended) })}` : ''}
        </Typography>
      </Stack>
      <WorkflowCanvas
        draft={draft}
        detail={detail}
        selected={selected}
        statuses={statuses}
        readOnly
        onSelect={setSelected}
      />
      <Box component="section" aria-labelledby="wf-run-nodes" sx={{ mt: 2 }}>
        <Typography id="wf-run-nodes" variant="h6" component="h2" sx={{ mb: 1 }}>
          {t('workflows.nodes')}
        </Typography>
        <RunNodesTable projectId={projectId} nodes={run.nodes} />
      </Box>
      <Box component="section" aria-labelledby="wf-run-list" sx={{ mt: 3 }}>
        <Typography id="wf-run-list" variant="h6" component="h2" sx={{ mb: 1 }}>
          {t('workflows.runs')}
        </Typography>
        <RunsTable projectId={projectId} workflowId={workflowId} current={run.id} />
      </Box>
    </Box>
  );
}
