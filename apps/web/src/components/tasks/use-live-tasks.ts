import { isFinished, type Task, type WsMessage } from '@gantry/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../lib/api-client';
import { realtime } from '../../lib/realtime';

type Update = Extract<WsMessage, { type: 'update' }>;

/**
 * Keeps a cached task list live (spec 4): an update for a listed task merges into its row; an
 * update for a task the list does not know reloads the list, once: updates heard while it reloads
 * merge into its answer (a task that just started sends several in a row), and only a task still
 * missing from that answer reloads it again. A task that finishes is read alone (its commit and
 * the like are not in the update), not the whole list again.
 */
export function useLiveTasks(queryKey: readonly unknown[], projectId: number, templateId?: number): void {
  const qc = useQueryClient();
  // The key's contents, not its identity (callers may build it anew on each render).
  const keyText = JSON.stringify(queryKey);
  useEffect(() => {
    const key = JSON.parse(keyText) as unknown[];
    let active = true;
    /** Updates heard while the list reloads (the latest per task), or null when it does not. */
    let heard: Map<number, Update> | null = null;
    const setRow = (id: number, change: (row: Task) => Task) =>
      qc.setQueryData<Task[]>(key, (list) => list?.map((x) => (x.id === id ? change(x) : x)));

    /** Merges the update into its row; answers false when the list has no such row. */
    const merge = (m: Update): boolean => {
      const row = qc.getQueryData<Task[]>(key)?.find((x) => x.id === m.task_id);
      if (!row) return false;
      // A finished row stays finished (an update that was overtaken by the list's answer).
      if (isFinished(row.status) && !isFinished(m.status)) return true;
      setRow(m.task_id, (x) => ({
        ...x,
        status: m.status as Task['status'],
        start: m.start ?? x.start,
        end: m.end ?? x.end,
        version: m.version ?? x.version,
      }));
      if (isFinished(m.status) && !isFinished(row.status)) {
        api.get<Task>(`/project/${projectId}/tasks/${m.task_id}`).then(
          (task) => active && setRow(task.id, () => task),
          () => undefined,
        );
      }
      return true;
    };

    const reload = () => {
      heard = new Map();
      void qc.refetchQueries({ queryKey: key, exact: true }).finally(() => {
        const later = [...(heard?.values() ?? [])];
        heard = null;
        if (!active) return;
        if (later.filter((m) => !merge(m)).length) reload();
      });
    };

    const off = realtime.subscribe((m) => {
      if (m.type !== 'update' || m.project_id !== projectId) return;
      if (templateId !== undefined && m.template_id !== undefined && m.template_id !== templateId) return;
      if (heard) heard.set(m.task_id, m);
      else if (!merge(m)) reload();
    });
    return () => {
      active = false;
      off();
    };
  }, [qc, keyText, projectId, templateId]);
}
