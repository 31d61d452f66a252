import { z } from 'zod';
import { requiredMessage, requiredName } from './fields.js';

/**
 * Notification routing (issue 27): destinations of a project (or global, admin-only), rules that
 * choose which events go to which destination, and a delivery log. The instance-wide channels and
 * Semaphore's project `alert`/`alert_chat` keep working beside them (the project's alert rule).
 */

/** Where a notification can go. */
export const NOTIFICATION_KINDS = [
  'email',
  'slack',
  'teams',
  'telegram',
  'discord',
  'mattermost',
  'gotify',
  'ntfy',
  'pagerduty',
  'webhook',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** What a rule can route. `approval_needed` covers a plan waiting for confirmation and an approval waiting. */
export const NOTIFICATION_EVENTS = [
  'task_started',
  'task_succeeded',
  'task_failed',
  'task_fixed',
  'task_stopped',
  'approval_needed',
  'long_running',
  'drift',
  'runner_offline',
  'digest',
] as const;
export type NotificationEventName = (typeof NOTIFICATION_EVENTS)[number];

/** The event a "Send test" delivers (never routed by a rule). */
export const NOTIFICATION_TEST_EVENT = 'test';

/** One configuration field of a destination kind. Secret fields are sealed at rest and never answered. */
export interface DestinationField {
  name: string;
  type: 'text' | 'url' | 'number' | 'boolean' | 'emails' | 'multiline';
  required: boolean;
  secret: boolean;
}

const f = (name: string, type: DestinationField['type'], required = false, secret = false): DestinationField => ({
  name,
  type,
  required,
  secret,
});

/**
 * Each kind's fields, as the console renders them and the server checks them. URLs of chat webhooks
 * carry their key, so they are secrets; `target` (where it goes, without a key) is answered instead.
 */
export const DESTINATION_FIELDS: Record<NotificationKind, readonly DestinationField[]> = {
  // Without `host` the server's own SMTP settings (GANTRY_EMAIL_*) are used.
  email: [
    f('to', 'emails', true),
    f('host', 'text'),
    f('port', 'number'),
    f('secure', 'boolean'),
    f('username', 'text'),
    f('password', 'text', false, true),
    f('sender', 'text'),
  ],
  slack: [f('url', 'url', true, true)],
  teams: [f('url', 'url', true, true)],
  discord: [f('url', 'url', true, true)],
  mattermost: [f('url', 'url', true, true), f('channel', 'text'), f('username', 'text')],
  telegram: [f('token', 'text', true, true), f('chat_id', 'text', true), f('api_url', 'url')],
  gotify: [f('url', 'url', true), f('token', 'text', true, true), f('priority', 'number')],
  ntfy: [f('url', 'url'), f('topic', 'text', true), f('token', 'text', false, true), f('priority', 'number')],
  pagerduty: [f('routing_key', 'text', true, true), f('severity', 'text'), f('api_url', 'url')],
  webhook: [
    f('url', 'url', true, true),
    f('secret', 'text', true, true),
    f('payload_template', 'multiline'),
    f('content_type', 'text'),
  ],
};

/** PagerDuty severities (Events API v2). */
export const PAGERDUTY_SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;

/** Limits a destination's configuration is checked against. */
export const NOTIFICATION_LIMITS = {
  nameMax: 100,
  valueMax: 2000,
  /** A webhook's payload template, and what it renders to. */
  templateMax: 16_384,
  renderedMax: 65_536,
  /** The webhook signing secret's shortest length. */
  secretMin: 16,
  branchMax: 255,
  longRunningMinutesMax: 10_080,
  emailsMax: 50,
} as const;

/** The version of the webhook body's shape (`schema`); a change that breaks receivers bumps it. */
export const NOTIFICATION_PAYLOAD_SCHEMA = 'gantry.notification.v1';

/** The header carrying the signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const NOTIFICATION_SIGNATURE_HEADER = 'X-Gantry-Signature';

/** A destination's configuration as sent: strings, numbers, booleans or lists of emails. */
const configValueSchema = z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()]);

export const notificationDestinationInputSchema = z.object({
  name: requiredName('Name', NOTIFICATION_LIMITS.nameMax),
  kind: z.enum(NOTIFICATION_KINDS, requiredMessage('Type')),
  /** Omitted or empty secret fields on update keep what is stored. */
  config: z.record(z.string(), configValueSchema).optional().default({}),
  active: z.boolean().optional(),
});
export type NotificationDestinationInput = z.input<typeof notificationDestinationInputSchema>;

