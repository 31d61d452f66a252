import type { Schedule } from '@gantry/contracts';
import type { ScheduleWithTemplate } from './schedules.repository.js';

function presentScheduleFields(r: ScheduleWithTemplate): Schedule {
  return {
    id: r.id,
    project_id: r.project_id,
    // 0, not null, for a workflow's schedule: Semaphore's clients read a number (docs/semaphore-compatibility.md).
    template_id: r.template_id ?? 0,
    workflow_id: r.workflow_id,
    name: r.name,
    cron_format: r.cron_format,
    repository_id: r.repository_id,
    active: r.active === 1,
    type: r.type === 'drift_check' ? 'drift_check' : '',
    delete_after_run: false,
    tpl_name: r.tpl_name,
    last_commit_hash: r.last_commit_hash,
  };
}

/** A schedule with its answers (`task_params`) when it has any: Semaphore's shape is unchanged for one without. */
export function presentSchedule(r: ScheduleWithTemplate): Schedule {
  const taskParams = scheduleTaskParams(r.task_params);
  return taskParams ? { ...presentScheduleFields(r), task_params: taskParams } : presentScheduleFields(r);
}

/**
 * The stored answers as the API shows them: `{environment}` (JSON object text) and, for a drift
 * check, `refresh_only`; null for none.
 */
export function scheduleTaskParams(
  text: string | null,
): { environment: string; refresh_only?: boolean; inventory_id?: number } | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as { environment?: unknown; refresh_only?: unknown; inventory_id?: unknown };
    if (typeof v.environment !== 'string') return null;
    return {
      environment: v.environment,
      ...(typeof v.refresh_only === 'boolean' ? { refresh_only: v.refresh_only } : {}),
      ...(Number.isInteger(v.inventory_id) ? { inventory_id: v.inventory_id as number } : {}),
    };
  } catch {
    return null;
  }
}
