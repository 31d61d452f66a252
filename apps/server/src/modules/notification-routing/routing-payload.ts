import type { NotificationEventName, PlanSummary } from '@gantry/contracts';
import { buildMessage, type NotificationMessage, type PlanCounts } from '../notifications/notification-message.js';
import type { NotificationPayload } from './notification-payload.js';
import type { RoutedTask } from './routing.repository.js';

/** The parts of a payload an event fills; the rest is null. */
export type PayloadParts = Partial<Omit<NotificationPayload, 'schema' | 'id' | 'event' | 'time' | 'message'>>;

/** The payload of one event for one destination (the same facts for every destination). */
export function payloadOf(
  id: string,
  event: NotificationEventName,
  time: string,
  message: NotificationPayload['message'],
  parts: PayloadParts,
): NotificationPayload {
  return {
    schema: 'gantry.notification.v1',
    id,
    event,
    time,
    project: parts.project ?? null,
    template: parts.template ?? null,
    task: parts.task ?? null,
    plan_summary: parts.plan_summary ?? null,
    drift: parts.drift ?? null,
    runner: parts.runner ?? null,
    digest: parts.digest ?? null,
    running_minutes: parts.running_minutes ?? null,
    approval: parts.approval ?? null,
    message,
  };
}

/** Who started a task, in words. */
export function authorOf(t: RoutedTask): string | null {
  if (t.user_name) return t.user_name;
  if (t.schedule_id !== null) return 'a schedule';
  if (t.integration_id !== null) return 'an integration';
  return null;
}

/** The link to a task in the console. */
export function taskUrl(webHost: string, t: Pick<RoutedTask, 'project_id' | 'template_id' | 'id'>): string {
  return `${webHost}/project/${t.project_id}/templates/${t.template_id}?t=${t.id}`;
}

/** The project, template and task parts of a task's payload. */
export function taskParts(webHost: string, t: RoutedTask, plan: PlanSummary | null): PayloadParts {
  return {
    project: { id: t.project_id, name: t.project_name },
    template: { id: t.template_id, name: t.template_name },
    task: {
      id: t.id,
      status: t.status,
      created: t.created,
      start: t.start,
      end: t.end,
      author: authorOf(t),
      version: t.version,
      branch: t.branch,
      commit: t.commit_hash,
      schedule_id: t.schedule_id,
      url: taskUrl(webHost, t),
    },
    plan_summary: plan,
  };
}

/** Which words a task event gets: the instance channels' wording, retitled where they have none. */
export function taskMessage(
  webHost: string,
  event: NotificationEventName,
  t: RoutedTask,
  extra: {
    plan?: PlanCounts | null;
    drift?: { workspace: string | null; changes: PlanCounts | null } | null;
    minutes?: number;
  },
): NotificationPayload['message'] {
  const status = event === 'approval_needed' ? 'waiting_confirmation' : t.status;
  const m = buildMessage({
    projectId: t.project_id,
    projectName: t.project_name,
    templateId: t.template_id,
    templateName: t.template_name,
    taskId: t.id,
    status,
    author: authorOf(t),
    webHost,
    plan: extra.plan ?? null,
    drift: event === 'drift' ? (extra.drift ?? { workspace: null, changes: null }) : null,
  });
  const head = `[${t.project_name}] Task #${t.id} of ${t.template_name}`;
  if (event === 'task_fixed') return retitle(m, `${head} is fixed: it succeeded after a failure`, '2EB886');
  if (event === 'task_started') return retitle(m, `${head} started`, '439FE0');
  if (event === 'long_running')
    return retitle(m, `${head} has been running for ${extra.minutes ?? 0} minutes`, 'F0AD4E');
  return { title: m.title, text: m.text, url: m.url, color: m.color };
}

/** The shared words of an approval waiting (built by the approvals module). */
export function approvalMessageOf(m: NotificationMessage): NotificationPayload['message'] {
  return { title: m.title, text: m.text, url: m.url, color: m.color };
}

function retitle(m: NotificationMessage, title: string, color: string): NotificationPayload['message'] {
  const lines = m.text.split('\n');
  lines[0] = title;
  return { title, text: lines.join('\n'), url: m.url, color };
}
