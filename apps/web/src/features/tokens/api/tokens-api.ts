import type { ApiToken, ApiTokenCreate } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { keys } from '../../../lib/session';

export const tokensQuery = queryOptions({ queryKey: keys.tokens, queryFn: () => api.get<ApiToken[]>('/user/tokens') });

export function useCreateToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: NonNullable<ApiTokenCreate>) => api.post<ApiToken>('/user/tokens', body),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.tokens }),
  });
}

export function useDeleteToken() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (id: string) => api.delete(`/user/tokens/${id}`), onSuccess: () => qc.invalidateQueries({ queryKey: keys.tokens }) });
}
