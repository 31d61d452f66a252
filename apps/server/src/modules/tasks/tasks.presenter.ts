import { taskParamsSchema, type Task, type TaskStatus } from '@gantry/contracts';
import type { TaskWithNames } from './tasks.repository.js';

/** The API shape of a task: secret answers (sealed) never leave the server. */
export function presentTask(row: TaskWithNames): Task {
  let params = {};
  try {
    params = taskParamsSchema.parse(JSON.parse(row.params));
  } catch {
    params = {};
  }
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
    user_name: row.user_name,
    integration_id: row.integration_id,
    schedule_id: row.schedule_id,
    environment: row.environment,
    params,
    git_branch: row.git_branch,
    inventory_id: row.inventory_id,
    arguments: row.arguments,
    created: row.created,
    start: row.start,
    end: row.end,
    tpl_type: row.tpl_type ?? '',
    tpl_alias: row.tpl_name ?? '',
    tpl_app: row.tpl_app ?? '',
    runner_id: row.runner_id,
  };
}
