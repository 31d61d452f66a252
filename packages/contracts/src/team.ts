import { z } from 'zod';
import { projectRoleSchema } from './permissions.js';

export const projectUserSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  username: z.string(),
  role: projectRoleSchema,
});
export type ProjectUser = z.infer<typeof projectUserSchema>;

export const teamMemberCreateSchema = z.object({
  user_id: z.coerce.number({ error: 'User is required' }).int().positive({ error: 'User is required' }),
  role: projectRoleSchema,
});
export const teamMemberUpdateSchema = z.object({ role: projectRoleSchema });

/** What the team list sorts by (Semaphore's clients send `sort` and `order` on every call). */
export const TEAM_SORTS = ['name', 'username', 'email', 'role'] as const;
export type TeamSort = (typeof TEAM_SORTS)[number];

export const teamListQuerySchema = z.object({
  sort: z.enum(TEAM_SORTS, { error: 'Sort must be name, username, email or role' }).default('name'),
  order: z.enum(['asc', 'desc'], { error: 'Order must be asc or desc' }).default('asc'),
});
