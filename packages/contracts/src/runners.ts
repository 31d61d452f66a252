import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import { nonNegativeIntegerOrZero, requiredString, singleLine, URL_MAX } from './fields.js';
import { TASK_OUTPUT_MAX_BYTES } from './workflow-runs.js';
import { planSummarySchema } from './terraform-plan.js';

/** Runner status thresholds by last contact (spec): under 5 minutes success, under 1 hour warning. */
export const RUNNER_ACTIVE_MS = 5 * 60_000;
export const RUNNER_IDLE_MS = 60 * 60_000;
/** How often a runner polls the server for work. */
export const RUNNER_POLL_MS = 1000;

/** A runner as the API lists it: never its token, token hash or private key. */
export const runnerSchema = z.object({
  id: z.number().int(),
  /** Null for a global runner (any project). */
  project_id: z.number().int().nullable(),
  name: z.string(),
  tag: z.string(),
  webhook: z.string(),
  /** 0 = unlimited. */
  max_parallel_tasks: z.number().int(),
  active: z.boolean(),
  /** Last contact (poll), or null when it never called. */
  touched: z.string().nullable(),
  cleaning_requested: z.boolean(),
  created: z.string(),
});
export type Runner = z.infer<typeof runnerSchema>;

/** The creation answer: the only time the token and the private key exist outside the runner. */
export const runnerCreatedSchema = runnerSchema.extend({ token: z.string(), private_key: z.string() });
export type RunnerCreated = z.infer<typeof runnerCreatedSchema>;

const tagSchema = singleLine('Tag', 100).default('');

/** A runner's editable fields. Project runners must have a tag (checked by the server). */
export const runnerInputSchema = z.object({
  name: requiredString('Name', 100),
  tag: tagSchema,
  webhook: singleLine('Webhook', URL_MAX)
    .refine(
      (v) => v === '' || /^https?:\/\/\S+$/.test(v),
      coded('Webhook must be an http(s) URL', ErrorCodes.httpUrlRequired, { label_key: 'webhook' }),
    )
    .default(''),
  max_parallel_tasks: nonNegativeIntegerOrZero().default(0),
  active: z.boolean().default(true),
});
export type RunnerInput = z.input<typeof runnerInputSchema>;

export const runnerActiveSchema = z.object({
  active: z.boolean(coded('Active must be true or false', ErrorCodes.mustBeTrueOrFalse, { label_key: 'active' })),
});

// ---- Runner protocol (runner <-> server, Authorization: Bearer <runner token>) ----

/** Hybrid encryption to a runner's public key: RSA-OAEP-SHA256 wraps a fresh AES-256-GCM key. */
export const sealedEnvelopeSchema = z.object({
  alg: z.literal('RSA-OAEP-256+A256GCM'),
  key: z.string(),
  iv: z.string(),
  tag: z.string(),
  data: z.string(),
});
export type SealedEnvelope = z.infer<typeof sealedEnvelopeSchema>;

/** A job: ids in clear, the app to run, and the whole run context sealed to the runner. */
export const runnerJobSchema = z.object({
  task_id: z.number().int(),
  project_id: z.number().int(),
  template_id: z.number().int(),
  app: z.object({ id: z.string(), title: z.string(), path: z.string(), args: z.array(z.string()) }),
  sealed: sealedEnvelopeSchema,
});
export type RunnerJob = z.infer<typeof runnerJobSchema>;

export const RUNNER_CONTROL_ACTIONS = ['stop', 'kill', 'confirm', 'reject'] as const;
export const runnerControlSchema = z.object({ task_id: z.number().int(), action: z.enum(RUNNER_CONTROL_ACTIONS) });
export type RunnerControl = z.infer<typeof runnerControlSchema>;

export const runnerPollRequestSchema = z.object({
  /** Tasks the runner is executing now (so it hears about stops, confirmations, rejections). */
  running: z.array(z.number().int()).max(1000).default([]),
});

export const runnerPollResponseSchema = z.object({
  jobs: z.array(runnerJobSchema),
  control: z.array(runnerControlSchema),
  clear_cache: z.boolean(),
});
export type RunnerPollResponse = z.infer<typeof runnerPollResponseSchema>;

export const runnerLogSchema = z.object({
  lines: z
    .array(
      z.object({
        seq: z.number().int().positive().optional(),
        time: z.string().max(64),
        output: z.string().max(1024 * 64),
      }),
    )
    .max(5000),
});
export type RunnerLogBody = z.infer<typeof runnerLogSchema>;

export const RUNNER_REPORTED_STATUSES = [
  'running',
  'waiting_confirmation',
  'success',
  'error',
  'stopped',
  'rejected',
] as const;
export const runnerStatusSchema = z.object({
  status: z.enum(RUNNER_REPORTED_STATUSES),
  commit_hash: z
    .string()
    .regex(/^[0-9a-f]{4,64}$/i)
    .optional(),
  commit_message: z.string().max(200).optional(),
  /** With a final status: the output object the task left (GANTRY_OUTPUT), as JSON text; checked again by the server. */
  output: z.string().max(TASK_OUTPUT_MAX_BYTES).optional(),
});
export type RunnerStatusBody = z.infer<typeof runnerStatusSchema>;

/** A runner's Terraform/OpenTofu report on its task: a plan's summary (with the policy verdict), or a drift check's finding. */
export const runnerTerraformSchema = z.object({
  plan_summary: planSummarySchema.optional(),
  drift: z
    .object({ drifted: z.boolean(), summary: planSummarySchema.nullable(), refresh_only: z.boolean() })
    .optional(),
});
export type RunnerTerraformBody = z.infer<typeof runnerTerraformSchema>;
