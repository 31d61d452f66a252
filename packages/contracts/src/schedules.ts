import { z } from 'zod';
import { coded, codedIssue } from './coded.js';
import { ErrorCodes } from './errors.js';
import { requiredMessage, requiredName, requiredString } from './fields.js';
import { optionalStartId, startTargetIssue } from './start-target.js';
import { SCHEDULE_TYPES, scheduleTypeSchema } from './terraform-plan.js';

/** How often a "run on new commit" schedule looks at its branch (spec 9). */
export const COMMIT_CHECK_INTERVALS = [
  { key: 'every_1m', cron: '* * * * *' },
  { key: 'every_5m', cron: '*/5 * * * *' },
  { key: 'every_10m', cron: '*/10 * * * *' },
  { key: 'hourly', cron: '0 * * * *' },
  { key: 'daily', cron: '0 0 * * *' },
] as const;

export const DEFAULT_CRON = '* * * * *';

export const scheduleSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  /** 0 for a workflow's schedule (Semaphore's clients read a number here; see docs/semaphore-compatibility.md). */
  template_id: z.number().int(),
  /** Gantry's own: the workflow it starts, null for a template's schedule. */
  workflow_id: z.number().int().nullable(),
  name: z.string(),
  cron_format: z.string(),
  repository_id: z.number().int().nullable(),
  active: z.boolean(),
  /** Semaphore's schedule kind: '' is a cron schedule that runs the template; Gantry's 'drift_check' plans only and records drift. */
  type: scheduleTypeSchema,
  /** Semaphore's flag for one-off schedules: always false here. */
  delete_after_run: z.literal(false),
  /** The template's name, or the workflow's for a workflow's schedule. */
  tpl_name: z.string(),
  last_commit_hash: z.string().nullable(),
  /** Answers to the template's parameters for every run (Semaphore's schedule `task_params`); null: none. */
  task_params: z
    .object({
      environment: z.string(),
      refresh_only: z.boolean().optional(),
      inventory_id: z.number().int().optional(),
    })
    .nullable()
    .optional(),
});
export type Schedule = z.infer<typeof scheduleSchema>;

/** A schedule's body; without a name (Semaphore's is optional), the cron expression names it. */
export const scheduleInputSchema = z
  .object({
    // Semaphore's cron type is "" (what answers carry). Its one-off `run_at` is refused rather than
    // saved as the recurring schedule its cron field would make; checked first, so such a body
    // hears about its type, not about its empty cron.
    type: z
      .enum(
        SCHEDULE_TYPES,
        coded(
          'Schedule type must be "" (cron) or "drift_check": one-off run_at schedules are not supported',
          ErrorCodes.mustBeOneOf,
          { name: 'type', values: '"", drift_check' },
        ),
      )
      .default(''),
    name: z.preprocess(
      (v) => (v == null || (typeof v === 'string' && !v.trim()) ? undefined : v),
      requiredName('Name').optional(),
    ),
    // Either a template (Semaphore's clients send only this) or a workflow (Gantry's own): 0, '' and null are none.
    template_id: optionalStartId('Template'),
    workflow_id: optionalStartId('Workflow'),
    cron_format: requiredString('Cron', 100),
    repository_id: z.preprocess((v) => (v === '' || v === 0 ? null : v), z.coerce.number().int().positive().nullish()),
    active: z.boolean().default(true),
    /** `environment`: JSON object text of answers to the template's parameters (typed as the template says). */
    /**
     * `refresh_only`: a drift check's `-refresh-only` variant (ignores configuration changes);
     * `inventory_id`: the workspace a drift check plans (one of the template's; none: its default).
     */
    task_params: z
      .object({
        environment: z.string().optional(),
        refresh_only: z.boolean().optional(),
        inventory_id: z.preprocess(
          (v) => (v === 0 || v === '' ? undefined : v),
          z.coerce.number().int().positive().nullish(),
        ),
      })
      .nullish(),
  })
  .superRefine((s, ctx) => {
    const problem = startTargetIssue(s);
    if (problem) ctx.addIssue({ code: 'custom', ...problem });
    else if (s.workflow_id && s.repository_id) {
      ctx.addIssue({
        code: 'custom',
        path: ['repository_id'],
        ...codedIssue(
          'Run on new commit starts a template only, not a workflow',
          ErrorCodes.commitScheduleTemplateOnly,
        ),
      });
    } else if (s.type === 'drift_check' && (s.workflow_id || s.repository_id)) {
      ctx.addIssue({
        code: 'custom',
        path: ['type'],
        ...codedIssue(
          'A drift check runs a Terraform/OpenTofu template on its cron, not a workflow or a new commit',
          ErrorCodes.driftNotTerraform,
        ),
      });
    }
  })
  .transform((s) => ({
    ...s,
    template_id: s.template_id ?? null,
    workflow_id: s.workflow_id ?? null,
    name: s.name ?? s.cron_format,
  }));
