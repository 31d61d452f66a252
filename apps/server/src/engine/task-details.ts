import type { TaskAuthor, TaskDetails, TaskRecord } from './ports.js';

export type { TaskDetails };

/**
 * What a run is told about its own task, as Semaphore tells it: Ansible gets the extra variable
 * `semaphore_vars` = `{ task_details: {...} }`, every app the environment variables
 * SEMAPHORE_TASK_TYPE / _TARGET_VERSION / _INCOMING_VERSION (build and deploy templates only), and
 * Gantry's own GANTRY_TASK_* beside them. All of it is computed by the server from the task row;
 * none of it comes from task input, whose names cannot reach these (`semaphore_vars` and
 * `SEMAPHORE_TASK_*` are reserved).
 */

/** The task's details from its row, its template's type, its author and the console's address. */
export function taskDetails(
  task: Pick<TaskRecord, 'id' | 'project_id' | 'message' | 'version'>,
  templateType: string,
  author: Pick<TaskAuthor, 'username'> | null,
  webHost: string,
): TaskDetails {
  const d: TaskDetails = {
    id: task.id,
    username: author?.username ?? '',
    url: webHost ? `${webHost}/project/${task.project_id}/history?t=${task.id}` : null,
  };
  if (task.message) d.message = task.message;
  if (templateType === 'build') {
    d.type = 'build';
    d.target_version = task.version;
  } else if (templateType === 'deploy') {
    d.type = 'deploy';
    // A deploy task keeps the version of the build it deploys (copied when it was queued, after
    // checking that build), so it stays known even once that build task is deleted.
    if (task.version !== null) d.incoming_version = task.version;
  }
  return d;
}

/** The environment variables a run gets from its task's details (none for a job from an older server). */
export function taskDetailsEnv(d: TaskDetails | undefined): Record<string, string> {
  if (!d) return {};
  const env: Record<string, string> = {};
  const set = (names: string[], value: string | null | undefined) => {
    if (value) for (const n of names) env[n] = value;
  };
  set(['GANTRY_TASK_USERNAME'], d.username);
  set(['GANTRY_TASK_URL'], d.url);
  set(['SEMAPHORE_TASK_TYPE', 'GANTRY_TASK_TYPE'], d.type);
  set(['SEMAPHORE_TASK_TARGET_VERSION', 'GANTRY_TASK_TARGET_VERSION'], d.target_version);
  set(['SEMAPHORE_TASK_INCOMING_VERSION', 'GANTRY_TASK_INCOMING_VERSION'], d.incoming_version);
  return env;
}

/**
 * Ansible's `semaphore_vars`, for the extra-vars file in which every string is `!unsafe`: a
 * message or version is user-written text, read by a playbook as a plain string and never
 * rendered as a template. Written after every other variable, so it is always the server's.
 */
export function semaphoreVars(d: TaskDetails | undefined): Record<string, unknown> {
  return d ? { semaphore_vars: { task_details: d } } : {};
}
