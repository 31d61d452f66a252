import type { CurrentUser, Project, ProjectRoleInfo, SystemInfo } from '@gantry/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from './api-client';

/** Query keys shared across features; mutations invalidate by these. */
export const keys = {
  user: ['user'] as const,
  info: ['info'] as const,
  projects: ['projects'] as const,
  project: (id: number) => ['project', id] as const,
  role: (id: number) => ['project', id, 'role'] as const,
  users: ['users'] as const,
  tokens: ['tokens'] as const,
  loginInfo: ['login-info'] as const,
};

export const userQuery = queryOptions({ queryKey: keys.user, queryFn: () => api.get<CurrentUser>('/user'), retry: false });
export const infoQuery = queryOptions({ queryKey: keys.info, queryFn: () => api.get<SystemInfo>('/info'), retry: false });
export const projectsQuery = queryOptions({ queryKey: keys.projects, queryFn: () => api.get<Project[]>('/projects'), retry: false });
export const roleQuery = (projectId: number) =>
  queryOptions({ queryKey: keys.role(projectId), queryFn: () => api.get<ProjectRoleInfo>(`/project/${projectId}/role`) });

/** The signed-in user; the app renders only once it is loaded. */
export function useCurrentUser(): CurrentUser {
  const { data } = useQuery(userQuery);
  if (!data) throw new Error('useCurrentUser before the session loaded');
  return data;
}

export function useProjects(): Project[] {
  return useQuery(projectsQuery).data ?? [];
}

export function useRole(projectId: number) {
  return useQuery({ ...roleQuery(projectId), enabled: Number.isInteger(projectId) && projectId > 0 });
}
