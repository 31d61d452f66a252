import type { ProjectRole, UserSummary } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { projectKeys } from '../../../lib/project-queries';
import { keys } from '../../../lib/session';

/** Users who could join (GET /users answers names only to non-admins). */
export const candidatesQuery = queryOptions({ queryKey: [...keys.users, 'candidates'], queryFn: () => api.get<UserSummary[]>('/users') });

export function useTeamMutations(projectId: number) {
  const qc = useQueryClient();
  const done = async () => {
    await qc.invalidateQueries({ queryKey: projectKeys.team(projectId) });
    await qc.invalidateQueries({ queryKey: keys.role(projectId) });
    await qc.invalidateQueries({ queryKey: keys.projects });
  };
  return {
    add: useMutation({ mutationFn: (b: { user_id: number; role: ProjectRole }) => api.post(`/project/${projectId}/users`, b), onSuccess: done }),
    setRole: useMutation({ mutationFn: (b: { userId: number; role: ProjectRole }) => api.put(`/project/${projectId}/users/${b.userId}`, { role: b.role }), onSuccess: done }),
    remove: useMutation({ mutationFn: (userId: number) => api.delete(`/project/${projectId}/users/${userId}`), onSuccess: done }),
    leave: useMutation({ mutationFn: () => api.delete(`/project/${projectId}/me`) }),
  };
}