export type ScheduleInput = z.input<typeof scheduleInputSchema>;

export const cronValidateSchema = z.object({ cron_format: z.string() });

/** How many next due times `POST /project/{id}/schedules/next_runs` returns at most; the console asks for 3. */
export const NEXT_RUNS_MAX = 10;

const countRange = coded(`Count must be a number from 1 to ${NEXT_RUNS_MAX}`, ErrorCodes.outOfRange, {
  label_key: 'count',
  min: 1,
  max: NEXT_RUNS_MAX,
});

/** Gantry's own `POST /project/{id}/schedules/next_runs` body: an expression and how many due times to list. */
export const scheduleNextRunsSchema = z.object({
  cron_format: z
    .string(requiredMessage('Cron'))
    .max(100, coded('Cron must be at most 100 characters', ErrorCodes.tooLong, { label_key: 'cron', max: 100 })),
  count: z.coerce.number(countRange).int(countRange).min(1, countRange).max(NEXT_RUNS_MAX, countRange).default(3),
});
export type ScheduleNextRunsInput = z.input<typeof scheduleNextRunsSchema>;

/** The next due times (ISO 8601, UTC) as the server's scheduler computes them, earliest first. */
export const scheduleNextRunsResultSchema = z.object({ runs: z.array(z.string()) });
export type ScheduleNextRuns = z.infer<typeof scheduleNextRunsResultSchema>;

/** The cron builder's choices (spec 9): timing kinds; minutes in steps of 5; all in UTC. */
export type CronTiming = 'yearly' | 'monthly' | 'weekly' | 'daily' | 'hourly';
export interface CronBuild {
  timing: CronTiming;
  minute: number;
  hour: number;
  day: number;
  month: number;
  weekday: number;
}

/** The builder's expression: minute hour day-of-month month day-of-week. */
export function buildCron(b: CronBuild): string {
  switch (b.timing) {
    case 'hourly':
      return `${b.minute} * * * *`;
    case 'daily':
      return `${b.minute} ${b.hour} * * *`;
    case 'weekly':
      return `${b.minute} ${b.hour} * * ${b.weekday}`;
    case 'monthly':
      return `${b.minute} ${b.hour} ${b.day} * *`;
    case 'yearly':
      return `${b.minute} ${b.hour} ${b.day} ${b.month} *`;
  }
}

const CRON_NUMBER = /^(0|[1-9]\d?)$/;
const cronNumber = (field: string | undefined, min: number, max: number): number | null =>
  field !== undefined && CRON_NUMBER.test(field) && +field >= min && +field <= max ? +field : null;

/**
 * The builder's choices for an expression it shows exactly, or null when it cannot (steps, ranges,
 * lists, a minute off the 5-minute grid...): then the builder must say so, never show something else.
 * Choices the expression does not fix (the weekday of a daily one) come from `base`.
 * Round trip: `buildCron(parseCron(e))` is `e` with single spaces.
 */
export function parseCron(expr: string, base: CronBuild): CronBuild | null {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) return null;
  const [mi, h, d, mo, wd] = fields;
  const minute = cronNumber(mi, 0, 59);
  if (minute === null || minute % 5 !== 0) return null;
  let build: CronBuild | null = null;
  if (h === '*') {
    if (d === '*' && mo === '*' && wd === '*') build = { ...base, timing: 'hourly', minute };
  } else {
    const hour = cronNumber(h, 0, 23);
    if (hour === null) return null;
    const day = cronNumber(d, 1, 31);
    const month = cronNumber(mo, 1, 12);
    const weekday = cronNumber(wd, 0, 6);
    if (d === '*' && mo === '*' && wd === '*') build = { ...base, timing: 'daily', minute, hour };
    else if (d === '*' && mo === '*' && weekday !== null) build = { ...base, timing: 'weekly', minute, hour, weekday };
    else if (day !== null && mo === '*' && wd === '*') build = { ...base, timing: 'monthly', minute, hour, day };
    else if (day !== null && month !== null && wd === '*')
      build = { ...base, timing: 'yearly', minute, hour, day, month };
  }
  return build && buildCron(build) === fields.join(' ') ? build : null;
}
