import type { ProjectBackupInput, RestoreResult } from '@gantry/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { keys } from '../../../lib/session';

/** POST /projects/restore: a new project from a backup document; the project list is reloaded. */
export function useRestoreProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (backup: ProjectBackupInput) => api.post<RestoreResult>('/projects/restore', backup),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.projects }),
  });
}

/**
 * Reads a chosen file as a backup document: JSON with a `meta` object (Gantry's backups, Semaphore
 * UI's and the combined file of both have one; the server tells them apart and checks the rest).
 * Null when the file cannot be one.
 */
export async function readBackupFile(file: File): Promise<ProjectBackupInput | null> {
  try {
    const doc: unknown = JSON.parse(await file.text());
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return null;
    const meta = (doc as { meta?: unknown }).meta;
    return meta && typeof meta === 'object' ? (doc as ProjectBackupInput) : null;
  } catch {
    return null;
  }
}
