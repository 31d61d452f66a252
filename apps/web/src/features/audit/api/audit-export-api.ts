import type { AuditExportStatus } from '@gantry/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** `GET /api/audit/export` (admins): each export destination and how far it got; read again every 15 s. */
export const auditExportQuery = () =>
  queryOptions({
    queryKey: ['audit', 'export'] as const,
    queryFn: () => api.get<AuditExportStatus>('/audit/export'),
    refetchInterval: 15_000,
  });
