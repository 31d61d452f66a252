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
    type: '',
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

/** The stored answers as the API shows them: `{environment}` (JSON object text), or null for none. */
export function scheduleTaskParams(text: string | null): { environment: string } | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as { environment?: unknown };
    return typeof v.environment === 'string' ? { environment: v.environment } : null;
  } catch {
    return null;
  }
}
