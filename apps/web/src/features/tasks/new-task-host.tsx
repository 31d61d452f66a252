import { lazy, Suspense, useEffect, useState } from 'react';
import { onTaskLaunch, type TaskLaunch } from '../../lib/task-launcher';
import { preloadTaskLogDialog } from './task-log-host';

// The form's code (survey fields, run options) loads the first time a task is launched.
const NewTaskDialog = lazy(async () => ({ default: (await import('./new-task-dialog')).NewTaskDialog }));

/** Listens for launchTask() and shows the New task dialog. */
export function NewTaskHost() {
  const [launch, setLaunch] = useState<TaskLaunch | null>(null);
  useEffect(
    () =>
      onTaskLaunch((l) => {
        // Run opens the task's log next: its code loads while the form is filled in.
        preloadTaskLogDialog();
        setLaunch(l);
      }),
    [],
  );
  if (!launch) return null;
  return (
    <Suspense fallback={null}>
      <NewTaskDialog key={`${launch.templateId}-${launch.fromTaskId ?? ''}`} launch={launch} onClose={() => setLaunch(null)} />
    </Suspense>
  );
}
