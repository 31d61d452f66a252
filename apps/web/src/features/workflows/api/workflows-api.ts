import {
  WORKFLOW_RUN_FINISHED,
  type Workflow,
  type WorkflowInput,
  type WorkflowRun,
  type WorkflowRunSummary,
} from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** How often a run that has not finished is read again (its nodes' live status). */
export const RUN_POLL_MS = 1500;

export const workflowKeys = {
  list: (p: number) => ['project', p, 'workflows'] as const,
  one: (p: number, id: number) => ['project', p, 'workflows', id] as const,
  runs: (p: number, id: number) => ['project', p, 'workflows', id, 'runs'] as const,
  run: (p: number, id: number, runId: number) => ['project', p, 'workflows', id, 'runs', runId] as const,
};

const base = (p: number) => `/project/${p}/workflows`;

export const workflowsQuery = (p: number) =>
  queryOptions({ queryKey: workflowKeys.list(p), queryFn: () => api.get<Workflow[]>(base(p)) });
export const workflowQuery = (p: number, id: number) =>
  queryOptions({ queryKey: workflowKeys.one(p, id), queryFn: () => api.get<Workflow>(`${base(p)}/${id}`) });

/** A workflow's runs, newest first; read again while one of them is still going. */
export const runsQuery = (p: number, id: number) =>
  queryOptions({
    queryKey: workflowKeys.runs(p, id),
    queryFn: () => api.get<WorkflowRunSummary[]>(`${base(p)}/${id}/runs`),
    refetchInterval: (q) =>
      q.state.data?.some((r) => !WORKFLOW_RUN_FINISHED.includes(r.status)) ? RUN_POLL_MS * 2 : false,
    retry: false,
  });

/** One run with its nodes, polled every RUN_POLL_MS until it has finished. */
export const runQuery = (p: number, id: number, runId: number) =>
  queryOptions({
    queryKey: workflowKeys.run(p, id, runId),
    queryFn: () => api.get<WorkflowRun>(`${base(p)}/${id}/runs/${runId}`),
    refetchInterval: (q) => (q.state.data && WORKFLOW_RUN_FINISHED.includes(q.state.data.status) ? false : RUN_POLL_MS),
  });

/** Creates (id null) or replaces a workflow; answers its id. */
export function useSaveWorkflow(p: number, id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: WorkflowInput): Promise<number> => {
      if (id) {
        await api.put(`${base(p)}/${id}`, body);
        return id;
      }
      return (await api.post<Workflow>(base(p), body)).id;
    },
    onSuccess: async (saved) => {
      await qc.invalidateQueries({ queryKey: workflowKeys.list(p), exact: true });
      await qc.invalidateQueries({ queryKey: workflowKeys.one(p, saved), exact: true });
    },
  });
}

/** Starts a run of a workflow; answers the new run. */
export function useStartRun(p: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (workflowId: number) => api.post<WorkflowRun>(`${base(p)}/${workflowId}/runs`, {}),
    onSuccess: (run) => qc.invalidateQueries({ queryKey: workflowKeys.runs(p, run.workflow_id) }),
  });
}

/** A run's actions: resume from the failed nodes, stop, and re-run whole (resume and re-run answer the run to show next). */
export function useRunActions(p: number, id: number) {
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: workflowKeys.runs(p, id) });
  const url = (runId: number, action: string) => `${base(p)}/${id}/runs/${runId}/${action}`;
  return {
    resume: useMutation({
      mutationFn: (runId: number) => api.post<WorkflowRun>(url(runId, 'resume')),
      onSuccess: refresh,
    }),
    stop: useMutation({ mutationFn: (runId: number) => api.post(url(runId, 'stop')), onSuccess: refresh }),
    rerun: useMutation({
      mutationFn: (runId: number) => api.post<WorkflowRun>(url(runId, 'rerun')),
      onSuccess: refresh,
    }),
  };
}
