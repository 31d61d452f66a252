import { z } from 'zod';
import { codedIssue, coded } from './coded.js';
import { ErrorCodes } from './errors.js';
import { requiredIssue, requiredString } from './fields.js';
import { projectRoleSchema } from './permissions.js';

/** The source of directory groups for LDAP sign-in; OpenID Connect sources are provider ids. */
export const LDAP_SOURCE = 'ldap';

/** A group name or DN may be long (Active Directory DNs); longer is refused. */
export const MAPPING_GROUP_MAX = 1000;

/**
 * A group to role mapping rule, as the API answers it: members of `group` at `source` (`ldap` or
 * an OpenID Connect provider id) get the admin flag, a role in a project, or both, at sign-in.
 */
export const identityMappingSchema = z.object({
  id: z.number().int(),
  source: z.string(),
  group: z.string(),
  admin: z.boolean(),
  project_id: z.number().int().nullable(),
  role: projectRoleSchema.nullable(),
  created: z.string(),
});
export type IdentityMapping = z.infer<typeof identityMappingSchema>;

/**
 * A rule to create or replace. A project needs a role and a role a project; a rule gives at least
 * the admin flag or a project role. Whether the source and the project exist is the server's check.
 */
export const identityMappingInputSchema = z
  .object({
    source: requiredString('Source', 64),
    group: requiredString('Group', MAPPING_GROUP_MAX),
    admin: z
      .boolean(coded('Admin must be true or false', ErrorCodes.mustBeTrueOrFalse, { label_key: 'admin' }))
      .default(false),
    project_id: z.number().int().positive().nullish(),
    role: projectRoleSchema.nullish(),
  })
  .superRefine((v, ctx) => {
    if (v.project_id != null && v.role == null)
      ctx.addIssue({ code: 'custom', path: ['role'], ...requiredIssue('Role') });
    else if (v.role != null && v.project_id == null)
      ctx.addIssue({ code: 'custom', path: ['project_id'], ...requiredIssue('Project') });
    else if (v.project_id == null && !v.admin) {
      ctx.addIssue({
        code: 'custom',
        path: ['admin'],
        ...codedIssue('A mapping gives the admin flag, a project role, or both', ErrorCodes.identityMappingEmpty),
      });
    }
  })
  .transform((v) => ({ ...v, project_id: v.project_id ?? null, role: v.role ?? null }));
export type IdentityMappingInput = z.output<typeof identityMappingInputSchema>;

/** GET /api/identity/sources: `ldap` and the configured OpenID Connect provider ids, with a display name each. */
export const identitySourceSchema = z.object({ id: z.string(), name: z.string() });
export type IdentitySource = z.infer<typeof identitySourceSchema>;

/** Where a mapped project membership came from; null (or absent) for one an admin or owner made by hand. */
export const membershipOriginSchema = z.object({ source: z.string(), group: z.string() });
export type MembershipOrigin = z.infer<typeof membershipOriginSchema>;
