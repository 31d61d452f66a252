import type { Task } from '@gantry/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { realtime } from '../../lib/realtime';

/**
 * Keeps a cached task list live (spec 4): an update for a listed task merges into its row; an
 * update for a task the list does not know reloads the list.
 */
export function useLiveTasks(queryKey: readonly unknown[], projectId: number, templateId?: number): void {
  const qc = useQueryClient();
  useEffect(
    () =>
      realtime.subscribe((m) => {
        if (m.type !== 'update' || m.project_id !== projectId) return;
        if (templateId !== undefined && m.template_id !== undefined && m.template_id !== templateId) return;
        const list = qc.getQueryData<Task[]>(queryKey);
        if (list?.some((x) => x.id === m.task_id)) {
          qc.setQueryData<Task[]>(queryKey, list.map((x) => (x.id === m.task_id && m.status ? { ...x, status: m.status as Task['status'] } : x)));
          if (m.status && ['success', 'error', 'stopped', 'rejected'].includes(m.status)) void qc.invalidateQueries({ queryKey });
        } else {
          void qc.invalidateQueries({ queryKey });
        }
      }),
    [qc, queryKey, projectId, templateId],
  );
}
