import type { NotificationMessage } from '../notification-message.js';
import { postJson, type NotificationChannel } from './channel.js';

/** The JSON a generic webhook receives; a stable shape for scripts and chat bridges. */
export interface WebhookPayload {
  event: NotificationMessage['event'];
  project_id: number;
  project_name: string;
  template_id: number;
  template_name: string;
  task_id: number;
  status: string;
  author: string | null;
  url: string;
  message: string;
  /** Only for `approval_requested`. */
  approval_id?: number;
}

export function webhookPayload(m: NotificationMessage): WebhookPayload {
  return {
    event: m.event,
    project_id: m.projectId,
    project_name: m.projectName,
    template_id: m.templateId,
    template_name: m.templateName,
    task_id: m.taskId,
    status: m.status,
    author: m.author,
    url: m.url,
    message: m.text,
    ...(m.approvalId !== undefined ? { approval_id: m.approvalId } : {}),
  };
}

/** Generic JSON webhook. */
export class WebhookChannel implements NotificationChannel {
  readonly name = 'webhook';

  constructor(private readonly url: string) {}

  async send(message: NotificationMessage): Promise<boolean> {
    await postJson(this.url, webhookPayload(message));
    return true;
  }
}
