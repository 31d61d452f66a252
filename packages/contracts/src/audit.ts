import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';

/** How a change reached the server: a console session, an API token, a runner, a webhook, the CLI, or Gantry itself. */
export const AUDIT_AUTH_KINDS = ['session', 'token', 'runner', 'webhook', 'cli', 'system'] as const;
export type AuditAuthKind = (typeof AUDIT_AUTH_KINDS)[number];

/** What an entry records (the list grows; readers must accept others). */
export const AUDIT_ACTIONS = [
  'create',
  'update',
  'delete',
  'sign_in',
  'sign_in_failed',
  'totp_failed',
  'lockout',
  'token_create',
  'token_revoke',
  'task_start',
  'task_stop',
  'task_confirm',
  'task_reject',
  'prune',
  // An export destination missed entries (pruned before delivery, or past its pending limit).
  'export_skipped',
  'sign_out',
  'restore',
  'lock',
  'unlock',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The value a secret field shows in `before`/`after`: that it changed, never what it is. */
export const AUDIT_SECRET_CHANGED = 'changed';

/** The most entries one `GET /api/audit` answers. */
export const AUDIT_PAGE_MAX = 500;
/** Entries per page when `limit` is not given. */
export const AUDIT_PAGE_DEFAULT = 50;

/** Changed fields only: for a create `before` is null, for a delete `after` is. */
const fieldsSchema = z.record(z.string(), z.unknown()).nullable();

/** One entry of `GET /api/audit`. */
export const auditEntrySchema = z.object({
  id: z.number(),
  time: z.string(),
  /** The actor's login (kept after the user is deleted); null for Gantry itself or an unknown caller. */
  actor: z.string().nullable(),
  actor_id: z.number().nullable(),
  action: z.string(),
  object_type: z.string(),
  object_id: z.union([z.number(), z.string()]).nullable(),
  project_id: z.number().nullable(),
  before: fieldsSchema,
  after: fieldsSchema,
  auth_kind: z.string(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  request_id: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

const isoDate = (label: 'from' | 'to') =>
  z
    .string()
    .refine(
      (v) => !Number.isNaN(Date.parse(v)),
      coded(`${label === 'from' ? 'From' : 'To'} must be a date or time (ISO 8601)`, ErrorCodes.dateRequired, {
        label_key: label,
      }),
    )
    .transform((v) => new Date(v).toISOString());
const idFilter = z.coerce
  .number(coded('Must be an integer', ErrorCodes.mustBeInteger))
  .int(coded('Must be an integer', ErrorCodes.mustBeInteger))
  .positive(coded('Invalid id', ErrorCodes.invalidId));
const limitRange = coded(`Limit must be a number from 1 to ${AUDIT_PAGE_MAX}`, ErrorCodes.outOfRange, {
  label_key: 'limit',
  min: 1,
  max: AUDIT_PAGE_MAX,
});

/**
 * `GET /api/audit` filters: time from (inclusive) and to (exclusive), the actor's login, project,
 * object type and action; newest first, `limit` entries after skipping `offset`.
 */
export const auditQuerySchema = z.object({
  from: isoDate('from').optional(),
  to: isoDate('to').optional(),
  actor: z.string().trim().min(1).max(255).optional(),
  project_id: idFilter.optional(),
  object_type: z.string().trim().min(1).max(32).optional(),
  action: z.string().trim().min(1).max(32).optional(),
  limit: z.coerce
    .number(limitRange)
    .int(limitRange)
    .min(1, limitRange)
    .max(AUDIT_PAGE_MAX, limitRange)
    .default(AUDIT_PAGE_DEFAULT),
  offset: z.coerce
    .number(coded('Must be an integer', ErrorCodes.mustBeInteger))
    .int(coded('Must be an integer', ErrorCodes.mustBeInteger))
    .min(0, coded('Must be 0 or greater', ErrorCodes.mustBeNonNegative))
    .default(0),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;
export type AuditQueryInput = z.input<typeof auditQuerySchema>;
