import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';

export const statsQuerySchema = z.object({
  start: z
    .string()
    .regex(
      /^\d{4}-\d{2}-\d{2}$/,
      coded('Start must be a date (YYYY-MM-DD)', ErrorCodes.dateRequired, { label_key: 'start' }),
    ),
  user_id: z.coerce.number().int().positive().optional(),
});

/** Tasks created on one day (UTC), by final status. */
export const statsEntrySchema = z.object({
  date: z.string(),
  count_by_status: z.object({ success: z.number().int(), error: z.number().int(), stopped: z.number().int() }),
});
export type StatsEntry = z.infer<typeof statsEntrySchema>;

/** Ranges of the Stats tab (spec 9): past week is the default. */
export const STATS_RANGES = [
  { key: 'week', days: 7 },
  { key: 'month', days: 30 },
  { key: 'year', days: 365 },
] as const;
