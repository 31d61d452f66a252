import type { App, Schedule, Task, Template, TemplateInput, View } from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, api } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-text';
import { projectKeys } from '../../../lib/project-queries';

export const appsQuery = queryOptions({ queryKey: ['apps'], queryFn: () => api.get<App[]>('/apps') });
export const templateQuery = (p: number, id: number) => queryOptions({ queryKey: ['project', p, 'template', id], queryFn: () => api.get<Template>(`/project/${p}/templates/${id}`) });
export const templateTasksQuery = (p: number, id: number) =>
  queryOptions({ queryKey: ['project', p, 'template', id, 'tasks'], queryFn: () => api.get<Task[]>(`/project/${p}/templates/${id}/tasks/last?limit=200`) });
export const terraformStateQuery = (p: number, id: number) =>
  queryOptions({ queryKey: ['project', p, 'template', id, 'state'], queryFn: () => api.get<{ resources: string[]; outputs: string[]; serial: number; terraform_version: string }>(`/project/${p}/templates/${id}/terraform/state`), retry: false });

export function useSaveTemplate(p: number, id: number | null) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: TemplateInput): Promise<number> => {
      if (id) {
        await api.put(`/project/${p}/templates/${id}`, body);
        return id;
      }
      return (await api.post<Template>(`/project/${p}/templates`, body)).id;
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: projectKeys.templates(p) });
      if (id) await qc.invalidateQueries({ queryKey: ['project', p, 'template', id] });
    },
  });
}

export function useSetDescription(p: number, id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (description: string) => api.put(`/project/${p}/templates/${id}/description`, { description }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['project', p, 'template', id] }),
  });
}

/** Saves the edited views: creates new ones (negative ids), renames, removes, then positions. */
export function useSaveViews(p: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ views, removed }: { views: View[]; removed: number[] }) => {
      for (const id of removed) await api.delete(`/project/${p}/views/${id}`);
      const positions: Record<string, number> = {};
      for (const [i, v] of views.entries()) {
        if (v.id < 0) positions[(await api.post<View>(`/project/${p}/views`, { title: v.title, position: i })).id] = i;
        else {
          await api.put(`/project/${p}/views/${v.id}`, { title: v.title, position: i });
          positions[v.id] = i;
        }
      }
      await api.post(`/project/${p}/views/positions`, positions);
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: projectKeys.views(p) }),
  });
}

/** The schedules that run a template (the first is the one its form edits). */
export const templateSchedulesQuery = (p: number, id: number) =>
  queryOptions({ queryKey: ['project', p, 'schedules', 'template', id], queryFn: () => api.get<Schedule[]>(`/project/${p}/templates/${id}/schedules`) });

/** Asks the server whether a cron expression is valid; answers its refusal's text, or null. */
export async function cronError(p: number, cron: string): Promise<string | null> {
  // A bad cron is a 400 with the reason (as Semaphore answers); other failures are thrown.
  return api.post(`/project/${p}/schedules/validate`, { cron_format: cron }).then(
    () => null,
    (e: unknown) => {
      if (e instanceof ApiError && e.status === 400) return errorText(e);
      throw e;
    },
  );
}

/**
 * Keeps the template's own schedule in step with the form's cron field: creates it, changes its
 * cron, or deletes it when the field is emptied.
 */
export async function syncTemplateSchedule(p: number, templateId: number, name: string, cron: string, existing: Schedule | undefined): Promise<void> {
  if (existing && !cron) await api.delete(`/project/${p}/schedules/${existing.id}`);
  else if (existing && cron !== existing.cron_format) {
    await api.put(`/project/${p}/schedules/${existing.id}`, { name: existing.name, template_id: templateId, cron_format: cron, repository_id: existing.repository_id, active: existing.active });
  } else if (!existing && cron) await api.post(`/project/${p}/schedules`, { name, template_id: templateId, cron_format: cron });
}
