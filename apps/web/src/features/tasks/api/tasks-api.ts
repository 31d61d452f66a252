import type { ActiveTask, Task, TaskCreate, TaskOutput } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const taskQuery = (projectId: number, id: number) =>
  queryOptions({ queryKey: ['task', id], queryFn: () => api.get<Task>(`/project/${projectId}/tasks/${id}`) });
export const taskOutput = (projectId: number, id: number) => api.get<TaskOutput[]>(`/project/${projectId}/tasks/${id}/output`);
export const activeTasksQuery = queryOptions({ queryKey: ['active-tasks'], queryFn: () => api.get<ActiveTask[]>('/tasks') });

export function useTaskActions(projectId: number, id: number) {
  const qc = useQueryClient();
  const done = () => qc.invalidateQueries({ queryKey: ['task', id] });
  return {
    stop: useMutation({ mutationFn: (force: boolean) => api.post(`/project/${projectId}/tasks/${id}/stop`, { force }), onSuccess: done }),
    confirm: useMutation({ mutationFn: () => api.post(`/project/${projectId}/tasks/${id}/confirm`), onSuccess: done }),
    reject: useMutation({ mutationFn: () => api.post(`/project/${projectId}/tasks/${id}/reject`), onSuccess: done }),
  };
}

export function useCreateTask(projectId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: TaskCreate) => api.post<Task>(`/project/${projectId}/tasks`, body),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['project', projectId] }),
  });
}
