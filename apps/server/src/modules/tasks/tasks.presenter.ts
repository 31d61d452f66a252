import { taskParamsSchema, type Task, type TaskCore, type TaskParams, type TaskStatus } from '@gantry/contracts';
import type { TaskRow, TaskWithNames } from './tasks.repository.js';

/**
 * Parsed params by their stored text. A list answers 200 tasks, most with the same few texts
 * (often `{}`), and checking each with the schema was a tenth of the server's time under load;
 * the objects are frozen because answers share them.
 */
const parsedParams = new Map<string, TaskParams>();
const PARSED_PARAMS_MAX = 512;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function parseParams(text: string): TaskParams {
  const known = parsedParams.get(text);
  if (known) return known;
  let params: TaskParams;
  try {
    params = taskParamsSchema.parse(JSON.parse(text));
  } catch {
    params = {};
  }
  if (parsedParams.size >= PARSED_PARAMS_MAX) parsedParams.clear();
  parsedParams.set(text, deepFreeze(params));
  return params;
}

/** A task's own fields (a build task as `build_task` carries it): secret answers (sealed) never leave the server. */
export function presentTaskCore(row: TaskRow): TaskCore {
  const params = parseParams(row.params);
  return {
    id: row.id,
    template_id: row.template_id,
    project_id: row.project_id,
    status: row.status as TaskStatus,
    message: row.message,
    commit_hash: row.commit_hash,
    commit_message: row.commit_message,
    version: row.version,
    build_task_id: row.build_task_id,
    user_id: row.user_id,
    user_name: null,
    integration_id: row.integration_id,
    schedule_id: row.schedule_id,
    environment: row.environment,
    params,
    git_branch: row.git_branch,
    inventory_id: row.inventory_id,
    environment_id: row.environment_id ?? null,
    arguments: row.arguments,
    created: row.created,
    start: row.start,
    end: row.end,
    runner_id: row.runner_id,
    debug: params.debug ?? false,
    dry_run: params.dry_run ?? false,
    diff: params.diff ?? false,
    limit: (params.limit ?? []).join(','),
    playbook: '',
  };
}

/** The API shape of a task row of the lists, with its template's and user's names and its build task. */
export function presentTask(row: TaskWithNames): Task {
  // Filled in place rather than spread into a new object: lists present 200 of these per call.
  const task = presentTaskCore(row) as Task;
  task.user_name = row.user_name;
  task.tpl_playbook = row.tpl_playbook ?? '';
  task.tpl_type = row.tpl_type ?? '';
  task.tpl_alias = row.tpl_name ?? '';
  task.tpl_app = row.tpl_app ?? '';
  task.build_task = row.build_task ? presentTaskCore(row.build_task) : null;
  task.workflow_run =
    row.workflow_run_id !== null && row.run_workflow_id !== null
      ? { id: row.workflow_run_id, workflow_id: row.run_workflow_id, node: row.workflow_node ?? '', attempt: row.workflow_attempt ?? 1 }
      : null;
  return task;
}
