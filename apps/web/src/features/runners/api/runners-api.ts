import type { Runner, RunnerCreated, RunnerInput } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** Global runners (admin) when `projectId` is null, else that project's runners. */
export const runnersBase = (projectId: number | null) => (projectId === null ? '/runners' : `/project/${projectId}/runners`);
export const runnersKey = (projectId: number | null) => ['runners', projectId ?? 'global'] as const;

/** Refreshed every 10 s so the activity colour follows the runners' polls. */
export const runnersQuery = (projectId: number | null) =>
  queryOptions({ queryKey: runnersKey(projectId), queryFn: () => api.get<Runner[]>(runnersBase(projectId)), refetchInterval: 10_000 });

/** Creates (answer with token and private key, once) or saves a runner. */
export function useSaveRunner(projectId: number | null, id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: RunnerInput): Promise<RunnerCreated | null> => {
      if (id === null) return api.post<RunnerCreated>(runnersBase(projectId), body);
      await api.put(`${runnersBase(projectId)}/${id}`, body);
      return null;
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: runnersKey(projectId) }),
  });
}

export function useSetRunnerActive(projectId: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, active }: { id: number; active: boolean }) => api.post(`${runnersBase(projectId)}/${id}/active`, { active }),
    onSettled: () => qc.invalidateQueries({ queryKey: runnersKey(projectId) }),
  });
}

export function useClearRunnerCache(projectId: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`${runnersBase(projectId)}/${id}/cache`),
    onSettled: () => qc.invalidateQueries({ queryKey: runnersKey(projectId) }),
  });
}

export function useDeleteRunner(projectId: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`${runnersBase(projectId)}/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: runnersKey(projectId) }),
  });
}
