import { isFinished } from '@gantry/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { realtime } from '../../../lib/realtime';
import { taskOutputPage, taskQuery } from '../api/tasks-api';
import { TaskLogLoader } from './log-loader';

const noop = () => undefined;

/**
 * The log of an open task. It subscribes to the task's lines first, then reads the first page
 * (finished task) or the newest one (running task) as soon as the status is known; when the task ends
 * or the socket reconnects it reads what it may have missed at the end. The caller does not
 * re-render on new lines; the view does (useLogVersion).
 */
export function useTaskLog(projectId: number, taskId: number, status: string | undefined): TaskLogLoader | null {
  const qc = useQueryClient();
  const [loader, setLoader] = useState<TaskLogLoader | null>(null);
  useEffect(() => {
    const l = new TaskLogLoader((query) => taskOutputPage(projectId, taskId, query));
    const offLines = realtime.subscribeTask(taskId, (m) => l.onMessage(m));
    const offOpen = realtime.onOpen(() => void l.catchUp());
    setLoader(l);
    // Straight from the task's answer (cached, even if marked stale, or the request already in
    // flight), not after the render that shows it: the first page is asked for as early as possible.
    const cached = qc.getQueryData(taskQuery(projectId, taskId).queryKey);
    if (cached) void l.open(isFinished(cached.status));
    else
      qc.fetchQuery(taskQuery(projectId, taskId)).then(
        (task) => void l.open(isFinished(task.status)),
        () => undefined,
      );
    return () => {
      offLines();
      offOpen();
      l.dispose();
    };
  }, [qc, projectId, taskId]);

  const finished = status !== undefined && isFinished(status);
  useEffect(() => {
    if (loader && finished) void loader.catchUp();
  }, [loader, finished]);

  return loader;
}

/** Re-renders the caller when the log's lines change (at most once per frame); answers the version. */
export function useLogVersion(loader: TaskLogLoader | null): number {
  const subscribe = useCallback((fn: () => void) => (loader ? loader.store.subscribe(fn) : noop), [loader]);
  return useSyncExternalStore(subscribe, () => loader?.store.version ?? 0);
}
