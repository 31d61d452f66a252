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

export const teamListQuerySchema = z.object({
  sort: z.enum(['name', 'username', 'role']).default('name'),
  order: z.enum(['asc', 'desc']).default('asc'),
});
