import { isFinished } from '@gantry/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { realtime } from '../../../lib/realtime';
import { taskOutputPage, taskQuery } from '../api/tasks-api';
import { TaskLogLoader } from './log-loader';

const noop = () => undefined;
/** A log prepared for a dialog that does not come (its render failed, say) is let go after this. */
const UNCLAIMED_MS = 10_000;

interface LiveLog {
  loader: TaskLogLoader;
  stop(): void;
}

/** Subscribes a new loader to the task's lines and to the socket reopening. */
function startLog(projectId: number, taskId: number): LiveLog {
  const loader = new TaskLogLoader((query) => taskOutputPage(projectId, taskId, query));
  const offLines = realtime.subscribeTask(taskId, (m) => loader.onMessage(m));
  const offOpen = realtime.onOpen(() => void loader.catchUp());
  return {
    loader,
    stop() {
      offLines();
      offOpen();
      loader.dispose();
    },
  };
}

const prepared = new Map<string, LiveLog & { timer: ReturnType<typeof setTimeout>; shown: Promise<void> }>();
const preparedKey = (projectId: number, taskId: number) => `${projectId}/${taskId}`;

/**
 * Starts a task's log before its dialog renders (Run has the new task's answer): the subscription
 * and the first read go out now, while the page renders the dialog, not after its first paint.
 * The dialog's useTaskLog takes it over. Answers once what the first read found is on screen, or
 * after `maxWaitMs`.
 */
export function prepareTaskLog(projectId: number, taskId: number, finished: boolean, maxWaitMs: number): Promise<void> {
  const key = preparedKey(projectId, taskId);
  const known = prepared.get(key);
  if (known) return known.shown;
  const log = startLog(projectId, taskId);
  const timer = setTimeout(() => {
    prepared.delete(key);
    log.stop();
  }, UNCLAIMED_MS);
  const shown = firstLineShown(log.loader, maxWaitMs);
  prepared.set(key, { ...log, timer, shown });
  void log.loader.open(finished);
  return shown;
}

/**
 * Resolves after the frame that shows the log's first read (its lines, its error, or none yet: a
 * task waiting in the queue or for approval) or a first live line is painted, or after `maxMs`.
 */
function firstLineShown(loader: TaskLogLoader, maxMs: number): Promise<void> {
  return new Promise((resolve) => {
    let off = noop as () => unknown;
    const done = () => {
      off();
      clearTimeout(timer);
      // The store tells its listeners in the frame that renders the line: the next task comes after its paint.
      setTimeout(resolve, 0);
    };
    const timer = setTimeout(done, maxMs);
    off = loader.store.subscribe(() => {
      if (loader.store.lastSeq > 0 || loader.started) done();
    });
  });
}

/** The log prepared for this task, now owned by the caller (or none). */
function claimPrepared(projectId: number, taskId: number): LiveLog | null {
  const key = preparedKey(projectId, taskId);
  const log = prepared.get(key);
  if (!log) return null;
  prepared.delete(key);
  clearTimeout(log.timer);
  return log;
}

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
    const ready = claimPrepared(projectId, taskId);
    const log = ready ?? startLog(projectId, taskId);
    setLoader(log.loader);
    if (!ready) {
      // Straight from the task's answer (cached, even if marked stale, or the request already in
      // flight), not after the render that shows it: the first page is asked for as early as possible.
      const cached = qc.getQueryData(taskQuery(projectId, taskId).queryKey);
      if (cached) void log.loader.open(isFinished(cached.status));
      else
        qc.fetchQuery(taskQuery(projectId, taskId)).then(
          (task) => void log.loader.open(isFinished(task.status)),
          () => undefined,
        );
    }
    return () => log.stop();
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
