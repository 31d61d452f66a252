import { z } from 'zod';

export const eventSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int().nullable(),
  user_id: z.number().int().nullable(),
  username: z.string().nullable(),
  object_type: z.string(),
  object_id: z.number().int().nullable(),
  description: z.string(),
  created: z.string(),
});
export type GantryEvent = z.infer<typeof eventSchema>;
