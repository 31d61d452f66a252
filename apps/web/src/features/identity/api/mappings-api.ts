import type { IdentityMapping, IdentityMappingInput, IdentitySource } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

const mappingsKey = ['identity', 'mappings'] as const;

export const mappingsQuery = queryOptions({
  queryKey: mappingsKey,
  queryFn: () => api.get<IdentityMapping[]>('/identity/mappings'),
});
export const sourcesQuery = queryOptions({
  queryKey: ['identity', 'sources'] as const,
  queryFn: () => api.get<IdentitySource[]>('/identity/sources'),
});

/** Creates a rule (`id` null) or replaces one. */
export function useSaveMapping(id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: IdentityMappingInput) =>
      id === null
        ? api.post<IdentityMapping>('/identity/mappings', body)
        : api.put<IdentityMapping>(`/identity/mappings/${id}`, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: mappingsKey }),
  });
}

export function useDeleteMapping() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/identity/mappings/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: mappingsKey }),
  });
}
