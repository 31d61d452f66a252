import { Permission, can } from '@gantry/contracts';
import { useParams } from 'react-router';
import { useProjects, useRole } from './session';

/** The project of the current route. */
export function useProjectId(): number {
  return Number(useParams().projectId);
}

/**
 * What the signed-in user may do in the project, from its role's permission bits. In a project
 * managed by code (`gantry apply`) the edit flags are off for everyone: a hand edit would be undone
 * by the next apply, so pages that gate their create/edit/delete controls on these flags show the
 * objects read-only. Running tasks stays allowed; `roleCanManage`/`roleCanUpdate` keep the role's
 * own answer for what is not an edit (a manager's run options, downloading a state).
 */
export function useProjectAccess(projectId: number) {
  const role = useRole(projectId);
  const perms = role.data?.permissions ?? 0;
  const managedByCode = useProjects().find((p) => p.id === projectId)?.managed_by_code ?? false;
  const roleCanManage = can(perms, Permission.manageProjectResources);
  const roleCanUpdate = can(perms, Permission.updateProject);
  return {
    loaded: role.isSuccess,
    role: role.data?.role ?? '',
    managedByCode,
    canRun: can(perms, Permission.runProjectTasks),
    canUpdate: roleCanUpdate && !managedByCode,
    canManage: roleCanManage && !managedByCode,
    canManageUsers: can(perms, Permission.manageProjectUsers) && !managedByCode,
    roleCanManage,
    roleCanUpdate,
  };
}
