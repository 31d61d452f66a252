import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useMatch, useSearchParams } from 'react-router';
import { isNotFound } from '../../components/query-states';
import { useSnackbar } from '../../components/snackbar';
import { errorText } from '../../lib/error-text';
import { storage, StorageKeys } from '../../lib/storage';
import { taskQuery } from './api/tasks-api';
import type { TaskLogDialog as TaskLogDialogType } from './task-log-dialog';

// The log view's code (virtual list, log store) loads the first time a log is opened; at once
// when the page itself is a link to a task's log (?t=), alongside the rest of the app, and when
// the New task form opens (preloadTaskLogDialog), so Run shows the log with nothing in between.
let loaded: typeof TaskLogDialogType | null = null;
const loadDialog = () => import('./task-log-dialog').then((m) => (loaded = m.TaskLogDialog));
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

/**
 * Shows the task's log now, in the same render as the caller's own changes (Run closes its form
 * with it); the caller also puts ?t={taskId} in the address, which keeps it open from then on.
 */
export function openTaskLog(taskId: number): void {
  setOpening(taskId);
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
