import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import { taskOutputSchema } from './tasks.js';

/** Lines in one page of `GET …/tasks/{id}/output` when `limit` is not given. */
export const TASK_OUTPUT_PAGE_SIZE = 1000;
/** The largest `limit` a page may ask for. */
export const TASK_OUTPUT_MAX_PAGE_SIZE = 10_000;
/** A search (`q`) is at most this long. */
export const TASK_OUTPUT_QUERY_MAX = 200;
/** Live lines of one task go out at most once per this many ms per socket (one `logs` message). */
export const LOG_BATCH_MS = 50;
/** …and are stored in batches of at most this many lines (or every LOG_BATCH_MS, whichever comes first). */
export const LOG_BATCH_LINES = 1000;
/** The query string that puts a socket in subscribe mode from its first message (see `wsClientMessageSchema`). */
export const WS_SUBSCRIBE_QUERY = 'logs=subscribe';

const wholeNumbers = coded('from_seq, to_seq and limit must be whole numbers', ErrorCodes.mustBeInteger);
const seq = z.coerce.number(wholeNumbers).int(wholeNumbers);
const limitRange = coded(`limit must be between 1 and ${TASK_OUTPUT_MAX_PAGE_SIZE}`, ErrorCodes.outOfRange, {
  label_key: 'limit',
  min: 1,
  max: TASK_OUTPUT_MAX_PAGE_SIZE,
});
const flag = z
  .enum(['1', '0', 'true', 'false', ''], coded('Flags take 1, 0, true or false', ErrorCodes.flagInvalid))
  .transform((v) => v === '1' || v === 'true')
  .optional();

/**
 * `GET /api/project/{id}/tasks/{task}/output` query. Without any of these the answer is the whole
 * log as one array (Semaphore's shape, streamed); with any of them it is one page.
 * - `from_seq`/`to_seq`: lines with from_seq ≤ seq ≤ to_seq (both optional);
 * - `tail`: the last `limit` lines of that range instead of the first;
 * - `q`: only lines containing this text (case-insensitive);
 * - `limit`: 1…TASK_OUTPUT_MAX_PAGE_SIZE, default TASK_OUTPUT_PAGE_SIZE.
 */
export const taskOutputQuerySchema = z.object({
  from_seq: seq.min(0, coded('from_seq must be 0 or more', ErrorCodes.mustBeNonNegative)).optional(),
  to_seq: seq.min(0, coded('to_seq must be 0 or more', ErrorCodes.mustBeNonNegative)).optional(),
  limit: seq
    .min(1, limitRange)
    .max(TASK_OUTPUT_MAX_PAGE_SIZE, limitRange)
    .optional(),
  tail: flag,
  q: z
    .string()
    .max(
      TASK_OUTPUT_QUERY_MAX,
      coded(`The search text is at most ${TASK_OUTPUT_QUERY_MAX} characters`, ErrorCodes.tooLong, { label_key: 'search_text', max: TASK_OUTPUT_QUERY_MAX }),
    )
    .optional(),
});
export type TaskOutputQuery = z.output<typeof taskOutputQuerySchema>;

/** One page of a task's log: the lines asked for, in order, and the highest sequence number stored. */
export const taskOutputPageSchema = z.object({
  lines: z.array(taskOutputSchema),
  /** The task's last stored line (null: no line yet); a console sizes its view with it. */
  last_seq: z.number().int().nullable(),
});
export type TaskOutputPage = z.infer<typeof taskOutputPageSchema>;

/** `GET …/raw_output` query: `ansi=1` keeps colour codes, `download=1` answers as an attachment. */
export const taskRawOutputQuerySchema = z.object({ ansi: flag, download: flag });
