import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useMatch, useSearchParams } from 'react-router';
import { isNotFound } from '../../components/query-states';
import { useSnackbar } from '../../components/snackbar';
import { errorText } from '../../lib/error-text';
import { storage, StorageKeys } from '../../lib/storage';
import { taskQuery } from './api/tasks-api';
import { isFinished, type Task } from '@gantry/contracts';
import type { TaskLogDialog as TaskLogDialogType, prepareTaskLog as PrepareTaskLog } from './task-log-dialog';

// The log view's code (virtual list, log store) loads the first time a log is opened; at once
// when the page itself is a link to a task's log (?t=), alongside the rest of the app, and when
// the New task form opens (preloadTaskLogDialog), so Run shows the log with nothing in between.
let loaded: typeof TaskLogDialogType | null = null;
let prepare: typeof PrepareTaskLog | null = null;
const loadDialog = () =>
  import('./task-log-dialog').then((m) => {
    prepare = m.prepareTaskLog;
    return (loaded = m.TaskLogDialog);
  });
if (new URLSearchParams(window.location.search).has('t')) preloadTaskLogDialog();
const LazyTaskLogDialog = lazy(async () => ({ default: await loadDialog() }));

/** Starts loading the log view's code (errors show when the log is opened). */
export function preloadTaskLogDialog(): void {
  void loadDialog().catch(() => undefined);
}

// A log opened by openTaskLog, shown until the address changes (in a transition, which renders the
// whole page again and can take a while).
let opening: number | null = null;
const openingListeners = new Set<() => void>();
const setOpening = (taskId: number | null) => {
  opening = taskId;
  openingListeners.forEach((l) => l());
};
const onOpening = (l: () => void) => {
  openingListeners.add(l);
  return () => void openingListeners.delete(l);
};

/** How long the address may wait for the log's first line (see openTaskLog). */
const ADDRESS_WAIT_MS = 1000;

/**
 * Shows the task's log now, in the same render as the caller's own changes (Run closes its form
 * with it), then `putInAddress` puts ?t={taskId} in the address, which keeps it open from then on.
 * With the log's code loaded, its lines are asked for at once, before the dialog renders, and the
 * address changes once the first lines are on screen (at most ADDRESS_WAIT_MS later): a new address
 * renders the page under the dialog again, which would hold the line back. Closed or left by then,
 * the address is not changed.
 */
export function openTaskLog(projectId: number, task: Pick<Task, 'id' | 'status'>, putInAddress: () => void): void {
  const shown = prepare?.(projectId, task.id, isFinished(task.status), ADDRESS_WAIT_MS);
  setOpening(task.id);
  if (!shown) return putInAddress();
  void shown.then(() => {
    if (opening === task.id) putInAddress();
  });
}

/** Opens the task's log over any page when the URL has ?t={taskId} (in the current project). */
export function TaskLogHost() {
  const [params] = useSearchParams();
  const match = useMatch('/project/:projectId/*');
  const projectId = Number(match?.params.projectId ?? storage.get(StorageKeys.projectId));
  const inAddress = Number(params.get('t'));
  const pending = useSyncExternalStore(onOpening, () => opening);
  // The address a log was opened over: once it changes (to name the log, or anywhere else), the
  // address decides again.
  const { key } = useLocation();
  const openedAt = useRef(key);
  useEffect(() => {
    if (pending === null) openedAt.current = key;
    else if (key !== openedAt.current) setOpening(null);
  }, [pending, key]);
  const taskId = pending ?? inAddress;
  if (!taskId || !projectId) return null;
  return <TaskLogLoading key={taskId} projectId={projectId} taskId={taskId} />;
}

/**
 * Asks for the task while the dialog's code loads, so the dialog opens knowing its status. A task
 * that is not there opens no dialog: a snackbar says so, once.
 */
function TaskLogLoading({ projectId, taskId }: { projectId: number; taskId: number }) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const task = useQuery(taskQuery(projectId, taskId));
  const failure = task.isError && task.data === undefined ? task.error : null;
  const [told, setTold] = useState(false);
  useEffect(() => {
    if (!failure || told) return;
    setTold(true);
    snackbar.error(isNotFound(failure) ? t('tasks.notFound', { id: taskId }) : errorText(failure));
  }, [failure, told, taskId, snackbar, t]);
  if (!task.data) return null;
  // Once loaded, the component itself: rendered in the same commit, without suspending first.
  const TaskLogDialog = loaded ?? LazyTaskLogDialog;
  return (
    <Suspense fallback={null}>
      <TaskLogDialog projectId={projectId} taskId={taskId} />
    </Suspense>
  );
}
