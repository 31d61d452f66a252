import type { AuditEntry } from '@gantry/contracts';
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** The filters the Audit page sends (empty ones are left out). */
export interface AuditFilters {
  actor: string;
  action: string;
  object_type: string;
  /** Local dates (YYYY-MM-DD) from the date fields: the day from its start, the day to its end. */
  from: string;
  to: string;
}

export const EMPTY_AUDIT_FILTERS: AuditFilters = { actor: '', action: '', object_type: '', from: '', to: '' };

/** The query string of one page: `limit` one more than shown, so the page knows whether another follows. */
export function auditSearch(filters: AuditFilters, offset: number, pageSize: number): string {
  const q = new URLSearchParams();
  if (filters.actor.trim()) q.set('actor', filters.actor.trim());
  if (filters.action) q.set('action', filters.action);
  if (filters.object_type) q.set('object_type', filters.object_type);
  if (filters.from) q.set('from', new Date(`${filters.from}T00:00:00`).toISOString());
  if (filters.to) q.set('to', new Date(new Date(`${filters.to}T00:00:00`).getTime() + 86_400_000).toISOString());
  q.set('limit', String(pageSize + 1));
  q.set('offset', String(offset));
  return q.toString();
}

export const auditQuery = (filters: AuditFilters, offset: number, pageSize: number) =>
  queryOptions({
    queryKey: ['audit', filters, offset, pageSize] as const,
    queryFn: () => api.get<AuditEntry[]>(`/audit?${auditSearch(filters, offset, pageSize)}`),
    placeholderData: keepPreviousData,
  });
