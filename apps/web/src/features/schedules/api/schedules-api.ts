import type { ScheduleNextRuns } from '@gantry/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** How many next runs the schedule dialog shows. */
export const NEXT_RUNS_SHOWN = 3;

/**
 * The next due times of an expression, computed by the server with the scheduler's own cron
 * library (so the dialog never shows a time the scheduler would not fire). A bad expression is a
 * 400, not worth retrying.
 */
export const nextRunsQuery = (p: number, cron: string) =>
  queryOptions({
    queryKey: ['project', p, 'schedule-next-runs', cron],
    queryFn: () => api.post<ScheduleNextRuns>(`/project/${p}/schedules/next_runs`, { cron_format: cron, count: NEXT_RUNS_SHOWN }),
    retry: false,
    staleTime: 30_000,
  });
