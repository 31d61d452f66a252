import { TASK_STATUSES, type Task, type TaskStatus, type WsMessage } from '@gantry/contracts';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { onSessionRestored } from '../lib/api-client';
import { projectKeys } from '../lib/project-queries';
import { realtime } from '../lib/realtime';
import { reloadIfServerChanged } from '../lib/server-status';

/**
 * Runs the WebSocket while the app is signed in; status updates refresh the task queries of the
 * project they belong to (lists merge them; see the task list for the finer merge), and every
 * (re)connection refreshes the task queries, since updates sent meanwhile were missed. A socket
 * closed because the session ended opens again once the user signed in again over the page; one
 * that reconnects after a drop checks whether the server came back as another build.
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
      // A template's task list on screen merges the update itself (useLiveTasks); others are read when next shown.
      if (m.template_id) void qc.invalidateQueries({ queryKey: ['project', m.project_id, 'template', m.template_id, 'tasks'], refetchType: 'none' });
      void qc.invalidateQueries({ queryKey: projectKeys.templates(m.project_id) });
    });
    // Updates sent before the socket (re)opened were missed: read the task queries again.
    let opened = false;
    const offOpen = realtime.onOpen(() => {
      if (opened) void reloadIfServerChanged();
      opened = true;
      void qc.invalidateQueries({
        predicate: (q) => q.queryKey[0] === 'task' || q.queryKey[0] === 'active-tasks' || q.queryKey.includes('tasks'),
      });
    });
    const offRestored = onSessionRestored(() => realtime.start());
    return () => {
      offRestored();
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
