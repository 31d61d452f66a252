import { useQueryClient } from '@tanstack/react-query';
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
