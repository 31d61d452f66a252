import { z } from 'zod';
import { coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import { membershipOriginSchema } from './identity.js';
import { requiredMessage } from './fields.js';
import { projectRoleSchema } from './permissions.js';

export const projectUserSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  username: z.string(),
  role: projectRoleSchema,
  /** Gantry's addition: the group mapping that gave this membership; null when made by hand. */
  mapped: membershipOriginSchema.nullable().optional(),
});
export type ProjectUser = z.infer<typeof projectUserSchema>;

export const teamMemberCreateSchema = z.object({
  user_id: z.coerce.number(requiredMessage('User')).int().positive(requiredMessage('User')),
  role: projectRoleSchema,
});
export const teamMemberUpdateSchema = z.object({ role: projectRoleSchema });

/** What the team list sorts by (Semaphore's clients send `sort` and `order` on every call). */
export const TEAM_SORTS = ['name', 'username', 'email', 'role'] as const;
export type TeamSort = (typeof TEAM_SORTS)[number];

export const teamListQuerySchema = z.object({
  sort: z
    .enum(
      TEAM_SORTS,
      coded('Sort must be name, username, email or role', ErrorCodes.mustBeOneOf, {
        name: 'sort',
        values: TEAM_SORTS.join(', '),
      }),
    )
    .default('name'),
  order: z
    .enum(
      ['asc', 'desc'],
      coded('Order must be asc or desc', ErrorCodes.mustBeOneOf, { name: 'order', values: 'asc, desc' }),
    )
    .default('asc'),
});
