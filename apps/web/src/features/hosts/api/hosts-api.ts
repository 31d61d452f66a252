import type { HostsList } from '@gantry/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** The hosts view of a project: it lists every inventory (a process each), so it is not read again on focus. */
export const hostsQuery = (projectId: number) =>
  queryOptions({
    queryKey: ['project', projectId, 'hosts'] as const,
    queryFn: () => api.get<HostsList>(`/project/${projectId}/hosts`),
    refetchOnWindowFocus: false,
    staleTime: 30_000,
  });
