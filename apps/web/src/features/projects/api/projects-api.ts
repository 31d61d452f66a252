import {
  MAINTENANCE_ACTION_DELAY_MS,
  type BackupExportFormat,
  type Project,
  type ProjectCreate,
  type ProjectUpdate,
} from '@gantry/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { projectKeys } from '../../../lib/project-queries';
import { saveFile } from '../../../lib/save-file';
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

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, MAINTENANCE_ACTION_DELAY_MS));

/**
 * A maintenance action as the spec times it: wait 1 s, act, wait 1 s; the button stays busy
 * throughout. The activity list is refreshed afterwards (each action is logged there).
 */
function useMaintenance(projectId: number, act: () => Promise<void>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      await pause();
      await act();
      await pause();
    },
    onSettled: () => qc.invalidateQueries({ queryKey: projectKeys.events(projectId) }),
  });
}

/** Downloads the project's backup file (GET /project/{id}/backup), in Gantry's or Semaphore's format. */
export function useBackupProject(projectId: number, format: BackupExportFormat = 'gantry') {
  return useMaintenance(projectId, async () => {
    const { blob, fileName } = await api.download(`/project/${projectId}/backup?format=${format}`);
    saveFile(blob, fileName ?? `${format}-project-${projectId}.json`);
  });
}

/** Removes what the server keeps on disk for the project and can rebuild (DELETE /project/{id}/cache). */
export function useClearProjectCache(projectId: number) {
  return useMaintenance(projectId, () => api.delete(`/project/${projectId}/cache`));
}
