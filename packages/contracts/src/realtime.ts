import { z } from 'zod';

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
  z.object({
    type: z.literal('log'),
    project_id: z.number().int(),
    task_id: z.number().int(),
    output: z.string(),
    time: z.string(),
    /** The line's number in the task's log, so a client can merge stored and live lines. */
    seq: z.number().int().optional(),
  }),
]);
export type WsMessage = z.infer<typeof wsMessageSchema>;
