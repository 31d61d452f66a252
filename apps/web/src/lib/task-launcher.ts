/** Opens the New task dialog from any screen (the dialog lives at the app level). */
export interface TaskLaunch {
  projectId: number;
  templateId: number;
  /** A previous task to copy fields from (re-run). */
  fromTaskId?: number;
}

type Listener = (l: TaskLaunch) => void;
const listeners = new Set<Listener>();

export function launchTask(l: TaskLaunch): void {
  listeners.forEach((fn) => fn(l));
}

export function onTaskLaunch(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
