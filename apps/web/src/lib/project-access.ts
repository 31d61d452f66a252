import { Permission, can } from '@gantry/contracts';
import { useParams } from 'react-router';
import { useRole } from './session';

/** The project of the current route. */
export function useProjectId(): number {
  return Number(useParams().projectId);
}

/** What the signed-in user may do in the project, from its role's permission bits. */
export function useProjectAccess(projectId: number) {
  const perms = useRole(projectId).data?.permissions ?? 0;
  return {
    loaded: useRole(projectId).isSuccess,
    role: useRole(projectId).data?.role ?? '',
    canRun: can(perms, Permission.runProjectTasks),
    canUpdate: can(perms, Permission.updateProject),
    canManage: can(perms, Permission.manageProjectResources),
    canManageUsers: can(perms, Permission.manageProjectUsers),
  };
}
