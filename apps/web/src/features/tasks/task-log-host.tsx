import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMatch, useSearchParams } from 'react-router';
import { isNotFound } from '../../components/query-states';
import { useSnackbar } from '../../components/snackbar';
import { errorText } from '../../lib/error-text';
import { storage, StorageKeys } from '../../lib/storage';
import { taskQuery } from './api/tasks-api';

// The log view's code (virtual list, log store) loads the first time a log is opened; at once
// when the page itself is a link to a task's log (?t=), alongside the rest of the app.
const loadDialog = () => import('./task-log-dialog');
if (new URLSearchParams(window.location.search).has('t')) void loadDialog().catch(() => undefined);
const TaskLogDialog = lazy(async () => ({ default: (await loadDialog()).TaskLogDialog }));

/** Opens the task's log over any page when the URL has ?t={taskId} (in the current project). */
export function TaskLogHost() {
  const [params] = useSearchParams();
  const match = useMatch('/project/:projectId/*');
  const projectId = Number(match?.params.projectId ?? storage.get(StorageKeys.projectId));
  const taskId = Number(params.get('t'));
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
  return (
    <Suspense fallback={null}>
      <TaskLogDialog projectId={projectId} taskId={taskId} />
    </Suspense>
  );
}
