import type { Project, ProjectCreate, ProjectUpdate } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { keys } from '../../../lib/session';

export const projectQuery = (id: number) => queryOptions({ queryKey: keys.project(id), queryFn: () => api.get<Project>(`/project/${id}`) });

export function useCreateProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ProjectCreate) => api.post<Project>('/projects', body),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.projects }),
  });
}

export function useUpdateProject(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ProjectUpdate) => api.put(`/project/${id}`, body),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.projects });
      await qc.invalidateQueries({ queryKey: keys.project(id) });
    },
  });
}

export function useDeleteProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/project/${id}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.projects }),
  });
}
