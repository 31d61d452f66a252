import { z } from 'zod';
import { requiredMessage } from './fields.js';

/** Permission bits of a project role, as the specification numbers them. */
export const Permission = {
  runProjectTasks: 1,
  updateProject: 2,
  manageProjectResources: 4,
  manageProjectUsers: 8,
} as const;
export type PermissionName = keyof typeof Permission;

export const ALL_PERMISSIONS =
  Permission.runProjectTasks |
  Permission.updateProject |
  Permission.manageProjectResources |
  Permission.manageProjectUsers;

export const PROJECT_ROLES = ['owner', 'manager', 'task_runner', 'guest'] as const;
export const projectRoleSchema = z.enum(PROJECT_ROLES, requiredMessage('Role'));
export type ProjectRole = z.infer<typeof projectRoleSchema>;

const ROLE_PERMISSIONS: Record<ProjectRole, number> = {
  owner: ALL_PERMISSIONS,
  manager: Permission.runProjectTasks | Permission.manageProjectResources,
  task_runner: Permission.runProjectTasks,
  guest: 0,
};

/** The bits a user holds in a project: admins hold all, non-members none. */
export function permissionsFor(role: ProjectRole | null, isAdmin: boolean): number {
  if (isAdmin) return ALL_PERMISSIONS;
  return role ? ROLE_PERMISSIONS[role] : 0;
}

export function can(permissions: number, bit: number): boolean {
  return (permissions & bit) === bit;
}

export const projectRoleInfoSchema = z.object({
  role: z.union([projectRoleSchema, z.literal('')]),
  permissions: z.number().int(),
});
export type ProjectRoleInfo = z.infer<typeof projectRoleInfoSchema>;
