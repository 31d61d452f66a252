import { taskParamsSchema, type Task, type TaskCore, type TaskParams, type TaskStatus } from '@gantry/contracts';
import type { TaskRow, TaskWithNames } from './tasks.repository.js';

function parseParams(text: string): TaskParams {
  try {
    return taskParamsSchema.parse(JSON.parse(text));
  } catch {
    return {};
  }
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
  return {
    ...presentTaskCore(row),
    user_name: row.user_name,
    tpl_playbook: row.tpl_playbook ?? '',
    tpl_type: row.tpl_type ?? '',
    tpl_alias: row.tpl_name ?? '',
    tpl_app: row.tpl_app ?? '',
    build_task: row.build_task ? presentTaskCore(row.build_task) : null,
    workflow_run:
      row.workflow_run_id !== null && row.run_workflow_id !== null
        ? { id: row.workflow_run_id, workflow_id: row.run_workflow_id, node: row.workflow_node ?? '', attempt: row.workflow_attempt ?? 1 }
        : null,
  };
}
