import type { ActiveTask, Task, TaskCreate, TaskOutputPage, TaskOutputQuery } from '@gantry/contracts';
import { infiniteQueryOptions, keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const taskQuery = (projectId: number, id: number) =>
  queryOptions({ queryKey: ['task', id], queryFn: () => api.get<Task>(`/project/${projectId}/tasks/${id}`) });

/** One page of a task's log (see `taskOutputQuerySchema` for what each parameter selects). */
export function taskOutputPage(projectId: number, id: number, query: TaskOutputQuery): Promise<TaskOutputPage> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === false) continue;
    params.set(k, v === true ? '1' : String(v));
  }
  return api.get<TaskOutputPage>(`/project/${projectId}/tasks/${id}/output?${params.toString()}`);
}

/** Matching lines per page of a log search. */
export const LOG_SEARCH_PAGE_SIZE = 100;

/** A search in a task's log, page by page (the next page starts after the last match). */
export const taskOutputSearchQuery = (projectId: number, id: number, q: string) =>
  infiniteQueryOptions({
    // Not under ['task', id]: status updates invalidate that key and would re-run the search.
    queryKey: ['task-output-search', id, q],
    queryFn: ({ pageParam }) => taskOutputPage(projectId, id, { q, from_seq: pageParam, limit: LOG_SEARCH_PAGE_SIZE }),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.lines.length < LOG_SEARCH_PAGE_SIZE ? undefined : last.lines[last.lines.length - 1]!.seq + 1),
    enabled: q !== '',
    // While the words change, the last matches stay listed until the new ones arrive.
    placeholderData: keepPreviousData,
  });

/** The log as text, shown by the browser (`download`: saved as a file instead). */
export function taskRawOutputUrl(projectId: number, id: number, download = false): string {
  return `/api/project/${projectId}/tasks/${id}/raw_output${download ? '?download=1' : ''}`;
}
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
    onSuccess: (task) => {
      // The log opens on the answer itself, not after reading the task again; marked stale, so the
      // open log reads it once more in the background (updates heard before this answer are in it).
      qc.setQueryData(taskQuery(projectId, task.id).queryKey, task, { updatedAt: 0 });
      // Not awaited, nothing read now: the task lists on screen hear of the task over the socket
      // (useLiveTasks, RealtimeBridge); the project's other queries are read when next shown.
      void qc.invalidateQueries({ queryKey: ['project', projectId], refetchType: 'none' });
    },
  });
}
