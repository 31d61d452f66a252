import type { NotificationPayload } from '../notification-payload.js';

/** Events that tell of something broken: chat services that rank messages raise these. */
export function isFailureEvent(event: NotificationPayload['event']): boolean {
  return event === 'task_failed' || event === 'runner_offline';
}

/** The link to follow: the task's page, else the message's. Empty when there is none. */
export function clickUrl(p: NotificationPayload): string {
  return p.task?.url || p.message.url || '';
}
