import { z } from 'zod';
import { requiredName, requiredString } from './fields.js';

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
  template_id: z.number().int(),
  name: z.string(),
  cron_format: z.string(),
  repository_id: z.number().int().nullable(),
  active: z.boolean(),
  /** Semaphore's schedule kind: '' is a cron schedule, the only kind here. */
  type: z.literal(''),
  /** Semaphore's flag for one-off schedules: always false here. */
  delete_after_run: z.literal(false),
  tpl_name: z.string(),
  last_commit_hash: z.string().nullable(),
});
export type Schedule = z.infer<typeof scheduleSchema>;

/** A schedule's body; without a name (Semaphore's is optional), the cron expression names it. */
export const scheduleInputSchema = z
  .object({
    name: z.preprocess(
      (v) => (v == null || (typeof v === 'string' && !v.trim()) ? undefined : v),
      requiredName('Name').optional(),
    ),
    template_id: z.coerce.number({ error: 'Template is required' }).int().positive({ error: 'Template is required' }),
    cron_format: requiredString('Cron', 100),
    repository_id: z.preprocess((v) => (v === '' || v === 0 ? null : v), z.coerce.number().int().positive().nullish()),
    active: z.boolean().default(true),
  })
  .transform((s) => ({ ...s, name: s.name ?? s.cron_format }));
export type ScheduleInput = z.input<typeof scheduleInputSchema>;

export const cronValidateSchema = z.object({ cron_format: z.string() });

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
