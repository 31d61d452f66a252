import type { NotificationEventName, NotificationKind, PlanSummary } from '@gantry/contracts';

/**
 * The facts of one event, stored with each delivery and sent to webhooks as they are (schema
 * `gantry.notification.v1`); chat, email and PagerDuty senders word them. Never a secret in it.
 */
export interface NotificationPayload {
  schema: 'gantry.notification.v1';
  /** The delivery's id as the receiver sees it (also `X-Gantry-Delivery`): the same on every retry. */
  id: string;
  event: NotificationEventName | 'test';
  /** When the event happened (ISO). */
  time: string;
  project: { id: number; name: string } | null;
  template: { id: number; name: string } | null;
  task: {
    id: number;
    status: string;
    created: string;
    start: string | null;
    end: string | null;
    /** A user's name, or 'a schedule' / 'an integration'; null when unknown. */
    author: string | null;
    version: string | null;
    branch: string | null;
    commit: string | null;
    schedule_id: number | null;
    /** Link to the task in the console. */
    url: string;
  } | null;
  /** A Terraform task's plan counts and resources, when it made one. */
  plan_summary: PlanSummary | null;
  /** A drift check's finding. */
  drift: {
    workspace: string | null;
    changes: Pick<PlanSummary, 'create' | 'update' | 'replace' | 'destroy'> | null;
  } | null;
  /** A runner that stopped reporting. */
  runner: { id: number; name: string; last_seen: string | null } | null;
  /** The daily digest: the last 24 hours of the project (or, global, of every project). */
  digest: {
    since: string;
    until: string;
    counts: Record<string, number>;
    /** Templates with failed tasks, most failures first (at most 10). */
    failing: Array<{ template_id: number; template_name: string; project_id: number; failed: number }>;
  } | null;
  /** For `long_running`: minutes the task has run. */
  running_minutes: number | null;
  /** For `approval_needed` from an approval (not a plan): the approval waiting. */
  approval: { id: number; title: string; url: string } | null;
  /** The words: `title` is one line (subject, card title), `text` plain text with the link. */
  message: { title: string; text: string; url: string; color: string };
}

/** A destination with its secrets opened, as a sender needs it; never leaves the server. */
export interface OpenDestination {
  id: number;
  projectId: number | null;
  name: string;
  kind: NotificationKind;
  /** Non-secret fields. */
  config: Record<string, unknown>;
  /** Secret fields, opened. */
  secrets: Record<string, string>;
}

/** What a receiver answered to one delivery attempt. */
export interface SendResult {
  /** HTTP status, or null (SMTP). */
  httpStatus: number | null;
  /** The start of the answer's body (masked by the caller), for the test button. */
  response: string;
}

/** A failed attempt: the receiver's status when there was one; the message names no secret. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number | null = null,
    /** False when retrying cannot help (a refused private address, a bad configuration). */
    readonly retryable = true,
  ) {
    super(message);
  }
}

/** One row to enqueue: the router builds it, the deliveries repository inserts it once. */
export interface DeliveryToEnqueue {
  destinationId: number;
  projectId: number | null;
  /** `<event>:<subject key>:d<destination id>`; unique. */
  dedupKey: string;
  event: NotificationEventName;
  /** In words, for the log ("Task #12 of Deploy"). */
  subject: string;
  taskId: number | null;
  templateId: number | null;
  payload: NotificationPayload;
}
