import type { Approval } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** How often the inbox (and its count in the navigation) is asked again: cheap, one query. */
export const INBOX_REFRESH_MS = 30_000;

export type ApprovalFilter = 'pending' | 'all';

export const approvalKeys = {
  inbox: ['approvals', 'inbox'] as const,
  project: (p: number) => ['project', p, 'approvals'] as const,
  list: (p: number, filter: ApprovalFilter) => ['project', p, 'approvals', 'list', filter] as const,
  one: (p: number, id: number) => ['project', p, 'approvals', 'one', id] as const,
};

/** The signed-in user's inbox: pending approvals across projects that they may decide now. */
export const inboxQuery = queryOptions({
  queryKey: approvalKeys.inbox,
  queryFn: () => api.get<Approval[]>('/approvals'),
  refetchInterval: INBOX_REFRESH_MS,
});

export const projectApprovalsQuery = (p: number, filter: ApprovalFilter) =>
  queryOptions({
    queryKey: approvalKeys.list(p, filter),
    queryFn: () => api.get<Approval[]>(`/project/${p}/approvals?status=${filter}`),
  });

export const approvalQuery = (p: number, id: number) =>
  queryOptions({
    queryKey: approvalKeys.one(p, id),
    queryFn: () => api.get<Approval>(`/project/${p}/approvals/${id}`),
    retry: false,
  });

export type Decision = 'approve' | 'reject';

/** Votes on an approval; afterwards the inbox, the project's lists and the tasks are read again. */
export function useDecide(p: number, id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ decision, comment }: { decision: Decision; comment: string }) =>
      api.post<Approval>(`/project/${p}/approvals/${id}/${decision}`, { comment }),
    onSuccess: async (approval) => {
      qc.setQueryData(approvalKeys.one(p, id), approval);
      await Promise.all([
        qc.invalidateQueries({ queryKey: approvalKeys.inbox }),
        qc.invalidateQueries({ queryKey: approvalKeys.project(p) }),
        // A decided task approval moves its task on (waiting, or rejected).
        qc.invalidateQueries({ queryKey: ['project', p, 'tasks'] }),
      ]);
    },
  });
}

/** Redeems a notification's signed one-time link: which approval of which project it opens. */
export function redeemLink(token: string) {
  return api.post<{ project_id: number; approval_id: number }>('/approvals/link', { token });
}
