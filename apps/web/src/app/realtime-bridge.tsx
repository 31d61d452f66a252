import { TASK_STATUSES, type Task, type TaskStatus, type WsMessage } from '@gantry/contracts';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { projectKeys } from '../lib/project-queries';
import { realtime } from '../lib/realtime';

/**
 * Runs the WebSocket while the app is signed in; status updates refresh the task queries of the
 * project they belong to (lists merge them; see the task list for the finer merge), and every
 * (re)connection refreshes the task queries, since updates sent meanwhile were missed.
 */
export function RealtimeBridge() {
  const qc = useQueryClient();
  useEffect(() => {
    realtime.start();
    const off = realtime.subscribe((m) => {
      if (m.type !== 'update') return;
      patchTask(qc, m);
      void qc.invalidateQueries({ queryKey: ['task', m.task_id] });
      void qc.invalidateQueries({ queryKey: ['active-tasks'] });
      if (m.template_id) void qc.invalidateQueries({ queryKey: ['project', m.project_id, 'template', m.template_id, 'tasks'] });
      void qc.invalidateQueries({ queryKey: projectKeys.templates(m.project_id) });
    });
    // Updates sent before the socket (re)opened were missed: read the task queries again.
    const offOpen = realtime.onOpen(
      () =>
        void qc.invalidateQueries({
          predicate: (q) => q.queryKey[0] === 'task' || q.queryKey[0] === 'active-tasks' || q.queryKey.includes('tasks'),
        }),
    );
    return () => {
      offOpen();
      off();
      realtime.stop();
    };
  }, [qc]);
  return null;
}

/**
 * The open task's status changes at once from the message itself, before the refetch that
 * brings the rest of the record: the log dialog shows a finished task as finished without
 * waiting for a round trip.
 */
function patchTask(qc: QueryClient, m: Extract<WsMessage, { type: 'update' }>): void {
  if (!(TASK_STATUSES as readonly string[]).includes(m.status)) return;
  qc.setQueryData<Task>(['task', m.task_id], (old) =>
    old ? { ...old, status: m.status as TaskStatus, start: m.start ?? old.start, end: m.end ?? old.end, version: m.version ?? old.version } : old,
  );
}