export const notificationDeliverySummarySchema = z.object({
  time: z.string(),
  status: z.string(),
  error: z.string().nullable(),
});

export const notificationDestinationSchema = z.object({
  id: z.number(),
  /** null: a global destination (admins). */
  project_id: z.number().nullable(),
  name: z.string(),
  kind: z.enum(NOTIFICATION_KINDS),
  /** The non-secret fields. */
  config: z.record(z.string(), configValueSchema),
  /** Which secret fields hold a value (never the value). */
  secrets: z.record(z.string(), z.boolean()),
  /** Where it goes, without any key: a host, `chat 123`, the recipients. */
  target: z.string(),
  active: z.boolean(),
  created: z.string(),
  /** The latest delivery attempt, if any. */
  last_delivery: notificationDeliverySummarySchema.nullable(),
});
export type NotificationDestination = z.infer<typeof notificationDestinationSchema>;

export const notificationRuleInputSchema = z.object({
  destination_id: z.number(requiredMessage('Destination')).int().positive(requiredMessage('Destination')),
  /** An empty list on a template or schedule rule silences the destination for it. */
  events: z.array(z.enum(NOTIFICATION_EVENTS)).max(NOTIFICATION_EVENTS.length),
  template_id: z.number().int().positive().nullable().optional(),
  schedule_id: z.number().int().positive().nullable().optional(),
  only_schedules: z.boolean().optional(),
  /** Only tasks of this git branch. */
  branch: z.string().trim().max(NOTIFICATION_LIMITS.branchMax).nullable().optional(),
  /** Not for tasks started by project members whose role is task_runner. */
  exclude_task_runners: z.boolean().optional(),
  /** For `long_running`: minutes a task runs before it is told (default 30). */
  long_running_minutes: z.number().int().min(1).max(NOTIFICATION_LIMITS.longRunningMinutesMax).nullable().optional(),
  /** For `digest`: the UTC hour the daily digest goes out (default 8). */
  digest_hour: z.number().int().min(0).max(23).nullable().optional(),
});
export type NotificationRuleInput = z.input<typeof notificationRuleInputSchema>;

export const notificationRuleSchema = z.object({
  id: z.number(),
  project_id: z.number().nullable(),
  destination_id: z.number(),
  events: z.array(z.enum(NOTIFICATION_EVENTS)),
  template_id: z.number().nullable(),
  schedule_id: z.number().nullable(),
  only_schedules: z.boolean(),
  branch: z.string().nullable(),
  exclude_task_runners: z.boolean(),
  long_running_minutes: z.number().nullable(),
  digest_hour: z.number().nullable(),
  created: z.string(),
});
export type NotificationRule = z.infer<typeof notificationRuleSchema>;

/** `pending` waits for its first attempt or a retry; `sent`; `failed` gave up (past the retry window). */
export const NOTIFICATION_DELIVERY_STATUSES = ['pending', 'sent', 'failed'] as const;

export const notificationDeliverySchema = z.object({
  id: z.number(),
  destination_id: z.number(),
  event: z.string(),
  /** What it is about, in words ("Task #12 of Deploy"). */
  subject: z.string(),
  task_id: z.number().nullable(),
  template_id: z.number().nullable(),
  status: z.enum(NOTIFICATION_DELIVERY_STATUSES),
  attempts: z.number(),
  /** The receiver's HTTP status of the last attempt (null: no HTTP answer, or SMTP). */
  http_status: z.number().nullable(),
  error: z.string().nullable(),
  created: z.string(),
  last_attempt: z.string().nullable(),
  next_attempt: z.string().nullable(),
  delivered: z.string().nullable(),
});
export type NotificationDelivery = z.infer<typeof notificationDeliverySchema>;

/** `POST …/notification-destinations/{id}/test`: what the receiver answered. */
export const notificationTestResultSchema = z.object({
  ok: z.boolean(),
  http_status: z.number().nullable(),
  /** The start of the receiver's answer (secrets masked), or the error. */
  response: z.string(),
  error: z.string().nullable(),
});
export type NotificationTestResult = z.infer<typeof notificationTestResultSchema>;
