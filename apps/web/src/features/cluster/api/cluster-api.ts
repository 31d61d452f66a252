import { NODE_HEARTBEAT_MS, type ClusterNode } from '@gantry/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** The server nodes sharing the database (admin only: others get a 403). */
export const fetchNodes = () => api.get<ClusterNode[]>('/nodes');

/** Refetched at the heartbeat pace, so ages and running-task counts follow the nodes. */
export const nodesQuery = queryOptions({
  queryKey: ['cluster', 'nodes'] as const,
  queryFn: fetchNodes,
  refetchInterval: NODE_HEARTBEAT_MS,
});

/** The nodes; `enabled` is false for non-admins, who would only be refused. */
export const useNodes = (enabled: boolean) => useQuery({ ...nodesQuery, enabled });
