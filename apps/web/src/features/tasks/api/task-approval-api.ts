import type { Approval } from '@gantry/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** How often a task's pending approval is read again: other approvers' votes show up. */
const PENDING_REFRESH_MS = 10_000;

/**
 * The approval a task waits for (or went through), if its template needs one. Under the
 * project's approvals key, so a vote anywhere in the console reads it again; keyed by the task's
 * status too, so a decision that moves the task on is seen at once.
 */
export const taskApprovalQuery = (projectId: number, taskId: number, status: string | undefined) =>
  queryOptions({
    queryKey: ['project', projectId, 'approvals', 'task', taskId, status] as const,
    queryFn: async () =>
      (await api.get<Approval[]>(`/project/${projectId}/approvals?status=all&task_id=${taskId}`))[0] ?? null,
    enabled: status !== undefined,
    refetchInterval: (q) => (q.state.data?.status === 'pending' ? PENDING_REFRESH_MS : false),
  });
