import { z } from 'zod';

/** One line in a `logs` message; its number is the message's `from_seq` plus its index. */
export const wsLogLineSchema = z.object({ time: z.string(), output: z.string() });

/** Messages the server sends over /api/ws; a discriminated union so both sides stay typed. */
export const wsMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('update'),
    project_id: z.number().int(),
    task_id: z.number().int(),
    status: z.string(),
    // As Semaphore's frames: the console updates a history row without reloading it.
    template_id: z.number().int().nullable(),
    start: z.string().nullable(),
    end: z.string().nullable(),
    version: z.string().nullable(),
  }),
  /**
   * One line, as Semaphore's console expects; sent to sockets that never subscribed, batched in
   * time like `logs` (a burst of these at most every LOG_BATCH_MS per task).
   */
  z.object({
    type: z.literal('log'),
    project_id: z.number().int(),
    task_id: z.number().int(),
    output: z.string(),
    time: z.string(),
    /** The line's number in the task's log, so a client can merge stored and live lines. */
    seq: z.number().int().optional(),
  }),
  /** Consecutive lines of one task (seq from_seq, from_seq + 1, …), to sockets subscribed to it. */
  z.object({
    type: z.literal('logs'),
    project_id: z.number().int(),
    task_id: z.number().int(),
    from_seq: z.number().int(),
    lines: z.array(wsLogLineSchema),
  }),
  /**
   * The socket fell behind and these lines of the task were not sent to it (from_seq…to_seq,
   * inclusive); they are stored, so the client reads them over HTTP.
   */
  z.object({
    type: z.literal('gap'),
    project_id: z.number().int(),
    task_id: z.number().int(),
    from_seq: z.number().int(),
    to_seq: z.number().int(),
  }),
]);
export type WsMessage = z.infer<typeof wsMessageSchema>;
export type WsLogLine = z.infer<typeof wsLogLineSchema>;

/**
 * Messages a client may send: a socket that sends one of these (or connects with
 * `?logs=subscribe`) receives log lines only for the tasks it subscribed to, as `logs` messages;
 * other sockets keep receiving per-line `log` messages for every task they may see.
 */
export const wsClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), task_id: z.number().int().positive() }),
  z.object({ type: z.literal('unsubscribe'), task_id: z.number().int().positive() }),
]);
export type WsClientMessage = z.infer<typeof wsClientMessageSchema>;
