import type { App, AppCreate, AppUpdate, SandboxStatus } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** The same key the template form reads apps under, so changes here reach it too. */
export const appsKey = ['apps'] as const;

export const appsQuery = queryOptions({ queryKey: appsKey, queryFn: () => api.get<App[]>('/apps') });

/** Whether task processes run sandboxed (admins only); fixed until the server restarts. */
export const sandboxQuery = queryOptions({
  queryKey: ['sandbox'] as const,
  queryFn: () => api.get<SandboxStatus>('/sandbox'),
  staleTime: Infinity,
});

/** Creates a custom app (id set) or saves an existing one's settings. */
export function useSaveApp(id: string | null) {
  const qc = useQueryClient();
  return useMutation({
    // Saving an existing app answers 204 without a body; the list is read again either way.
    mutationFn: async (body: AppCreate | AppUpdate): Promise<void> => {
      await (id ? api.put(`/apps/${encodeURIComponent(id)}`, body) : api.post<App>('/apps', body));
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: appsKey }),
  });
}

/** The active switch: the list changes at once and goes back if the server refuses. */
export function useSetAppActive() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, active }: { id: string; active: boolean }) =>
      api.post(`/apps/${encodeURIComponent(id)}/active`, { active }),
    onMutate: async ({ id, active }) => {
      await qc.cancelQueries({ queryKey: appsKey });
      const before = qc.getQueryData<App[]>(appsKey);
      qc.setQueryData<App[]>(appsKey, (apps) => apps?.map((a) => (a.id === id ? { ...a, active } : a)));
      return { before };
    },
    onError: (_e, _v, context) => qc.setQueryData(appsKey, context?.before),
    onSettled: () => qc.invalidateQueries({ queryKey: appsKey }),
  });
}

export function useDeleteApp() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`/apps/${encodeURIComponent(id)}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: appsKey }),
  });
}
